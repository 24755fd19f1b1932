import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';

/**
 * A registered webhook endpoint: besides the spec's one `webhookUrl`, a workspace may send any of the
 * bus's events to more receivers, each signed with its own secret (Standard Webhooks).
 */
export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  /** Event names, or `['*']` for every event. */
  events: string[];
  description: string | null;
  enabled: boolean;
  /** The `whsec_...` signing secret, sealed with the key-encryption secret. */
  sealedSecret: string;
  /** Since when every attempt failed (null after any success). */
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface EndpointDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  sealedSecret: string;
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const endpointSchema = new Schema<EndpointDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    description: { type: String, default: null },
    enabled: { type: Boolean, required: true },
    sealedSecret: { type: String, required: true },
    failingSince: { type: Date, default: null },
    disabledAt: { type: Date, default: null },
    disabledReason: { type: String, default: null },
    createdAt: Date,
    updatedAt: Date,
  },
  { collection: 'webhook_endpoints', versionKey: false },
);
// The event fan-out and the admin list: a workspace's endpoints (a handful at most).
endpointSchema.index({ workspaceId: 1 });

/** One per automatic disabling (endpoint and failing period): its `_id` makes the owners' mail go once. */
interface NoticeDoc {
  _id: string;
  createdAt: Date;
}
const noticeSchema = new Schema<NoticeDoc>({ _id: String, createdAt: Date }, { collection: 'webhook_endpoint_notices', versionKey: false });

const Endpoints = defineModel('WebhookEndpoint', endpointSchema);
const Notices = defineModel('WebhookEndpointNotice', noticeSchema);

function toEndpoint(doc: EndpointDoc): WebhookEndpoint {
  return {
    id: doc._id.toHexString(),
    workspaceId: doc.workspaceId.toHexString(),
    url: doc.url,
    events: [...doc.events],
    description: doc.description ?? null,
    enabled: doc.enabled,
    sealedSecret: doc.sealedSecret,
    failingSince: doc.failingSince ?? null,
    disabledAt: doc.disabledAt ?? null,
    disabledReason: doc.disabledReason ?? null,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export type EndpointPatch = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'enabled' | 'sealedSecret' | 'failingSince' | 'disabledAt' | 'disabledReason'>>;

export function endpointStore(db: Connection) {
  const model = Endpoints(db);
  const tenant = tenantScope(model);
  return {
    async create(workspaceId: string, fields: Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'sealedSecret'>, now: Date): Promise<WebhookEndpoint> {
      const doc: EndpointDoc = {
        _id: new Types.ObjectId(),
        workspaceId: new Types.ObjectId(workspaceId),
        ...fields,
        enabled: true,
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
        createdAt: now,
        updatedAt: now,
      };
      await model.collection.insertOne(doc);
      return toEndpoint(doc);
    },
    /** Oldest first. */
    async list(workspaceId: string): Promise<WebhookEndpoint[]> {
      const docs = await tenant.find(workspaceId, {}, { sort: { _id: 1 } });
      return docs.map(toEndpoint);
    },
    count(workspaceId: string): Promise<number> {
      return tenant.count(workspaceId);
    },
    async byId(workspaceId: string, id: string): Promise<WebhookEndpoint | null> {
      const doc = await tenant.byId(workspaceId, id);
      return doc ? toEndpoint(doc) : null;
    },
    async update(workspaceId: string, id: string, patch: EndpointPatch, now: Date): Promise<WebhookEndpoint | null> {
      const doc = await tenant.updateById(workspaceId, id, { $set: { ...patch, updatedAt: now } });
      return doc ? toEndpoint(doc) : null;
    },
    /** Sets `failingSince` only if it is not set yet (several nodes may see failures at once). */
    async markFailing(id: string, since: Date): Promise<void> {
      await tenant.write(id, () => model.updateOne({ _id: id, failingSince: null }, { $set: { failingSince: since } }));
    },
    async markHealthy(id: string): Promise<void> {
      await tenant.write(id, () => model.updateOne({ _id: id }, { $set: { failingSince: null } }));
    },
    async disableIfEnabled(id: string, reason: string, now: Date): Promise<void> {
      await tenant.write(id, () => model.updateOne({ _id: id, enabled: true }, { $set: { enabled: false, disabledAt: now, disabledReason: reason, updatedAt: now } }));
    },
    /**
     * True for the one caller (of any node) that records the disabling of this failing period: the
     * conditional update above is not atomic on every engine, a duplicate `_id` is.
     */
    async claimNotice(id: string, failingSince: Date, now: Date): Promise<boolean> {
      const inserted = await nullOnDuplicate(() => Notices(db).create({ _id: `${id}:${failingSince.getTime()}`, createdAt: now }));
      return inserted !== null;
    },
    delete(workspaceId: string, id: string): Promise<boolean> {
      return tenant.deleteById(workspaceId, id);
    },
  };
}
