import { Schema, Types, type Connection } from 'mongoose';
import { documentWrites } from '../db/document-locks.js';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import { pendingStore, storedDeliveryOf, type StoredDelivery } from './pending.model.js';
import { blockOf, deliveryLogStore } from './delivery-log.model.js';
import { retriesDueStore } from './retries-due.model.js';
import { isObjectIdHex } from '../shared/ids.js';
import type { Delivery, DeliveryAttempt, DeliveryState } from './delivery.js';

interface DeliveryDoc extends Omit<StoredDelivery, 'batch' | 'redeliveryOf'> {
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  nextAttemptAt: Date | null;
  finalReason: string | null;
  redeliveryOf: string | null;
  /** The record's number in its workspace's log and its block (`delivery-log.model.ts`); records stored before the numbers have only the block. */
  logSeq?: number;
  logBlock: number;
}

/** What the pruning reads of a record. */
export interface LoggedRecord {
  _id: Types.ObjectId;
  state: DeliveryState;
  createdAt: Date;
  logSeq?: number;
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
    logSeq: { type: Number },
    logBlock: { type: Number, required: true },
  },
  { timestamps: true, collection: 'webhook_deliveries' },
);
// Admin list: newest first.
deliverySchema.index({ workspaceId: 1, _id: -1 });
// One registered endpoint's log: newest first.
deliverySchema.index({ workspaceId: 1, endpointId: 1, _id: -1 });
// Pruning: one block of a workspace's log at a time (retries to come are found in `webhook_retries`).
// Every index costs each record's write on FerretDB.
deliverySchema.index({ workspaceId: 1, logBlock: 1 });

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

function toDoc(delivery: Delivery, logSeq: number): DeliveryDoc {
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
    logSeq,
    logBlock: blockOf(logSeq),
  };
}

const byId = (a: Delivery, b: Delivery) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Retry entries of the records that are to wait for one. */
const retriesOf = (deliveries: Delivery[]) =>
  deliveries.flatMap((delivery) => (delivery.state === 'scheduled' ? [{ id: delivery.id, workspaceId: delivery.workspaceId, nextAttemptAt: delivery.nextAttemptAt ?? delivery.createdAt }] : []));


