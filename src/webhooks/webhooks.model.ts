import { Schema, Types, type Connection } from 'mongoose';
import { documentWrites } from '../db/document-locks.js';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import { pendingStore, storedDeliveryOf, type StoredDelivery } from './pending.model.js';
import { isObjectIdHex } from '../shared/ids.js';
import type { Delivery, DeliveryAttempt, DeliveryState } from './delivery.js';

interface DeliveryDoc extends Omit<StoredDelivery, 'batch' | 'redeliveryOf'> {
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  nextAttemptAt: Date | null;
  finalReason: string | null;
  redeliveryOf: string | null;
}

const attemptSchema = new Schema<DeliveryAttempt>(
  { number: Number, at: Date, statusCode: { type: Number, default: null }, durationMs: Number, error: { type: String, default: null }, outcome: String },
  { _id: false },
);

const deliverySchema = new Schema<DeliveryDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    event: { type: String, required: true },
    webhookId: { type: String, required: true },
    payloadJson: { type: String, required: true },
    url: { type: String, required: true },
    sealedUrl: { type: String, default: null },
    state: { type: String, required: true },
    attempts: { type: [attemptSchema], default: [] },
    nextAttemptAt: { type: Date, default: null },
    finalReason: { type: String, default: null },
    redeliveryOf: { type: String, default: null },
    endpointId: { type: String, default: null },
  },
  { timestamps: true, collection: 'webhook_deliveries' },
);
// Admin list: newest first.
deliverySchema.index({ workspaceId: 1, _id: -1 });
// One registered endpoint's log: newest first.
deliverySchema.index({ workspaceId: 1, endpointId: 1, _id: -1 });
// A workspace's retries by when they are due; at worker boot, the workspaces with retries (or records
// versions before the pending collection left `pending`). Every index costs each retry's write on FerretDB.
deliverySchema.index({ state: 1, workspaceId: 1, nextAttemptAt: 1 });
// Pruning by age.
deliverySchema.index({ createdAt: 1 });

interface LeaseDoc {
  _id: string;
  holder: string;
  until: Date;
}
const leaseSchema = new Schema<LeaseDoc>({ _id: { type: String }, holder: String, until: Date }, { collection: 'webhook_dispatch_leases', versionKey: false });

const Deliveries = defineModel('WebhookDelivery', deliverySchema);
const Leases = defineModel('WebhookDispatchLease', leaseSchema);

function toDelivery(doc: DeliveryDoc): Delivery {
  return {
    ...storedDeliveryOf(doc),
    state: doc.state,
    attempts: (doc.attempts ?? []).map((a) => ({ number: a.number, at: a.at, statusCode: a.statusCode ?? null, durationMs: a.durationMs, error: a.error ?? null, outcome: a.outcome })),
    nextAttemptAt: doc.nextAttemptAt ?? null,
    finalReason: doc.finalReason ?? null,
  };
}

function toDoc(delivery: Delivery): DeliveryDoc {
  return {
    _id: new Types.ObjectId(delivery.id),
    workspaceId: new Types.ObjectId(delivery.workspaceId),
    event: delivery.event,
    webhookId: delivery.webhookId,
    payloadJson: storeJson(delivery.payload) ?? '{}',
    url: delivery.url,
    sealedUrl: delivery.sealedUrl,
    state: delivery.state,
    attempts: delivery.attempts,
    nextAttemptAt: delivery.nextAttemptAt,
    finalReason: delivery.finalReason,
    redeliveryOf: delivery.redeliveryOf,
    endpointId: delivery.endpointId,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
  };
}


const FINISHED: DeliveryState[] = ['delivered', 'failed'];

