import type { Collection } from 'mongoose';
import { emailKeyOf } from '../shared/person-keys.js';
import { fileDerived } from './file-each.js';

/** Gives the documents of `collection` stored before their e-mail key (`keyField`, `emailKeyOf(emailField)`) was kept theirs (`fileDerived`). */
export function fileEmailKeysOfEarlierVersions(collection: Collection, emailField: string, keyField: string, progress?: (filed: number) => void): Promise<number> {
  return fileDerived(collection, { [keyField]: { $exists: false }, [emailField]: { $type: 'string' } }, [emailField], ([email]) => ({ [keyField]: emailKeyOf(email!) }), progress);
}