export function deliveryStore(db: Connection) {
  const model = Deliveries(db);
  const pending = pendingStore(db);
  const retries = retriesDueStore(db);
  const log = deliveryLogStore(db);
  const tenant = tenantScope(model);
  /** Documents of the records, numbered in their workspace's log in event order. */
  const numbered = async (deliveries: Delivery[]): Promise<DeliveryDoc[]> => {
    const byWorkspace = new Map<string, Delivery[]>();
    for (const delivery of deliveries) byWorkspace.set(delivery.workspaceId, [...(byWorkspace.get(delivery.workspaceId) ?? []), delivery]);
    const docs = await Promise.all(
      [...byWorkspace].map(async ([workspaceId, group]) => {
        const first = await log.take(workspaceId, group.length);
        return [...group].sort(byId).map((delivery, index) => toDoc(delivery, first + index));
      }),
    );
    return docs.flat();
  };
  return {
    /** Deliveries with their first attempt to come, grouped by `batch`: one insert into the pending collection. */
    addPending: pending.add.bind(pending),
    /** A delivery stored whole (a redelivery, scheduled at once). */
    async create(delivery: Delivery): Promise<void> {
      await retries.set(retriesOf([delivery]));
      await model.collection.insertOne((await numbered([delivery]))[0]);
    },
    /**
     * Group commit of first attempts: the finished records go in with one insert (after the entries of those
     * to be retried), then leave the pending collection with one delete. A record already there (a crash
     * between the two) is left as it is.
     */
    async completeFirstAttempts(deliveries: Delivery[]): Promise<void> {
      if (!deliveries.length) return;
      await retries.set(retriesOf(deliveries));
      const docs = await numbered(deliveries);
      await nullOnDuplicate(() => model.collection.insertMany(docs, { ordered: false }));
    },
    /** Pending entries leave by group: an equality delete, cheap on every engine. */
    removePendingBatch: pending.removeBatch.bind(pending),
    regroupPending: pending.regroup.bind(pending),
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
      // Pending first, records after: a first attempt's record is written before its pending entry leaves,
      // so a delivery finishing between the two reads is found in one of them. Read at once, both could miss it.
      const waiting = await pending.of(workspaceId);
      const done = await tenant.find(workspaceId, filter, { sort: { _id: -1 }, limit: options.limit });
      const byId = new Map<string, Delivery>();
      for (const delivery of waiting) {
        if ((options.before && delivery.id >= options.before.toLowerCase()) || (options.endpointId && delivery.endpointId !== options.endpointId)) continue;
        byId.set(delivery.id, delivery);
      }
      // A record in both places is one whose pending entry was not removed yet: the record wins.
      for (const doc of done) byId.set(doc._id.toHexString(), toDelivery(doc));
      return [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, options.limit);
    },
    /**
     * The workspace's retries due by `now`, the longest due first, at most `limit`: its retry entries, then
     * each record by `_id`. An entry whose record is gone or finished (a crash after the record's write) is
     * dropped here; one whose record waits longer is moved to the record's time.
     */
    async dueRetries(workspaceId: string, now: Date, limit: number): Promise<Delivery[]> {
      const due: Delivery[] = [];
      for (const entry of await retries.of(workspaceId)) {
        if (due.length >= limit || entry.nextAttemptAt > now) break;
        const doc = await model.findById(entry.id).lean<DeliveryDoc>();
        if (!doc || doc.state !== 'scheduled' || String(doc.workspaceId) !== workspaceId) await retries.remove(entry.id);
        else if (doc.nextAttemptAt && doc.nextAttemptAt > now) await retries.set([{ id: entry.id, workspaceId, nextAttemptAt: doc.nextAttemptAt }]);
        else due.push(toDelivery(doc));
      }
      return due;
    },
    /** When the workspace's next retry is due; null when none is scheduled. */
    async nextRetryAt(workspaceId: string): Promise<Date | null> {
      const [next] = await retries.of(workspaceId);
      return next?.nextAttemptAt ?? null;
    },
    /** Worker boot, across workspaces: those with retries to come. */
    workspacesWithRetries: retries.workspaces.bind(retries),
    /** Records versions before the pending collection left `pending` (an upgrade: it reads every record on FerretDB). */
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
    /** Retry entries for the records versions before `webhook_retries` left scheduled (an upgrade: it reads every record on FerretDB). */
    async enterScheduledOfEarlierVersions(): Promise<number> {
      const docs = await model.find({ state: 'scheduled' }).lean<DeliveryDoc[]>();
      await retries.set(retriesOf(docs.map(toDelivery)));
      return docs.length;
    },
    /**
     * The retries of one batch, recorded one after the other: FerretDB 1.24 hangs on an update command of
     * several statements, and concurrent writes only contend for its SQLite writer. The workspace's retry
     * lease makes its holder the only writer of a scheduled record (nothing else updates one), so no
     * document lock is needed. A record waiting again has its entry moved first; a finished one loses it after.
     */
    async recordRetries(outcomes: { id: string; workspaceId: string; attempt: DeliveryAttempt; next: { state: DeliveryState; nextAttemptAt: Date | null; finalReason: string | null } }[]): Promise<void> {
      for (const { id, workspaceId, attempt, next } of outcomes) {
        if (next.state === 'scheduled') await retries.set([{ id, workspaceId, nextAttemptAt: next.nextAttemptAt ?? new Date() }]);
        await model.updateOne({ _id: id }, { $push: { attempts: attempt }, $set: next });
        if (next.state !== 'scheduled') await retries.remove(id);
      }
    },
    /** One block of the workspace's log, as the pruning reads it. */
    async logBlock(workspaceId: string, block: number): Promise<LoggedRecord[]> {
      return model
        .find({ workspaceId: new Types.ObjectId(workspaceId), logBlock: block }, { _id: 1, state: 1, createdAt: 1, logSeq: 1 })
        .lean<LoggedRecord[]>();
    },
    /** Records of one block of the workspace's log go (the block's equality filter picks the documents read). */
    async deleteFromBlock(workspaceId: string, block: number, ids: Types.ObjectId[]): Promise<number> {
      if (!ids.length) return 0;
      return (await model.collection.deleteMany({ workspaceId: new Types.ObjectId(workspaceId), logBlock: block, _id: { $in: ids } })).deletedCount;
    },
    /**
     * A catch-up of many blocks wholly beyond the count (a first pruning of a long history, a lowered maximum):
     * their finished records go with one delete, which decodes the workspace's records once on FerretDB
     * instead of once per block. What stays of them (unfinished records) is answered.
     */
    async deleteFinishedInBlocks(workspaceId: string, from: number, below: number): Promise<{ deleted: number; left: (LoggedRecord & { logBlock: number })[] }> {
      const blocks = { workspaceId: new Types.ObjectId(workspaceId), logBlock: { $gte: from, $lt: below } };
      const { deletedCount } = await model.collection.deleteMany({ ...blocks, state: { $in: ['delivered', 'failed'] } });
      const left = await model.find(blocks, { _id: 1, state: 1, createdAt: 1, logSeq: 1, logBlock: 1 }).lean<(LoggedRecord & { logBlock: number })[]>();
      return { deleted: deletedCount, left };
    },
    /** Records stored before their workspace's log was numbered go below every numbered one (an upgrade: it reads every record on FerretDB). */
    async fileUnnumbered(legacyBlock: number): Promise<string[]> {
      const filed = await model.collection.updateMany({ logBlock: { $exists: false } }, { $set: { logBlock: legacyBlock } });
      if (!filed.modifiedCount) return [];
      const ids: Types.ObjectId[] = await model.distinct('workspaceId', { logBlock: legacyBlock });
      return ids.map(String);
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
