import { Schema, Types, type Connection } from 'mongoose';
import { documentWrites } from '../db/document-locks.js';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { isObjectIdHex } from '../shared/ids.js';

export interface AnalyticsSettings {
  websiteId: string;
  scriptUrl: string;
}

export interface Workspace {
  id: string;
  slug: string;
  name: string;
  locales: string[];
  defaultLocale: string;
  customConfig: unknown;
  schemaOrg: unknown;
  webhookUrl: string | null;
  analytics: AnalyticsSettings | null;
  /** Where the workspace's site lives (feeds, sitemap, preview links); admin-only. */
  siteUrl: string | null;
  /** Counts saves of the settings: the `ETag` a person's next save names in `If-Match`. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface WorkspaceDoc {
  _id: Types.ObjectId;
  slug: string;
  name: string;
  locales: string[];
  defaultLocale: string;
  customConfigJson: string | null;
  schemaOrgJson: string | null;
  webhookUrl: string | null;
  analytics: AnalyticsSettings | null;
  siteUrl?: string | null;
  version?: number;
  createdAt: Date;
  updatedAt: Date;
}

const workspaceSchema = new Schema<WorkspaceDoc>(
  {
    // Unique: the slug is the workspace's public identifier in the admin API.
    slug: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    locales: { type: [String], required: true },
    defaultLocale: { type: String, required: true },
    customConfigJson: { type: String, default: null },
    schemaOrgJson: { type: String, default: null },
    webhookUrl: { type: String, default: null },
    analytics: { type: new Schema({ websiteId: String, scriptUrl: String }, { _id: false }), default: null },
    siteUrl: { type: String, default: null },
    version: { type: Number, default: 0 },
  },
  { timestamps: true, collection: 'workspaces' },
);

const Workspaces = defineModel('Workspace', workspaceSchema);

function toWorkspace(doc: WorkspaceDoc): Workspace {
  return {
    id: doc._id.toHexString(),
    slug: doc.slug,
    name: doc.name,
    locales: doc.locales,
    defaultLocale: doc.defaultLocale,
    customConfig: loadJson(doc.customConfigJson),
    schemaOrg: loadJson(doc.schemaOrgJson),
    webhookUrl: doc.webhookUrl ?? null,
    analytics: doc.analytics ? { websiteId: doc.analytics.websiteId, scriptUrl: doc.analytics.scriptUrl } : null,
    siteUrl: doc.siteUrl ?? null,
    version: doc.version ?? 0,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export interface NewWorkspace {
  slug: string;
  name: string;
  locales: string[];
  defaultLocale: string;
}

export interface WorkspacePatch {
  name?: string;
  locales?: string[];
  defaultLocale?: string;
  customConfig?: unknown;
  schemaOrg?: unknown;
  webhookUrl?: string | null;
  analytics?: AnalyticsSettings | null;
  siteUrl?: string | null;
}

export function workspaceStore(db: Connection) {
  const model = Workspaces(db);
  const guarded = documentWrites(model);
  return {
    /** Runs `work` as the only writer of the workspace's settings: a save that checks them first. */
    exclusive: guarded.transition,
    /** null when the slug is taken. */
    async create(input: NewWorkspace): Promise<Workspace | null> {
      return nullOnDuplicate(async () => {
        const doc = await model.create({ ...input, customConfigJson: null, schemaOrgJson: null, webhookUrl: null, analytics: null });
        return toWorkspace(doc.toObject());
      });
    },
    async byId(id: string): Promise<Workspace | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findById(id).lean<WorkspaceDoc>();
      return doc ? toWorkspace(doc) : null;
    },
    async bySlug(slug: string): Promise<Workspace | null> {
      const doc = await model.findOne({ slug }).lean<WorkspaceDoc>();
      return doc ? toWorkspace(doc) : null;
    },
    async byIds(ids: string[]): Promise<Workspace[]> {
      const docs = await model.find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } }).sort({ _id: 1 }).lean<WorkspaceDoc[]>();
      return docs.map(toWorkspace);
    },
    async all(): Promise<Workspace[]> {
      const docs = await model.find({}).sort({ _id: 1 }).lean<WorkspaceDoc[]>();
      return docs.map(toWorkspace);
    },
    async update(id: string, patch: WorkspacePatch): Promise<Workspace | null> {
      if (!isObjectIdHex(id)) return null;
      const set: Record<string, unknown> = {};
      for (const field of ['name', 'locales', 'defaultLocale', 'webhookUrl', 'analytics', 'siteUrl'] as const) {
        if (patch[field] !== undefined) set[field] = patch[field];
      }
      if (patch.customConfig !== undefined) set.customConfigJson = storeJson(patch.customConfig);
      if (patch.schemaOrg !== undefined) set.schemaOrgJson = storeJson(patch.schemaOrg);
      // Two saves of different settings at once both land (`document-locks.ts`).
      const doc = await guarded.write(id, () => model.findByIdAndUpdate(id, { $set: set, $inc: { version: 1 } }, { returnDocument: 'after' }).lean<WorkspaceDoc>());
      return doc ? toWorkspace(doc) : null;
    },
  };
}

export type WorkspaceStore = ReturnType<typeof workspaceStore>;