export function deliveryStore(db: Connection) {
  const model = Deliveries(db);
  const pending = pendingStore(db);
  const tenant = tenantScope(model);
  return {
    /** Deliveries with their first attempt to come, grouped by `batch`: one insert into the pending collection. */
    addPending: pending.add.bind(pending),
    /** A delivery stored whole (a redelivery, scheduled at once). */
    async create(delivery: Delivery): Promise<void> {
      await model.collection.insertOne(toDoc(delivery));
    },
    /**
     * Group commit of first attempts: the finished records go in with one insert, then leave the pending
     * collection with one delete. A record already there (a crash between the two) is left as it is.
     */
    async completeFirstAttempts(deliveries: Delivery[]): Promise<void> {
      if (!deliveries.length) return;
      await nullOnDuplicate(() => model.collection.insertMany(deliveries.map(toDoc), { ordered: false }));
    },
    /** Pending entries leave by group: an equality delete, cheap on every engine. */
    removePendingBatch: pending.removeBatch.bind(pending),
    /** All the workspace's pending deliveries, in event order. */
    pending: pending.of.bind(pending),
    hasPending: pending.any.bind(pending),
    /** Workspaces with pending deliveries (worker boot). */
    workspacesWithPending: pending.workspaces.bind(pending),
    /** The retry job's read: the job carries only the delivery id, whatever its workspace. */
    async byId(id: string): Promise<Delivery | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findById(id).lean<DeliveryDoc>();
      return doc ? toDelivery(doc) : null;
    },
    async inWorkspace(workspaceId: string, id: string): Promise<Delivery | null> {
      const doc = await tenant.byId(workspaceId, id);
      if (doc) return toDelivery(doc);
      // The pending collection is small: its groups are read whole.
      return (await pending.of(workspaceId)).find((delivery) => delivery.id === id) ?? null;
    },
    /** Newest first (of one endpoint when `endpointId` is given), `limit` deliveries older than the delivery `before` (when given), pending ones included. */
    async list(workspaceId: string, options: { limit: number; before?: string; endpointId?: string }): Promise<Delivery[]> {
      const filter = {
        ...(options.before ? { _id: { $lt: new Types.ObjectId(options.before) } } : {}),
        ...(options.endpointId ? { endpointId: options.endpointId } : {}),
      };
      const [done, waiting] = await Promise.all([tenant.find(workspaceId, filter, { sort: { _id: -1 }, limit: options.limit }), pending.of(workspaceId)]);
      const byId = new Map<string, Delivery>();
      for (const delivery of waiting) {
        if ((options.before && delivery.id >= options.before.toLowerCase()) || (options.endpointId && delivery.endpointId !== options.endpointId)) continue;
        byId.set(delivery.id, delivery);
      }
      // A record in both places is one whose pending entry was not removed yet: the record wins.
      for (const doc of done) byId.set(doc._id.toHexString(), toDelivery(doc));
      return [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, options.limit);
    },
    /** The workspace's retries due by `now`, the longest due first, at most `limit`. */
    async dueRetries(workspaceId: string, now: Date, limit: number): Promise<Delivery[]> {
      const docs = await tenant.find(workspaceId, { state: 'scheduled', nextAttemptAt: { $lte: now } }, { sort: { nextAttemptAt: 1 }, limit });
      return docs.map(toDelivery);
    },
    /** When the workspace's next retry is due; null when none is scheduled. */
    async nextRetryAt(workspaceId: string): Promise<Date | null> {
      const [next] = await tenant.find(workspaceId, { state: 'scheduled' }, { sort: { nextAttemptAt: 1 }, limit: 1 });
      return next ? (next.nextAttemptAt ?? new Date(0)) : null;
    },
    /** Worker boot, across workspaces: those with retries to come. */
    async workspacesWithRetries(): Promise<string[]> {
      const ids = await model.distinct('workspaceId', { state: 'scheduled' });
      return ids.map(String);
    },
    /** Worker boot: records versions before the pending collection left `pending`. */
    async legacyPending(): Promise<Delivery[]> {
      const docs = await model.find({ state: 'pending' }).sort({ _id: 1 }).limit(50_000).lean<DeliveryDoc[]>();
      return docs.map(toDelivery);
    },
    /** Records of earlier versions still `pending` move to the pending collection (their dispatch reads only there). */
    async movePending(deliveries: Delivery[]): Promise<void> {
      for (const delivery of deliveries) {
        await pending.add([{ ...delivery, batch: delivery.id }]);
        await model.collection.deleteOne({ _id: new Types.ObjectId(delivery.id), state: 'pending' });
      }
    },
    /**
     * The retries of one batch, recorded one after the other: FerretDB 1.24 hangs on an update command of
     * several statements, and concurrent writes only contend for its SQLite writer. The workspace's retry
     * lease makes its holder the only writer of a scheduled record (nothing else updates one), so no
     * document lock is needed.
     */
    async recordRetries(outcomes: { id: string; attempt: DeliveryAttempt; next: { state: DeliveryState; nextAttemptAt: Date | null; finalReason: string | null } }[]): Promise<void> {
      for (const { id, attempt, next } of outcomes) await model.updateOne({ _id: id }, { $push: { attempts: attempt }, $set: next });
    },
    /** Finished deliveries created before `cutoff`, all workspaces. */
    async pruneOlderThan(cutoff: Date): Promise<number> {
      const result = await model.collection.deleteMany({ createdAt: { $lt: cutoff }, state: { $in: FINISHED } });
      return result.deletedCount;
    },
    /** Per workspace, finished deliveries beyond the newest `max` deliveries. */
    async pruneBeyond(max: number): Promise<number> {
      const counts = await model.aggregate<{ _id: Types.ObjectId; n: number }>([{ $group: { _id: '$workspaceId', n: { $sum: 1 } } }]);
      let deleted = 0;
      for (const { _id: workspaceId, n } of counts) {
        if (n <= max) continue;
        const [boundary] = await model.find({ workspaceId }, { _id: 1 }).sort({ _id: -1 }).skip(max).limit(1).lean<{ _id: Types.ObjectId }[]>();
        if (!boundary) continue;
        const result = await model.collection.deleteMany({ workspaceId, _id: { $lte: boundary._id }, state: { $in: FINISHED } });
        deleted += result.deletedCount;
      }
      return deleted;
    },
  };
}

