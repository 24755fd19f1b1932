import type { Collection, Types } from 'mongoose';
import { emailKeyOf } from '../shared/person-keys.js';

const BATCH = 500;

/**
 * Gives the documents of `collection` stored before their e-mail key (`keyField`, `emailKeyOf(emailField)`) was
 * kept theirs: an upgrade, one read of the documents without one, so it runs through `upgradeOnce`. `progress`
 * hears the count after each batch. Answers how many were filed.
 */
export async function fileEmailKeysOfEarlierVersions(collection: Collection, emailField: string, keyField: string, progress: (filed: number) => void = () => undefined): Promise<number> {
  let filed = 0;
  let batch: { _id: Types.ObjectId; email: string }[] = [];
  const file = async () => {
    // Only while the address is still the one read: a change meanwhile wrote its own key.
    await collection.bulkWrite(
      batch.map(({ _id, email }) => ({ updateOne: { filter: { _id, [emailField]: email }, update: { $set: { [keyField]: emailKeyOf(email) } } } })),
      { ordered: false },
    );
    filed += batch.length;
    batch = [];
    progress(filed);
  };
  const unfiled = collection.find({ [keyField]: { $exists: false }, [emailField]: { $type: 'string' } }, { projection: { [emailField]: 1 }, batchSize: BATCH });
  for await (const doc of unfiled) {
    batch.push({ _id: doc._id, email: doc[emailField] as string });
    if (batch.length === BATCH) await file();
  }
  if (batch.length) await file();
  return filed;
}
