import type { Connection, Types } from 'mongoose';
import { Posts } from './posts.model.js';
import { searchGramsOf } from './search-grams.js';

const BATCH = 500;

/**
 * Gives the posts stored before search grams theirs (an upgrade: one read of every post, so it runs through
 * `upgradeOnce`); `progress` hears the count after each batch. Answers how many were filed.
 */
export async function fileSearchGramsOfEarlierVersions(db: Connection, progress: (filed: number) => void = () => undefined): Promise<number> {
  const model = Posts(db);
  let filed = 0;
  let batch: { _id: Types.ObjectId; title: string; slug: string }[] = [];
  const file = async () => {
    // Only while the title and slug are still those read: a rename meanwhile wrote its own grams.
    await model.bulkWrite(
      batch.map(({ _id, title, slug }) => ({ updateOne: { filter: { _id, title, slug }, update: { $set: { searchGrams: searchGramsOf(title, slug) } } } })),
      { ordered: false },
    );
    filed += batch.length;
    batch = [];
    progress(filed);
  };
  for await (const doc of model.find({ searchGrams: { $exists: false } }, { title: 1, slug: 1 }).lean<{ _id: Types.ObjectId; title: string; slug: string }>().cursor({ batchSize: BATCH })) {
    batch.push(doc);
    if (batch.length === BATCH) await file();
  }
  if (batch.length) await file();
  return filed;
}
