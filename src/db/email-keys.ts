import type { Collection } from 'mongoose';
import { emailKeyOf } from '../shared/person-keys.js';
import { fileEach } from './file-each.js';

/**
 * Gives the documents of `collection` stored before their e-mail key (`keyField`, `emailKeyOf(emailField)`) was
 * kept theirs: an upgrade, one read of the documents without one, so it runs through `upgradeOnce`. `progress`
 * hears the count as they are filed. Answers how many were filed.
 */
export async function fileEmailKeysOfEarlierVersions(collection: Collection, emailField: string, keyField: string, progress?: (filed: number) => void): Promise<number> {
  const unfiled = await collection.find({ [keyField]: { $exists: false }, [emailField]: { $type: 'string' } }, { projection: { [emailField]: 1 } }).toArray();
  return fileEach(
    unfiled.map((doc) => ({ _id: doc._id, email: doc[emailField] as string })),
    // Only while the address is still the one read: a change meanwhile wrote its own key.
    ({ _id, email }) => collection.updateOne({ _id, [emailField]: email }, { $set: { [keyField]: emailKeyOf(email) } }),
    progress,
  );
}
