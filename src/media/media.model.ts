import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';
import type { PageRequest } from '../shared/paging.js';
import { escapeRegex } from '../shared/text.js';

export interface FocalPoint {
  /** 0 (left edge) to 1 (right edge). */
  x: number;
  /** 0 (top edge) to 1 (bottom edge). */
  y: number;
}

export interface MediaItem {
  id: string;
  name: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  /** SHA-256 (hex) of the stored bytes. */
  sha256: string;
  storageKey: string;
  /** Alternative text per locale (BCP47 code -> text). */
  alt: Record<string, string>;
  focalPoint: FocalPoint | null;
  createdAt: Date;
}

interface MediaDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  name: string;
  /** Lowercased name, for the case-insensitive search. */
  nameLower: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  sha256: string;
  storageKey: string;
  // Locales as keys would put `-` into field names: kept as a list of pairs instead.
  alt: { locale: string; text: string }[];
  focalPoint: FocalPoint | null;
  createdAt: Date;
}

const focalPointSchema = new Schema<FocalPoint>({ x: Number, y: Number }, { _id: false });
const altSchema = new Schema<{ locale: string; text: string }>({ locale: String, text: String }, { _id: false });

const mediaSchema = new Schema<MediaDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    name: { type: String, required: true },
    nameLower: { type: String, required: true },
    contentType: { type: String, required: true },
    size: { type: Number, required: true },
    width: { type: Number, default: null },
    height: { type: Number, default: null },
    sha256: { type: String, required: true },
    storageKey: { type: String, required: true },
    alt: { type: [altSchema], default: [] },
    focalPoint: { type: focalPointSchema, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'media' },
);
// The library list, newest first, and its name search (a prefix of it is the workspace filter).
mediaSchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });

const Media = defineModel('Media', mediaSchema);

const toMediaItem = (doc: MediaDoc): MediaItem => ({
  id: doc._id.toHexString(),
  name: doc.name,
  contentType: doc.contentType,
  size: doc.size,
  width: doc.width ?? null,
  height: doc.height ?? null,
  sha256: doc.sha256,
  storageKey: doc.storageKey,
  alt: Object.fromEntries((doc.alt ?? []).map((entry) => [entry.locale, entry.text])),
  focalPoint: doc.focalPoint?.x === undefined ? null : { x: doc.focalPoint.x, y: doc.focalPoint.y },
  createdAt: doc.createdAt,
});

export type NewMedia = Omit<MediaItem, 'alt' | 'focalPoint'> & { workspaceId: string };

export function mediaStore(db: Connection) {
  const model = Media(db);
  const scope = tenantScope(model);
  return {
    /** A fresh id, known before the bytes are stored under a key that names it. */
    newId: () => new Types.ObjectId().toHexString(),

    async create(input: NewMedia): Promise<MediaItem> {
      const { workspaceId, id, ...fields } = input;
      const doc = await model.create({
        ...fields,
        _id: new Types.ObjectId(id),
        workspaceId: new Types.ObjectId(workspaceId),
        nameLower: fields.name.toLowerCase(),
        alt: [],
        focalPoint: null,
      });
      return toMediaItem(doc.toObject());
    },

    async byId(workspaceId: string, id: string): Promise<MediaItem | null> {
      const doc = await scope.byId(workspaceId, id);
      return doc ? toMediaItem(doc) : null;
    },

    /** The workspace's items among `ids` (unknown ids left out). */
    async byIds(workspaceId: string, ids: string[]): Promise<MediaItem[]> {
      return (await scope.byIds(workspaceId, ids)).map(toMediaItem);
    },

    /** Runs `work` as the only writer of the item (`document-locks.ts`): a delete, or a publish that shows it. */
    exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
      return scope.transition(id, work);
    },

    /** Newest first; `search` matches anywhere in the name, case-insensitively. */
    async page(workspaceId: string, search: string | undefined, request: PageRequest): Promise<{ items: MediaItem[]; total: number }> {
      const filter = search ? { nameLower: { $regex: escapeRegex(search.toLowerCase()) } } : {};
      const { docs, total } = await scope.page(workspaceId, filter, { createdAt: -1, _id: -1 }, request);
      return { items: docs.map(toMediaItem), total };
    },

    async update(workspaceId: string, id: string, patch: { name?: string; alt?: Record<string, string>; focalPoint?: FocalPoint | null }): Promise<MediaItem | null> {
      const set: Record<string, unknown> = {};
      if (patch.name !== undefined) Object.assign(set, { name: patch.name, nameLower: patch.name.toLowerCase() });
      if (patch.alt !== undefined) set.alt = Object.entries(patch.alt).map(([locale, text]) => ({ locale, text }));
      if (patch.focalPoint !== undefined) set.focalPoint = patch.focalPoint;
      const doc = await scope.updateById(workspaceId, id, { $set: set });
      return doc ? toMediaItem(doc) : null;
    },

    remove(workspaceId: string, id: string): Promise<boolean> {
      return scope.deleteById(workspaceId, id);
    },
  };
}
