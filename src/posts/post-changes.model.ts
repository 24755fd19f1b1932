import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';

export type PostChangeKind = 'published' | 'unpublished' | 'deleted';

export interface PostChange {
  id: string;
  postId: string;
  slug: string;
  locale: string;
  change: PostChangeKind;
  at: Date;
}

interface PostChangeDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  postId: string;
  slug: string;
  locale: string;
  change: PostChangeKind;
  at: Date;
}

const postChangeSchema = new Schema<PostChangeDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    postId: { type: String, required: true },
    slug: { type: String, required: true },
    locale: { type: String, required: true },
    change: { type: String, required: true, enum: ['published', 'unpublished', 'deleted'] },
    at: { type: Date, required: true },
  },
  { collection: 'post_changes', versionKey: false },
);
// `GET /external/changes`: a workspace's entries after a position, in (at, _id) order.
postChangeSchema.index({ workspaceId: 1, at: 1, _id: 1 });

const PostChanges = defineModel('PostChange', postChangeSchema);

/** A position in the log: entries strictly after (at, id); without id, entries at or after `at`. */
export interface ChangePosition {
  at: Date;
  id: string | null;
}

const toChange = (doc: PostChangeDoc): PostChange => ({
  id: doc._id.toHexString(),
  postId: doc.postId,
  slug: doc.slug,
  locale: doc.locale,
  change: doc.change,
  at: doc.at,
});

/** The per-workspace log of public post changes (`post_changes`), append-only. */
export function postChangeStore(db: Connection) {
  const model = PostChanges(db);
  const scope = tenantScope(model);
  return {
    async record(workspaceId: string, entry: Omit<PostChange, 'id'>): Promise<void> {
      await model.create({ ...entry, workspaceId: new Types.ObjectId(workspaceId) });
    },
    async after(workspaceId: string, position: ChangePosition | null, limit: number): Promise<PostChange[]> {
      let filter: Record<string, unknown> = {};
      if (position?.id) {
        filter = { $or: [{ at: { $gt: position.at } }, { at: position.at, _id: { $gt: new Types.ObjectId(position.id) } }] };
      } else if (position) filter = { at: { $gte: position.at } };
      const docs = await scope.find(workspaceId, filter, { sort: { at: 1, _id: 1 }, limit });
      return docs.map(toChange);
    },
  };
}
