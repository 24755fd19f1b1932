import { Schema, Types, type Connection } from 'mongoose';
import { documentWrites } from '../db/document-locks.js';
import { defineModel, isDuplicateKeyError } from '../db/mongo.js';

interface PostSlugDoc {
  /** `${workspaceId}:${locale}:${slug}` of a published snapshot (`slugKey`). */
  _id: string;
  workspaceId: Types.ObjectId;
  postId: string;
}

const postSlugSchema = new Schema<PostSlugDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    postId: { type: String, required: true },
  },
  { collection: 'post_slugs', versionKey: false },
);
// No secondary index: `GET /external/posts/:slug` (and the publish clash check) read by `_id` only. The
// `_id` makes a published slug unique per (workspace, locale): a publish claims it by inserting.

const PostSlugs = defineModel('PostSlug', postSlugSchema);

const slugKey = (workspaceId: string, locale: string, slug: string) => `${workspaceId}:${locale}:${slug}`;

/** Which post holds each published slug (`post_slugs`), by `_id` only; the key carries the workspace. */
export function postSlugStore(db: Connection) {
  const slugs = PostSlugs(db);
  // A conditional update is a compare-and-set only under the entry's lock on FerretDB (`document-locks.ts`).
  const { write: guarded } = documentWrites(slugs);
  return {
    /** False when an entry for this slug exists already. */
    async insert(workspaceId: string, locale: string, slug: string, postId: string): Promise<boolean> {
      try {
        await slugs.create({ _id: slugKey(workspaceId, locale, slug), workspaceId: new Types.ObjectId(workspaceId), postId });
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    },
    async insertMany(workspaceId: string, rows: { locale: string; slug: string; postId: string }[]): Promise<void> {
      await slugs.insertMany(rows.map((row) => ({ _id: slugKey(workspaceId, row.locale, row.slug), workspaceId: new Types.ObjectId(workspaceId), postId: row.postId })));
    },
    /** The post id the entry names, or null when there is no entry. */
    async holder(workspaceId: string, locale: string, slug: string): Promise<string | null> {
      const entry = await slugs.findOne({ _id: slugKey(workspaceId, locale, slug) }).lean<PostSlugDoc>();
      return entry ? entry.postId : null;
    },
    /** Moves the entry from `fromPostId` to `toPostId`; false when it no longer names `fromPostId`. */
    async handOver(workspaceId: string, locale: string, slug: string, fromPostId: string, toPostId: string): Promise<boolean> {
      const key = slugKey(workspaceId, locale, slug);
      const taken = await guarded(key, () => slugs.updateOne({ _id: key, postId: fromPostId }, { $set: { postId: toPostId } }));
      return taken.modifiedCount === 1;
    },
    /** Drops the entry if `postId` still holds it. */
    async release(workspaceId: string, locale: string, slug: string, postId: string): Promise<void> {
      const key = slugKey(workspaceId, locale, slug);
      await guarded(key, () => slugs.deleteOne({ _id: key, postId }));
    },
  };
}
