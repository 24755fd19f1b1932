import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { loadJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import type { Delivery } from './delivery.js';

/**
 * Deliveries waiting for their first attempt (collection `webhook_pending`). A group recorded together
 * (one workspace, one `batch`) is one document holding its deliveries as JSON text: FerretDB converts
 * every field of every document it stores or reads, so a burst stored as a document per delivery cost the
 * engine about five times the time, taken from the very sends it waits for. The group is never updated:
 * it leaves whole once every delivery in it has its record in `webhook_deliveries`.
 */
interface PendingGroupDoc {
  /** The id of the group's first delivery: storing the same group twice collides instead of doubling it. */
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  batch: string;
  deliveriesJson: string;
  createdAt: Date;
}

/** What the group's text holds: targets once, deliveries pointing at them by index. */
interface StoredGroup {
  targets: [url: string, sealedUrl: string | null][];
  deliveries: { id: string; event: string; webhookId: string; payload: Record<string, unknown>; target: number; endpointId: string | null; redeliveryOf: string | null }[];
}

/**
 * One delivery as a document of its own holds it: a pending one stored by versions before the groups
 * (still read and removed alike), and every recorded one (`webhooks.model.ts`, with its state on top).
 */
export interface StoredDelivery {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  event: string;
  webhookId: string;
  payloadJson: string;
  url: string;
  sealedUrl?: string | null;
  redeliveryOf?: string | null;
  endpointId?: string | null;
  batch?: string;
  createdAt: Date;
  updatedAt: Date;
}

type PendingDoc = PendingGroupDoc | StoredDelivery;

const pendingSchema = new Schema<PendingGroupDoc>(
  { workspaceId: { type: Schema.Types.ObjectId, required: true }, batch: String, deliveriesJson: String, createdAt: Date },
  { collection: 'webhook_pending', versionKey: false, strict: false },
);
// Dispatcher: the workspace's pending groups (equality filters are the ones FerretDB pushes down).
// The collection only holds groups with a first attempt not recorded yet, so it stays small.
pendingSchema.index({ workspaceId: 1 });
// Completion: one delete per recorded group.
pendingSchema.index({ batch: 1 });

const Pending = defineModel('WebhookPending', pendingSchema);

/** A group's text stays far below the engines' 16 MB document limit, however large the payloads. */
const MAX_GROUP_TEXT = 4 * 1024 * 1024;

/** `idOf`: a group document's `_id`, by default its first delivery's id (so storing a group twice collides). */
function groupDocs(deliveries: Delivery[], idOf = (first: Delivery) => new Types.ObjectId(first.id)): PendingGroupDoc[] {
  const docs: PendingGroupDoc[] = [];
  type Open = { first: Delivery; batch: string; targets: Map<string, number>; targetList: StoredGroup['targets']; items: string[]; size: number };
  let open: Open | null = null;
  const close = (group: Open) => {
    const deliveriesJson = `{"targets":${JSON.stringify(group.targetList)},"deliveries":[${group.items.join(',')}]}`;
    docs.push({ _id: idOf(group.first), workspaceId: new Types.ObjectId(group.first.workspaceId), batch: group.batch, deliveriesJson, createdAt: group.first.createdAt });
  };
  // Each delivery is serialized once, into the text of the group it joins.
  const item = (group: Open, delivery: Delivery) => {
    const key = `${delivery.url}\n${delivery.sealedUrl}`;
    let target = group.targets.get(key);
    if (target === undefined) group.targets.set(key, (target = group.targetList.push([delivery.url, delivery.sealedUrl]) - 1));
    const { id, event, webhookId, payload, endpointId, redeliveryOf } = delivery;
    return JSON.stringify({ id, event, webhookId, payload, target, endpointId, redeliveryOf });
  };
  const start = (delivery: Delivery): Open => ({ first: delivery, batch: delivery.batch ?? delivery.id, targets: new Map(), targetList: [], items: [], size: 0 });
  for (const delivery of deliveries) {
    if (open && open.batch !== (delivery.batch ?? delivery.id)) {
      close(open);
      open = null;
    }
    open ??= start(delivery);
    let text = item(open, delivery);
    if (open.items.length && open.size + text.length > MAX_GROUP_TEXT) {
      close(open);
      open = start(delivery);
      text = item(open, delivery);
    }
    open.items.push(text);
    open.size += text.length;
  }
  if (open) close(open);
  return docs;
}

/** What a document of one delivery holds, as a delivery: all but its state, attempts and group. */
export function storedDeliveryOf(doc: StoredDelivery): Omit<Delivery, 'state' | 'attempts' | 'nextAttemptAt' | 'finalReason' | 'batch'> {
  return {
    id: doc._id.toHexString(),
    workspaceId: doc.workspaceId.toHexString(),
    event: doc.event,
    webhookId: doc.webhookId,
    payload: loadJson<Record<string, unknown>>(doc.payloadJson) ?? {},
    url: doc.url,
    sealedUrl: doc.sealedUrl ?? null,
    redeliveryOf: doc.redeliveryOf ?? null,
    endpointId: doc.endpointId ?? null,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function deliveriesOf(doc: PendingDoc): Delivery[] {
  const base = { workspaceId: doc.workspaceId.toHexString(), state: 'pending' as const, attempts: [], nextAttemptAt: null, finalReason: null, createdAt: doc.createdAt, updatedAt: doc.createdAt };
  if ('deliveriesJson' in doc) {
    const group = loadJson<StoredGroup>(doc.deliveriesJson)!;
    return group.deliveries.map(({ target, ...delivery }) => {
      const [url, sealedUrl] = group.targets[target];
      return { ...base, ...delivery, url, sealedUrl, batch: doc.batch };
    });
  }
  return [{ ...base, ...storedDeliveryOf(doc), batch: doc.batch ?? doc._id.toHexString() }];
}

const byId = (a: Delivery, b: Delivery) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function pendingStore(db: Connection) {
  const model = Pending(db);
  const tenant = tenantScope<PendingDoc>(model as never);
  return {
    /**
     * Stores deliveries (their `batch` set, in order) as one document per batch. Storing the same group again
     * (a retry after an unanswered insert) adds nothing.
     */
    async add(deliveries: Delivery[]): Promise<void> {
      const docs = groupDocs(deliveries);
      if (docs.length) await nullOnDuplicate(() => model.collection.insertMany(docs, { ordered: false }));
    },
    /**
     * The deliveries of `batch` not sent yet move to a group of their own, and the batch leaves: a holder that
     * sent part of a group and stops leaves only the rest to the next one (a group otherwise leaves whole, once
     * all of it is recorded). The new group's documents take new ids: one named after a delivery could be a
     * document of the batch still there.
     */
    async regroup(batch: string, unsent: Delivery[]): Promise<void> {
      const rest = new Types.ObjectId().toHexString();
      const docs = groupDocs(unsent.map((delivery) => ({ ...delivery, batch: rest })), () => new Types.ObjectId());
      if (docs.length) await model.collection.insertMany(docs, { ordered: true });
      await model.collection.deleteMany({ batch });
    },
    /** A batch leaves by an equality delete, cheap on every engine. */
    async removeBatch(batch: string): Promise<void> {
      await model.collection.deleteMany({ batch });
    },
    /** All the workspace's pending deliveries, in event order. */
    async of(workspaceId: string): Promise<Delivery[]> {
      return (await tenant.find(workspaceId)).flatMap(deliveriesOf).sort(byId);
    },
    async any(workspaceId: string): Promise<boolean> {
      return (await tenant.find(workspaceId, {}, { limit: 1 })).length > 0;
    },
    async workspaces(): Promise<string[]> {
      const ids: Types.ObjectId[] = await model.distinct('workspaceId');
      return ids.map((id) => id.toHexString());
    },
  };
}
