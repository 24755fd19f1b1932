import type { Connection } from 'mongoose';

/** What the engine behind a connection does with a query's filter (found once, by `attachEngineTraits` in wire()). */
export interface EngineTraits {
  /**
   * Equality filters on scalar fields reach the storage, so a query by a key decodes only its matches (MongoDB
   * from an index, FerretDB on PostgreSQL from a scan in PostgreSQL). False on FerretDB on SQLite, which hands
   * SQLite nothing but `{_id}` and decodes the whole collection for any other filter: there one query costs
   * what several cost each, so a read by many keys is better made as one query.
   */
  equalityPushdown: boolean;
  /**
   * An `$in` of keys reaches the storage (MongoDB, from an index). False on FerretDB, on both handlers: it
   * decodes the whole collection for an `$in`, where a read by one `_id` is filtered in the storage. Measured
   * on FerretDB on PostgreSQL, 20 bodies of 100,000 posts: 1.8 s by 20 point reads at once, 17.7 s by one `$in`
   * (and at 1,000 posts still 43-104 ms against 161-215 ms); on SQLite, 20,000 posts: 1.8 s against 3.4 s.
   */
  inPushdown: boolean;
  /**
   * A range filter (`$gte`, `$lt`) reaches the storage (MongoDB, from an index). False on FerretDB, on both
   * handlers: it decodes every document the query's equality filters let through and compares there, so a
   * range is better read as equalities on keys filed with each document (`appointments/schedule-keys.ts`).
   */
  rangePushdown: boolean;
}

// The traits belong to the database handle, as its document locks do.
const traitsOf = new WeakMap<Connection, EngineTraits>();

/**
 * Asks the engine once, by explaining an equality query on `collection` (which must exist): FerretDB answers
 * `filterPushdown`, MongoDB has no such field (and pushes every filter down).
 */
export async function attachEngineTraits(db: Connection, collection: string): Promise<EngineTraits> {
  const pushedDown = async (filter: Record<string, unknown>) =>
    (await db.db!.command({ explain: { find: collection, filter }, verbosity: 'queryPlanner' })).filterPushdown !== false;
  const traits = {
    equalityPushdown: await pushedDown({ engineTraitsProbe: 'equality' }),
    inPushdown: await pushedDown({ _id: { $in: ['engineTraitsProbe'] } }),
    rangePushdown: await pushedDown({ engineTraitsProbe: { $gte: 'range' } }),
  };
  traitsOf.set(db, traits);
  return traits;
}

/** The traits of `db` (those of an engine that pushes equality down, when `attachEngineTraits` was not called). */
export function engineTraits(db: Connection): EngineTraits {
  return traitsOf.get(db) ?? { equalityPushdown: true, inPushdown: true, rangePushdown: true };
}

/** Past this many ids, one `$in` (one pass over the collection, whatever the count) instead: point reads cost one scan in the storage each. */
const POINT_READS_MAX = 100;
/** Point reads in flight at once for one call: a page's worth, without taking the driver's whole pool. */
const POINT_READS_AT_ONCE = 10;

/**
 * The documents of `ids` (each at most once; unknown ids left out, as `point` and `many` leave them): one `many`
 * query (an `$in`) where the engine serves it from an index, else parallel `point` reads by `_id`, which
 * FerretDB filters in the storage while it decodes the collection for an `$in` (`inPushdown`).
 */
export async function readByIds<T>(db: Connection, ids: readonly string[], point: (id: string) => Promise<T | null>, many: (ids: string[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (unique.length > 1 && (engineTraits(db).inPushdown || unique.length > POINT_READS_MAX)) return many(unique);
  const found: (T | null)[] = [];
  let next = 0;
  const reader = async () => {
    while (next < unique.length) {
      const index = next++;
      found[index] = await point(unique[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(POINT_READS_AT_ONCE, unique.length) }, reader));
  return found.filter((doc): doc is T => doc !== null);
}
