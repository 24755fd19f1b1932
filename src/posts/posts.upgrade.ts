import type { Connection, Types } from 'mongoose';
import { Posts } from './posts.model.js';
import { searchGramsOf } from './search-grams.js';
import { fileEach } from '../db/file-each.js';

/**
 * Gives the posts stored before search grams theirs (an upgrade: one read of every post, so it runs through
 * `upgradeOnce`); `progress` hears the count as they are filed. Answers how many were filed.
 */
export async function fileSearchGramsOfEarlierVersions(db: Connection, progress?: (filed: number) => void): Promise<number> {
  const model = Posts(db);
  const unfiled = await model.find({ searchGrams: { $exists: false } }, { title: 1, slug: 1 }).lean<{ _id: Types.ObjectId; title: string; slug: string }[]>();
  return fileEach(
    unfiled,
    // Only while the title and slug are still those read: a rename meanwhile wrote its own grams.
    ({ _id, title, slug }) => model.updateOne({ _id, title, slug }, { $set: { searchGrams: searchGramsOf(title, slug) } }),
    progress,
  );
}