/**
 * One dispatcher per workspace at a time, across nodes: a lease document per workspace. A dead holder's
 * lease simply runs out.
 */
export function leaseStore(db: Connection) {
  const model = Leases(db);
  // The conditional updates below are compare-and-sets only under the lease's lock on FerretDB.
  const { write: guarded } = documentWrites(model);
  return {
    async acquire(workspaceId: string, holder: string, ttlMs: number): Promise<boolean> {
      const now = new Date();
      // A live lease does not match, so the upsert collides with its _id: someone else holds it.
      const acquired = await guarded(workspaceId, () =>
        nullOnDuplicate(() =>
          model.findOneAndUpdate({ _id: workspaceId, until: { $lt: now } }, { $set: { holder, until: new Date(now.getTime() + ttlMs) } }, { upsert: true, returnDocument: 'after' }).exec(),
        ),
      );
      return acquired !== null;
    },
    async renew(workspaceId: string, holder: string, ttlMs: number): Promise<boolean> {
      const result = await guarded(workspaceId, () => model.updateOne({ _id: workspaceId, holder }, { $set: { until: new Date(Date.now() + ttlMs) } }));
      return result.matchedCount === 1;
    },
    async until(workspaceId: string): Promise<Date | null> {
      const doc = await model.findById(workspaceId).lean<LeaseDoc>();
      return doc?.until ?? null;
    },
    async release(workspaceId: string, holder: string): Promise<void> {
      await guarded(workspaceId, () => model.updateOne({ _id: workspaceId, holder }, { $set: { until: new Date(0) } }));
    },
  };
}

/** A delivery id, made when the event is recorded: its order is the event order of the workspace. */
export const newDeliveryId = (): string => new Types.ObjectId().toHexString();
