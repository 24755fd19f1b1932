import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import { isObjectIdHex } from '../shared/ids.js';

/**
 * `pending`: first attempt not made yet (first attempts go out in event order per workspace);
 * `scheduled`: waiting for a retry at `nextAttemptAt`; `delivered`; `failed` (final: not retryable or
 * out of attempts, `finalReason` says which).
 */
export type DeliveryState = 'pending' | 'scheduled' | 'delivered' | 'failed';
export type AttemptOutcome = 'delivered' | 'retry' | 'rejected' | 'exhausted' | 'refused';

export interface DeliveryAttempt {
  number: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: AttemptOutcome;
}

export interface Delivery {
  id: string;
  workspaceId: string;
  event: string;
  webhookId: string;
  /** The event's payload fields; `at` is added at sending time. */
  payload: Record<string, unknown>;
  url: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  nextAttemptAt: Date | null;
  finalReason: string | null;
  redeliveryOf: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface DeliveryDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  event: string;
  webhookId: string;
  payloadJson: string;
  url: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  nextAttemptAt: Date | null;
  finalReason: string | null;
  redeliveryOf: string | null;
  createdAt: Date;
  updatedAt: Date;
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
    state: { type: String, required: true },
    attempts: { type: [attemptSchema], default: [] },
    nextAttemptAt: { type: Date, default: null },
    finalReason: { type: String, default: null },
    redeliveryOf: { type: String, default: null },
  },
  { timestamps: true, collection: 'webhook_deliveries' },
);
// Dispatcher: the oldest `pending` delivery of one workspace (event order); admin list: newest first.
deliverySchema.index({ workspaceId: 1, state: 1, _id: 1 });
deliverySchema.index({ workspaceId: 1, _id: -1 });
// Worker boot: deliveries left `pending` or `scheduled` by a previous run.
deliverySchema.index({ state: 1 });

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
    id: doc._id.toHexString(),
    workspaceId: doc.workspaceId.toHexString(),
    event: doc.event,
    webhookId: doc.webhookId,
    payload: loadJson<Record<string, unknown>>(doc.payloadJson) ?? {},
    url: doc.url,
    state: doc.state,
    attempts: (doc.attempts ?? []).map((a) => ({ number: a.number, at: a.at, statusCode: a.statusCode ?? null, durationMs: a.durationMs, error: a.error ?? null, outcome: a.outcome })),
    nextAttemptAt: doc.nextAttemptAt ?? null,
    finalReason: doc.finalReason ?? null,
    redeliveryOf: doc.redeliveryOf ?? null,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export interface NewDelivery {
  event: string;
  webhookId: string;
  payload: Record<string, unknown>;
  url: string;
  state: DeliveryState;
  nextAttemptAt?: Date | null;
  redeliveryOf?: string | null;
}

export function deliveryStore(db: Connection) {
  const model = Deliveries(db);
  const tenant = tenantScope(model);
  return {
    async create(workspaceId: string, input: NewDelivery): Promise<Delivery> {
      const { payload, ...rest } = input;
      const [doc] = await model.insertMany([
        {
          ...rest,
          workspaceId: new Types.ObjectId(workspaceId),
          payloadJson: storeJson(payload) ?? '{}',
          attempts: [],
          finalReason: null,
          nextAttemptAt: rest.nextAttemptAt ?? null,
          redeliveryOf: rest.redeliveryOf ?? null,
        },
      ]);
      return toDelivery(doc.toObject() as DeliveryDoc);
    },
    /** The retry job's read: the job carries only the delivery id, whatever its workspace. */
    async byId(id: string): Promise<Delivery | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findById(id).lean<DeliveryDoc>();
      return doc ? toDelivery(doc) : null;
    },
    async inWorkspace(workspaceId: string, id: string): Promise<Delivery | null> {
      const doc = await tenant.byId(workspaceId, id);
      return doc ? toDelivery(doc) : null;
    },
    /** The oldest `pending` deliveries of the workspace, in event order. */
    async pending(workspaceId: string, limit: number): Promise<Delivery[]> {
      const docs = await tenant.find(workspaceId, { state: 'pending' }, { sort: { _id: 1 }, limit });
      return docs.map(toDelivery);
    },
    /** Newest first, `limit` deliveries older than the delivery `before` (when given). */
    async list(workspaceId: string, options: { limit: number; before?: string }): Promise<Delivery[]> {
      const filter = options.before ? { _id: { $lt: new Types.ObjectId(options.before) } } : {};
      const docs = await tenant.find(workspaceId, filter, { sort: { _id: -1 }, limit: options.limit });
      return docs.map(toDelivery);
    },
    /** Worker boot, across workspaces: deliveries a previous run left unfinished. */
    async unfinished(): Promise<Delivery[]> {
      const docs = await model.find({ state: { $in: ['pending', 'scheduled'] } }).sort({ _id: 1 }).limit(50_000).lean<DeliveryDoc[]>();
      return docs.map(toDelivery);
    },
    /** Written by the attempt that read the delivery by its id; the id alone identifies it. */
    async recordAttempt(id: string, attempt: DeliveryAttempt, next: { state: DeliveryState; nextAttemptAt: Date | null; finalReason: string | null }): Promise<void> {
      await model.updateOne({ _id: id }, { $push: { attempts: attempt }, $set: next });
    },
  };
}

/**
 * One dispatcher per workspace at a time, across nodes: a lease document per workspace. A dead holder's
 * lease simply runs out.
 */
export function leaseStore(db: Connection) {
  const model = Leases(db);
  return {
    async acquire(workspaceId: string, holder: string, ttlMs: number): Promise<boolean> {
      const now = new Date();
      // A live lease does not match, so the upsert collides with its _id: someone else holds it.
      const acquired = await nullOnDuplicate(() =>
        model.findOneAndUpdate(
          { _id: workspaceId, until: { $lt: now } },
          { $set: { holder, until: new Date(now.getTime() + ttlMs) } },
          { upsert: true, returnDocument: 'after' },
        ).exec(),
      );
      return acquired !== null;
    },
    async renew(workspaceId: string, holder: string, ttlMs: number): Promise<boolean> {
      const result = await model.updateOne({ _id: workspaceId, holder }, { $set: { until: new Date(Date.now() + ttlMs) } });
      return result.matchedCount === 1;
    },
    async until(workspaceId: string): Promise<Date | null> {
      const doc = await model.findById(workspaceId).lean<LeaseDoc>();
      return doc?.until ?? null;
    },
    async release(workspaceId: string, holder: string): Promise<void> {
      await model.updateOne({ _id: workspaceId, holder }, { $set: { until: new Date(0) } });
    },
  };
}
