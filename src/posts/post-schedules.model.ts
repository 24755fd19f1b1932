import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';

// Pending scheduled publishes/unpublishes (`post_schedules`). The entry, not the Agenda job, is what the
// admin API lists and cancels: the job only carries the entry's id and does nothing once it is gone. An
// entry is removed when its job has run (after the change, so a job retried after a crash still finds it).

export type ScheduledAction = 'publish' | 'unpublish';

interface ScheduleDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  postId: string;
  action: ScheduledAction;
  at: Date;
  createdAt: Date;
}

const scheduleSchema = new Schema<ScheduleDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    postId: { type: String, required: true },
    action: { type: String, required: true, enum: ['publish', 'unpublish'] },
    at: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'post_schedules', versionKey: false },
);
// Listing and cancelling a post's pending changes (`GET`/`DELETE .../posts/:pid/schedule`).
scheduleSchema.index({ workspaceId: 1, postId: 1, at: 1 });

const Schedules = defineModel('PostSchedule', scheduleSchema);

export interface ScheduleEntry {
  id: string;
  workspaceId: string;
  postId: string;
  action: ScheduledAction;
  at: Date;
  createdAt: Date;
}

const toEntry = (doc: ScheduleDoc): ScheduleEntry => ({
  id: doc._id.toHexString(),
  workspaceId: doc.workspaceId.toHexString(),
  postId: doc.postId,
  action: doc.action,
  at: doc.at,
  createdAt: doc.createdAt,
});

export function postScheduleStore(db: Connection) {
  const model = Schedules(db);
  const scope = tenantScope(model);
  return {
    async add(workspaceId: string, postId: string, action: ScheduledAction, at: Date, createdAt: Date): Promise<ScheduleEntry> {
      const doc = await model.create({ workspaceId: new Types.ObjectId(workspaceId), postId, action, at, createdAt });
      return toEntry(doc.toObject());
    },
    async byId(workspaceId: string, id: string): Promise<ScheduleEntry | null> {
      const doc = await scope.byId(workspaceId, id);
      return doc ? toEntry(doc) : null;
    },
    /** The post's pending changes, soonest first (ties in creation order). */
    async ofPost(workspaceId: string, postId: string): Promise<ScheduleEntry[]> {
      return (await scope.find(workspaceId, { postId }, { sort: { at: 1, _id: 1 } })).map(toEntry);
    },
    /** The pending entries of these posts (every post of the workspace without `postIds`), soonest first. */
    async pending(workspaceId: string, postIds?: string[]): Promise<ScheduleEntry[]> {
      const filter = postIds ? { postId: { $in: postIds } } : {};
      return (await scope.find(workspaceId, filter, { sort: { at: 1, _id: 1 } })).map(toEntry);
    },
    /** Every pending entry of every workspace (job recovery at worker start). */
    async all(): Promise<ScheduleEntry[]> {
      return (await model.find({}).lean<ScheduleDoc[]>()).map(toEntry);
    },
    remove(workspaceId: string, id: string): Promise<boolean> {
      return scope.deleteById(workspaceId, id);
    },
  };
}
