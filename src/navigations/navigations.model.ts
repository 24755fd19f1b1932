import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError, nullOnDuplicate } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import { isObjectIdHex } from '../shared/ids.js';

export type NavigationItemType = 'CUSTOM_URL' | 'POST' | 'HEADING';

export interface NavigationItem {
  id: string;
  parentId: string | null;
  position: number;
  type: NavigationItemType;
  customUrl: string | null;
  imageUrl: string | null;
  customConfig: Record<string, unknown> | null;
  labels: Record<string, string> | null;
  hiddenLocales: string[];
  postId: string | null;
}

export interface Navigation {
  id: string;
  key: string;
  name: string;
  items: NavigationItem[];
  /** Counts saves: the `ETag` a person's next save names in `If-Match`. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface NavigationItemDoc {
  id: string;
  parentId: string | null;
  position: number;
  type: NavigationItemType;
  customUrl: string | null;
  imageUrl: string | null;
  customConfigJson: string | null;
  // Locale codes as keys: stored as JSON text like every other user-keyed map.
  labelsJson: string | null;
  hiddenLocales: string[];
  postId: string | null;
}

interface NavigationDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  key: string;
  name: string;
  items: NavigationItemDoc[];
  version?: number;
  createdAt: Date;
  updatedAt: Date;
}

const navigationItemSchema = new Schema<NavigationItemDoc>(
  {
    id: { type: String, required: true },
    parentId: { type: String, default: null },
    position: { type: Number, required: true },
    type: { type: String, required: true },
    customUrl: { type: String, default: null },
    imageUrl: { type: String, default: null },
    customConfigJson: { type: String, default: null },
    labelsJson: { type: String, default: null },
    hiddenLocales: { type: [String], default: [] },
    postId: { type: String, default: null },
  },
  { _id: false },
);

const navigationSchema = new Schema<NavigationDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    key: { type: String, required: true },
    name: { type: String, required: true },
    items: { type: [navigationItemSchema], default: [] },
    version: { type: Number, default: 0 },
  },
  { timestamps: true, collection: 'navigations' },
);
// `GET /external/navigations/:key`; one navigation per key in a workspace (re-key answers 409 on a clash).
navigationSchema.index({ workspaceId: 1, key: 1 }, { unique: true });

const Navigations = defineModel('Navigation', navigationSchema);

function toNavigation(doc: NavigationDoc): Navigation {
  return {
    id: doc._id.toHexString(),
    key: doc.key,
    name: doc.name,
    items: (doc.items ?? []).map((item) => ({
      id: item.id,
      parentId: item.parentId ?? null,
      position: item.position,
      type: item.type,
      customUrl: item.customUrl ?? null,
      imageUrl: item.imageUrl ?? null,
      customConfig: loadJson(item.customConfigJson),
      labels: loadJson(item.labelsJson),
      hiddenLocales: item.hiddenLocales ?? [],
      postId: item.postId ?? null,
    })),
    version: doc.version ?? 0,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function toItemDoc(item: NavigationItem): NavigationItemDoc {
  return {
    id: item.id,
    parentId: item.parentId,
    position: item.position,
    type: item.type,
    customUrl: item.customUrl,
    imageUrl: item.imageUrl,
    customConfigJson: storeJson(item.customConfig),
    labelsJson: storeJson(item.labels),
    hiddenLocales: item.hiddenLocales,
    postId: item.postId,
  };
}

export function navigationStore(db: Connection) {
  const model = Navigations(db);
  const scope = tenantScope(model);
  return {
    /** Runs `work` as the only writer of the navigation: a save that checks the version first. */
    exclusive: scope.transition,
    async list(workspaceId: string): Promise<Navigation[]> {
      const docs = await scope.find(workspaceId, {}, { sort: { key: 1 } });
      return docs.map(toNavigation);
    },
    async byId(workspaceId: string, id: string): Promise<Navigation | null> {
      const doc = await scope.byId(workspaceId, id);
      return doc ? toNavigation(doc) : null;
    },
    async byKey(workspaceId: string, key: string): Promise<Navigation | null> {
      const doc = await scope.findOne(workspaceId, { key });
      return doc ? toNavigation(doc) : null;
    },
    /** null when the key is taken. */
    async create(workspaceId: string, input: { key: string; name: string }): Promise<Navigation | null> {
      return nullOnDuplicate(async () => {
        const doc = await model.create({ workspaceId: new Types.ObjectId(workspaceId), ...input, items: [] });
        return toNavigation(doc.toObject());
      });
    },
    /** null when missing, `'taken'` when the new key is another navigation's. */
    async rename(workspaceId: string, id: string, patch: { key?: string; name?: string }): Promise<Navigation | null | 'taken'> {
      try {
        const doc = await scope.updateById(workspaceId, id, { $set: patch, $inc: { version: 1 } });
        return doc ? toNavigation(doc) : null;
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'taken';
        throw error;
      }
    },
    async replaceItems(workspaceId: string, id: string, items: NavigationItem[]): Promise<Navigation | null> {
      const doc = await scope.updateById(workspaceId, id, { $set: { items: items.map(toItemDoc) }, $inc: { version: 1 } });
      return doc ? toNavigation(doc) : null;
    },
    async remove(workspaceId: string, id: string): Promise<Navigation | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findOneAndDelete(scope.filter(workspaceId, { _id: new Types.ObjectId(id) })).lean<NavigationDoc>();
      return doc ? toNavigation(doc) : null;
    },
  };
}
