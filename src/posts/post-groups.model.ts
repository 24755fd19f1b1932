import { Schema, Types, type Connection } from 'mongoose';
import { documentWrites } from '../db/document-locks.js';
import { defineModel, isDuplicateInsert } from '../db/mongo.js';

interface PostGroupDoc {
  /** `${workspaceId}:${translationGroupId}` (`groupKey`). */
  _id: string;
  workspaceId: Types.ObjectId;
  postIds: string[];
}

const postGroupSchema = new Schema<PostGroupDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    postIds: { type: [String], default: [] },
  },
  { collection: 'post_groups', versionKey: false },
);
// No secondary index: `GET /external/posts/:slug` reads its post's group by `_id` for `translations`. A
// post id is added before the post is stored and removed after it is deleted; readers check each post.

const PostGroups = defineModel('PostGroup', postGroupSchema);

const groupKey = (workspaceId: string, translationGroupId: string) => `${workspaceId}:${translationGroupId}`;

/** The post ids of each translation group (`post_groups`), read by `_id` only. */
export function postGroupStore(db: Connection) {
  const groups = PostGroups(db);
  // Two translations created at once both add to one entry: on FerretDB only one add survives unguarded.
  const { write: guarded } = documentWrites(groups);
  /** Adds posts to the group's entry (before the posts are stored). */
  const join = async (workspaceId: string, translationGroupId: string, postIds: string[]): Promise<void> => {
    const key = groupKey(workspaceId, translationGroupId);
    await guarded(key, () =>
      groups.updateOne({ _id: key }, { $set: { workspaceId: new Types.ObjectId(workspaceId) }, $addToSet: { postIds: { $each: postIds } } }, { upsert: true }),
    );
  };
  return {
    join,
    /**
     * `join` for many groups at once (an import): one insert of their entries, then a `join` of each group
     * whose entry was there already (a translation of a stored post, or one made meanwhile). On FerretDB a
     * write by `_id` reads the whole collection, so an upsert per group made an import of n posts n such reads.
     */
    async joinAll(workspaceId: string, members: ReadonlyMap<string, string[]>): Promise<void> {
      const entries = [...members].map(([translationGroupId, postIds]) => ({ translationGroupId, postIds }));
      if (entries.length === 0) return;
      let stored: typeof entries = [];
      try {
        await groups.insertMany(
          entries.map(({ translationGroupId, postIds }) => ({ _id: groupKey(workspaceId, translationGroupId), workspaceId: new Types.ObjectId(workspaceId), postIds: [...new Set(postIds)] })),
          { ordered: false },
        );
      } catch (error) {
        if (!isDuplicateInsert(error)) throw error;
        // Those at the failed inserts' indexes, or all of them when the error does not say which.
        const failed = (error as { writeErrors?: { index?: number }[] }).writeErrors?.map(({ index }) => (index === undefined ? undefined : entries[index]));
        stored = failed?.length && failed.every((entry): entry is (typeof entries)[number] => entry !== undefined) ? failed : entries;
      }
      for (const { translationGroupId, postIds } of stored) await join(workspaceId, translationGroupId, postIds);
    },
    async leave(workspaceId: string, translationGroupId: string, postId: string): Promise<void> {
      const key = groupKey(workspaceId, translationGroupId);
      await guarded(key, () => groups.updateOne({ _id: key }, { $pull: { postIds: postId } }));
    },
    /** The post ids listed for the group (unchecked: the caller reads each post). */
    async members(workspaceId: string, translationGroupId: string): Promise<string[]> {
      const entry = await groups.findOne({ _id: groupKey(workspaceId, translationGroupId) }).lean<PostGroupDoc>();
      if (!entry || entry.workspaceId.toHexString() !== workspaceId) return [];
      return [...new Set(entry.postIds)];
    },
  };
}
