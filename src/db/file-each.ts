import type { Collection } from 'mongoose';

/** Writes in flight at once while an upgrade files what it read. */
const AT_ONCE = 8;

/**
 * Files each of `items` with `write` (one single-document write each, `AT_ONCE` at a time) and tells `progress`
 * the count after each: how an upgrade writes what it read, once the read is done.
 *
 * Why one write per command: FerretDB 1.24 on PostgreSQL never answers an `update` command of many statements
 * (a `bulkWrite` of 50 updates by `_id` on a collection of 1,000 documents), and every later command waits
 * behind it, so a node starting on a database that needed an upgrade hung. A single update takes about 2-3 ms
 * there.
 */
export async function fileEach<T>(items: readonly T[], write: (item: T) => Promise<unknown>, progress: (filed: number) => void = () => undefined): Promise<number> {
  let next = 0;
  let filed = 0;
  const writer = async () => {
    while (next < items.length) {
      await write(items[next++]);
      progress(++filed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, writer));
  return filed;
}

/**
 * Gives the documents of `collection` that `unfiled` finds (stored before a field derived from `fields` was kept)
 * that field: one read of `fields`, then `fileEach`, each write only while those fields are still as read (a change
 * meanwhile wrote its own). `derive` makes the `$set` from the fields' values (null for one absent). Answers how
 * many were filed; an upgrade, so it runs through `upgradeOnce`.
 */
export async function fileDerived(
  collection: Collection,
  unfiled: Record<string, unknown>,
  fields: string[],
  derive: (values: (string | null)[]) => Record<string, unknown>,
  progress?: (filed: number) => void,
): Promise<number> {
  const docs = await collection.find(unfiled, { projection: Object.fromEntries(fields.map((field) => [field, 1])) }).toArray();
  return fileEach(
    docs,
    (doc) => {
      const values = fields.map((field) => (doc[field] as string | null | undefined) ?? null);
      const asRead = Object.fromEntries(fields.map((field, i) => [field, values[i]]));
      return collection.updateOne({ _id: doc._id, ...asRead }, { $set: derive(values) });
    },
    progress,
  );
}
