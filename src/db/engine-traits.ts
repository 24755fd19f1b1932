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
}

// The traits belong to the database handle, as its document locks do.
const traitsOf = new WeakMap<Connection, EngineTraits>();

/**
 * Asks the engine once, by explaining an equality query on `collection` (which must exist): FerretDB answers
 * `filterPushdown`, MongoDB has no such field (and pushes every filter down).
 */
export async function attachEngineTraits(db: Connection, collection: string): Promise<EngineTraits> {
  const explained = await db.db!.command({ explain: { find: collection, filter: { engineTraitsProbe: 'equality' } }, verbosity: 'queryPlanner' });
  const traits = { equalityPushdown: explained.filterPushdown !== false };
  traitsOf.set(db, traits);
  return traits;
}

/** The traits of `db` (those of an engine that pushes equality down, when `attachEngineTraits` was not called). */
export function engineTraits(db: Connection): EngineTraits {
  return traitsOf.get(db) ?? { equalityPushdown: true };
}
