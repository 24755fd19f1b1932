import { createHash } from 'node:crypto';
import type pg from 'pg';
import { sqlStateOf, withPostgres } from './postgres-probe.js';

/**
 * Indexes that serve FerretDB's filters on PostgreSQL.
 *
 * Why: FerretDB 1.24 on PostgreSQL hands each equality of a filter to PostgreSQL as a jsonb containment,
 * `_jsonb -> 'field' @> value` (`#>` for a dotted path), but makes every index it is asked for a btree, which
 * serves no containment: PostgreSQL read the whole table for every query, a read by `_id` included (100,000
 * rows: 25 ms; 1,000,000 chat messages: a quarter of a second). A GIN index on the same expression serves the
 * containment (0.03 ms). So, for every collection, each field of its declared indexes and `_id` gets one,
 * named `<table>_<hash of the path>_hgin`, made here from FerretDB's own catalogue (its table names are hashed).
 *
 * FerretDB sends the field name as a parameter. PostgreSQL matches an index only in a plan made for the
 * parameters' values, which it stops making once a generic plan looks as cheap; the embedded engine therefore
 * connects FerretDB with `plan_cache_mode=force_custom_plan` (`ferretDbPostgresqlUrl`). FerretDB does not know
 * these indexes: they go with their table when it drops the collection, and never change an answer.
 */

/** The URL FerretDB should connect with so that PostgreSQL plans every query for its values (see above). */
export function ferretDbPostgresqlUrl(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('plan_cache_mode', 'force_custom_plan');
  return parsed.toString();
}

/** Tables of more rows than this get their indexes built without blocking writes (slower, one at a time). */
export const BUILT_BESIDE_WRITES_FROM_ROWS = 10_000;

interface WantedIndex {
  name: string;
  table: string;
  path: string;
  rows: number;
}

export interface FilterIndexesOutcome {
  /** Indexes made now (none when every one was there). */
  created: number;
  /** Indexes the catalogue calls for, made now or before. */
  wanted: number;
}

export interface FilterIndexesLog {
  info(fields: Record<string, unknown>, message: string): void;
}

const SQLSTATE_UNDEFINED_TABLE = '42P01';
const SQLSTATE_UNIQUE_VIOLATION = '23505';
const SQLSTATE_DUPLICATE_TABLE = '42P07';

/**
 * Makes the missing indexes of the FerretDB database `schema` (FerretDB's name for its PostgreSQL schema) on
 * the PostgreSQL database `url`, and drops and makes again one left unfinished by a build cut short. Idempotent,
 * and safe when several nodes start at once (a node that loses a race to make one tries again once).
 */
export async function indexFerretDbFilters(url: string, schema: string, log: FilterIndexesLog): Promise<FilterIndexesOutcome> {
  return withPostgres(url, 5_000, async (client) => {
    try {
      return await indexMissing(client, schema, log);
    } catch (error) {
      const code = sqlStateOf(error);
      if (code !== SQLSTATE_UNIQUE_VIOLATION && code !== SQLSTATE_DUPLICATE_TABLE) throw error;
      return indexMissing(client, schema, log);
    }
  });
}

async function indexMissing(client: pg.Client, schema: string, log: FilterIndexesLog): Promise<FilterIndexesOutcome> {
  const wanted = await wantedIndexes(client, schema);
  const present = await client.query<{ name: string; valid: boolean; building: boolean }>(
    `SELECT c.relname AS name, i.indisvalid AS valid,
            EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = c.oid) AS building
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1`,
    [schema],
  );
  const byName = new Map(present.rows.map((row) => [row.name, row]));
  // A build cut short (its node stopped) leaves an invalid index that IF NOT EXISTS would keep forever.
  for (const row of present.rows) {
    if (!row.valid && !row.building && wanted.some((index) => index.name === row.name)) {
      await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${client.escapeIdentifier(schema)}.${client.escapeIdentifier(row.name)}`);
      byName.delete(row.name);
    }
  }
  const missing = wanted.filter((index) => !byName.has(index.name));
  const small = missing.filter((index) => index.rows < BUILT_BESIDE_WRITES_FROM_ROWS);
  const big = missing.filter((index) => index.rows >= BUILT_BESIDE_WRITES_FROM_ROWS);
  // Small tables: all at once, in one statement list (one transaction, a moment's lock on each table).
  if (small.length > 0) await client.query(small.map((index) => createIndexSql(client, schema, index, false)).join(';\n'));
  for (const [done, index] of big.entries()) {
    const started = Date.now();
    log.info({ table: index.table, path: index.path, rows: index.rows, of: `${done + 1}/${big.length}` }, 'engine index: building beside writes');
    await client.query(createIndexSql(client, schema, index, true));
    log.info({ table: index.table, path: index.path, ms: Date.now() - started, of: `${done + 1}/${big.length}` }, 'engine index: built');
  }
  return { created: missing.length, wanted: wanted.length };
}

/** Every collection's `_id` and each field of its declared indexes, from FerretDB's catalogue of the schema. */
async function wantedIndexes(client: pg.Client, schema: string): Promise<WantedIndex[]> {
  let catalogue: pg.QueryResult<{ table: string; paths: string[]; rows: number }>;
  try {
    catalogue = await client.query(
      `SELECT m._jsonb->>'table' AS table,
              ARRAY(SELECT DISTINCT jsonb_object_keys(ix->'key') FROM jsonb_array_elements(m._jsonb->'indexes') ix) AS paths,
              COALESCE((SELECT c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                         WHERE n.nspname = $1 AND c.relname = m._jsonb->>'table'), 0)::float8 AS rows
         FROM ${client.escapeIdentifier(schema)}._ferretdb_database_metadata m`,
      [schema],
    );
  } catch (error) {
    // No collection yet: FerretDB makes its catalogue with the first one.
    if (sqlStateOf(error) === SQLSTATE_UNDEFINED_TABLE) return [];
    throw error;
  }
  return catalogue.rows.flatMap(({ table, paths, rows }) =>
    [...new Set(['_id', ...paths])].map((path) => ({ name: indexName(table, path), table, path, rows })),
  );
}

/** At most 63 characters (PostgreSQL's limit), unique per table and path. */
function indexName(table: string, path: string): string {
  return `${table.slice(0, 45)}_${createHash('sha256').update(`${table}\0${path}`).digest('hex').slice(0, 8)}_hgin`;
}

/** The expression FerretDB filters `path` by: `->` for a field, `#>` for a dotted path (as its query builder writes them). */
function filteredExpression(client: pg.Client, path: string): string {
  const parts = path.split('.');
  if (parts.length === 1) return `_jsonb -> ${client.escapeLiteral(path)}`;
  return `_jsonb #> ${client.escapeLiteral(`{${parts.map((part) => `"${part.replace(/["\\]/g, '\\$&')}"`).join(',')}}`)}::text[]`;
}

function createIndexSql(client: pg.Client, schema: string, index: WantedIndex, besideWrites: boolean): string {
  // fastupdate off: each write updates the index itself, rather than a pending list merged later by whichever write fills it.
  return `CREATE INDEX ${besideWrites ? 'CONCURRENTLY ' : ''}IF NOT EXISTS ${client.escapeIdentifier(index.name)}
            ON ${client.escapeIdentifier(schema)}.${client.escapeIdentifier(index.table)}
            USING gin ((${filteredExpression(client, index.path)}) jsonb_path_ops) WITH (fastupdate = off)`;
}
