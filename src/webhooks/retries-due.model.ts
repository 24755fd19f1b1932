import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';

/**
 * Retries to come (collection `webhook_retries`): one small document per delivery record in state
 * `scheduled`, with its workspace and when it is due. The retry dispatcher, its hourly look, its job's
 * completion and the worker start read here instead of `webhook_deliveries`: there a filter on the
 * state decodes every record ever kept on FerretDB (500,000 in a busy workspace) to find the few waiting.
 *
 * The record stays the truth. An entry is written before its record becomes scheduled and removed after it
 * has finished, so a crash leaves at most an entry too many (or a due time too early): the dispatcher
 * reads the record by `_id` before sending and drops or moves such an entry then.
 */
interface RetryDueDoc {
  /** The delivery's id. */
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  nextAttemptAt: Date;
}

const retryDueSchema = new Schema<RetryDueDoc>(
  { workspaceId: { type: Schema.Types.ObjectId, required: true }, nextAttemptAt: { type: Date, required: true } },
  { collection: 'webhook_retries', versionKey: false },
);
// The workspace's retry dispatcher: its entries (an equality filter; the collection holds only retries to come).
retryDueSchema.index({ workspaceId: 1 });

const RetriesDue = defineModel('WebhookRetryDue', retryDueSchema);

export interface RetryDue {
  id: string;
  nextAttemptAt: Date;
}

export function retriesDueStore(db: Connection) {
  const model = RetriesDue(db);
  return {
    /** Entries for deliveries about to be stored or moved to `scheduled`; one already there is moved to the new time. */
    async set(entries: { id: string; workspaceId: string; nextAttemptAt: Date }[]): Promise<void> {
      if (!entries.length) return;
      const docs = entries.map((entry) => ({ _id: new Types.ObjectId(entry.id), workspaceId: new Types.ObjectId(entry.workspaceId), nextAttemptAt: entry.nextAttemptAt }));
      // The usual case is new entries: one insert. Those already there (a resent first attempt, a retry) are moved one by one.
      const inserted = await nullOnDuplicate(() => model.collection.insertMany(docs, { ordered: false }));
      if (inserted && inserted.insertedCount === docs.length) return;
      for (const doc of docs) await model.collection.updateOne({ _id: doc._id }, { $set: { nextAttemptAt: doc.nextAttemptAt } });
    },
    async remove(id: string): Promise<void> {
      await model.collection.deleteOne({ _id: new Types.ObjectId(id) });
    },
    /** The workspace's entries, the earliest due first. */
    async of(workspaceId: string): Promise<RetryDue[]> {
      const docs = await model.find({ workspaceId: new Types.ObjectId(workspaceId) }).lean<RetryDueDoc[]>();
      return docs.map((doc) => ({ id: doc._id.toHexString(), nextAttemptAt: doc.nextAttemptAt })).sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
    },
    /** Workspaces with retries to come (worker start). */
    async workspaces(): Promise<string[]> {
      const ids: Types.ObjectId[] = await model.distinct('workspaceId');
      return ids.map((id) => id.toHexString());
    },
  };
}
