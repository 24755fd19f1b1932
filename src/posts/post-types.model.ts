import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError, nullOnDuplicate } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import { isObjectIdHex } from '../shared/ids.js';

export interface PostType {
  id: string;
  slug: string;
  name: string;
  defaultConfig: Record<string, unknown> | null;
  /** schema.org `@type` of the posts' `jsonLd`; null: no structured data unless a post brings its own. */
  jsonLdType: string | null;
  createdAt: Date;
}

interface PostTypeDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  slug: string;
  name: string;
  defaultConfigJson: string | null;
  jsonLdType: string | null;
  createdAt: Date;
}

const postTypeSchema = new Schema<PostTypeDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    slug: { type: String, required: true },
    name: { type: String, required: true },
    defaultConfigJson: { type: String, default: null },
    jsonLdType: { type: String, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'post_types' },
);
// Type lookup by slug (post creation, `?type=`) and "one `blog` per workspace" under concurrent upserts.
postTypeSchema.index({ workspaceId: 1, slug: 1 }, { unique: true });

const PostTypes = defineModel('PostType', postTypeSchema);

function toPostType(doc: PostTypeDoc): PostType {
  return {
    id: doc._id.toHexString(),
    slug: doc.slug,
    name: doc.name,
    defaultConfig: loadJson(doc.defaultConfigJson),
    jsonLdType: doc.jsonLdType ?? null,
    createdAt: doc.createdAt,
  };
}

export interface NewPostType {
  slug: string;
  name: string;
  defaultConfig?: unknown;
  jsonLdType?: string | null;
}

export function postTypeStore(db: Connection) {
  const model = PostTypes(db);
  const scope = tenantScope(model);
  return {
    async list(workspaceId: string): Promise<PostType[]> {
      const docs = await scope.find(workspaceId, {}, { sort: { _id: 1 } });
      return docs.map(toPostType);
    },
    async bySlug(workspaceId: string, slug: string): Promise<PostType | null> {
      const doc = await scope.findOne(workspaceId, { slug });
      return doc ? toPostType(doc) : null;
    },
    async byIds(workspaceId: string, ids: string[]): Promise<PostType[]> {
      const docs = await scope.find(workspaceId, { _id: { $in: ids.filter(isObjectIdHex).map((id) => new Types.ObjectId(id)) } });
      return docs.map(toPostType);
    },
    /** Creates the type unless it exists; returns the stored one either way (the unique index settles races). */
    async ensure(workspaceId: string, input: NewPostType): Promise<PostType> {
      const filter = scope.filter(workspaceId, { slug: input.slug });
      try {
        const doc = await model
          .findOneAndUpdate(
            filter,
            { $setOnInsert: { name: input.name, defaultConfigJson: storeJson(input.defaultConfig), jsonLdType: input.jsonLdType ?? null } },
            { upsert: true, returnDocument: 'after' },
          )
          .lean<PostTypeDoc>();
        return toPostType(doc);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        return toPostType((await scope.findOne(workspaceId, { slug: input.slug }))!);
      }
    },
    /** null when the slug is taken. */
    async create(workspaceId: string, input: NewPostType): Promise<PostType | null> {
      return nullOnDuplicate(async () => {
        const doc = await model.create({
          workspaceId: new Types.ObjectId(workspaceId),
          slug: input.slug,
          name: input.name,
          defaultConfigJson: storeJson(input.defaultConfig),
          jsonLdType: input.jsonLdType ?? null,
        });
        return toPostType(doc.toObject());
      });
    },
  };
}
