import type { Collection } from 'mongoose';
import { searchGramsOf } from '../shared/search-grams.js';
import { fileEach } from './file-each.js';

/**
 * Gives the documents of `collection` stored before their search grams (`searchGramsOf` of `fields`) were kept
 * theirs: an upgrade, one read of the documents without them, so it runs through `upgradeOnce`. `progress`
 * hears the count as they are filed. Answers how many were filed.
 */
export async function fileSearchGramsOfEarlierVersions(collection: Collection, fields: string[], progress?: (filed: number) => void): Promise<number> {
  const projection = Object.fromEntries(fields.map((field) => [field, 1]));
  const unfiled = await collection.find({ searchGrams: { $exists: false } }, { projection }).toArray();
  return fileEach(
    unfiled,
    // Only while the fields are still those read (null for one absent): a change meanwhile wrote its own grams.
    (doc) => {
      const values = fields.map((field) => (doc[field] as string | null | undefined) ?? null);
      const asRead = Object.fromEntries(fields.map((field, i) => [field, values[i]]));
      return collection.updateOne({ _id: doc._id, ...asRead }, { $set: { searchGrams: searchGramsOf(...values) } });
    },
    progress,
  );
}
