import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { readByIds } from '../db/engine-traits.js';

/** The large part of a content snapshot, stored apart (`post_draft_bodies`, `post_published_bodies`). */
export interface PostBody {
  contentMarkdown: string | null;
  contentHtml: string | null;
}

export type BodySide = 'draft' | 'published';

export const noBody: PostBody = { contentMarkdown: null, contentHtml: null };

interface PostBodyDoc {
  /** The post id (hex). */
  _id: string;
  workspaceId: Types.ObjectId;
  contentMarkdown: string | null;
  contentHtml: string | null;
}

const postBodySchema = new Schema<PostBodyDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    contentMarkdown: { type: String, default: null },
    contentHtml: { type: String, default: null },
  },
  { versionKey: false },
);

// No secondary indexes: every read is by `_id`, one id (admin post, publish hashing) or a page of them
// (`include=content`, the admin list).
const PostBodies = {
  draft: defineModel('PostDraftBody', postBodySchema.clone().set('collection', 'post_draft_bodies')),
  published: defineModel('PostPublishedBody', postBodySchema.clone().set('collection', 'post_published_bodies')),
};

/**
 * The bodies of posts, keyed by post id. Not `tenantScope`: the `_id` is the post's, every read is by
 * `_id` alone (FerretDB), and the workspace is checked on what comes back.
 */
export function postBodyStore(db: Connection) {
  const bodies = { draft: PostBodies.draft(db), published: PostBodies.published(db) };
  return {
    /** Bodies of one side by post id; a post without a body is simply absent from the map. */
    async of(workspaceId: string, side: BodySide, postIds: string[]): Promise<Map<string, PostBody>> {
      const docs = await readByIds(
        db,
        postIds,
        (id) => bodies[side].findOne({ _id: id }).lean<PostBodyDoc>(),
        (ids) => bodies[side].find({ _id: { $in: ids } }).lean<PostBodyDoc[]>(),
      );
      const found = new Map<string, PostBody>();
      for (const doc of docs) {
        if (doc && doc.workspaceId.toHexString() === workspaceId) {
          found.set(doc._id, { contentMarkdown: doc.contentMarkdown ?? null, contentHtml: doc.contentHtml ?? null });
        }
      }
      return found;
    },
    async write(workspaceId: string, postId: string, side: BodySide, body: PostBody): Promise<void> {
      await bodies[side].updateOne({ _id: postId }, { $set: { workspaceId: new Types.ObjectId(workspaceId), ...body } }, { upsert: true });
    },
    async insertMany(workspaceId: string, side: BodySide, rows: { postId: string; body: PostBody }[]): Promise<void> {
      await bodies[side].insertMany(rows.map((row) => ({ _id: row.postId, workspaceId: new Types.ObjectId(workspaceId), ...row.body })));
    },
    async remove(postId: string, sides: BodySide[]): Promise<void> {
      await Promise.all(sides.map((side) => bodies[side].deleteOne({ _id: postId })));
    },
  };
}
