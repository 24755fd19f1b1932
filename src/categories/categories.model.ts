import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError, nullOnDuplicate } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';
import { isObjectIdHex } from '../shared/ids.js';

export interface Category {
  id: string;
  slug: string;
  name: string;
}

interface CategoryDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  slug: string;
  name: string;
}

const categorySchema = new Schema<CategoryDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    slug: { type: String, required: true },
    name: { type: String, required: true },
  },
  { timestamps: true, collection: 'categories' },
);
// `GET /external/categories` and the admin list (sorted by slug); unique slug per workspace.
categorySchema.index({ workspaceId: 1, slug: 1 }, { unique: true });

const Categories = defineModel('Category', categorySchema);

const toCategory = (doc: CategoryDoc): Category => ({ id: doc._id.toHexString(), slug: doc.slug, name: doc.name });

export function categoryStore(db: Connection) {
  const model = Categories(db);
  const scope = tenantScope(model);
  return {
    async list(workspaceId: string, onlyIds?: string[]): Promise<Category[]> {
      const filter = onlyIds ? { _id: { $in: onlyIds.filter(isObjectIdHex).map((id) => new Types.ObjectId(id)) } } : {};
      const docs = await scope.find(workspaceId, filter, { sort: { slug: 1 } });
      return docs.map(toCategory);
    },
    async byId(workspaceId: string, id: string): Promise<Category | null> {
      const doc = await scope.byId(workspaceId, id);
      return doc ? toCategory(doc) : null;
    },
    /** null when the slug is taken. */
    async create(workspaceId: string, input: { slug: string; name: string }): Promise<Category | null> {
      return nullOnDuplicate(async () => {
        const doc = await model.create({ workspaceId: new Types.ObjectId(workspaceId), ...input });
        return toCategory(doc.toObject());
      });
    },
    /** null when missing, `'taken'` when the new slug is another category's. */
    async update(workspaceId: string, id: string, patch: { slug?: string; name?: string }): Promise<Category | null | 'taken'> {
      try {
        const doc = await scope.updateById(workspaceId, id, { $set: patch });
        return doc ? toCategory(doc) : null;
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'taken';
        throw error;
      }
    },
    remove(workspaceId: string, id: string): Promise<boolean> {
      return scope.deleteById(workspaceId, id);
    },
  };
}
