import type { Collection } from 'mongoose';
import { searchGramsOf } from '../shared/search-grams.js';
import { fileDerived } from './file-each.js';

/** Gives the documents of `collection` stored before their search grams (`searchGramsOf` of `fields`) were kept theirs (`fileDerived`). */
export function fileSearchGramsOfEarlierVersions(collection: Collection, fields: string[], progress?: (filed: number) => void): Promise<number> {
  return fileDerived(collection, { searchGrams: { $exists: false } }, fields, (values) => ({ searchGrams: searchGramsOf(...values) }), progress);
}
