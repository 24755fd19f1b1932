import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MongoClient, ObjectId } from 'mongodb';
import { pino } from 'pino';
import { startEngine, type RunningService } from '../support/services.js';
import { startServices } from '../support/service-harness.js';
import { uniqueDbName } from '../support/harness.js';
import { withPostgres } from '../../src/db/postgres-probe.js';
import { BUILT_BESIDE_WRITES_FROM_ROWS, indexFerretDbFilters } from '../../src/db/postgres-filter-indexes.js';
import { freePort } from '../../src/db/embedded-engine.js';

/**
 * FerretDB on PostgreSQL hands each equality of a filter to PostgreSQL as a jsonb containment that none of the
 * btree indexes it makes can serve, so every query read its whole table. A node adds the GIN indexes that serve
 * them (`src/db/postgres-filter-indexes.ts`). On a private FerretDB on a private PostgreSQL database.
 */

let engine: RunningService;
let pgUrl: string;
let mongo: MongoClient;
beforeAll(async () => {
  const started = await startEngine('postgresql');
  if (!started?.postgresqlUrl) throw new Error('this test needs the PostgreSQL at 127.0.0.1:5432 (trust auth)');
  engine = started;
  pgUrl = started.postgresqlUrl;
  mongo = new MongoClient(engine.url);
}, 60_000);
afterAll(async () => {
  await mongo?.close();
  await engine?.stop();
});

const silent = { info: () => undefined };

/** FerretDB's table for a collection (its names are hashed). */
async function tableOf(database: string, collection: string): Promise<string> {
  return withPostgres(pgUrl, 2_000, async (client) => {
    const found = await client.query<{ table: string }>(`SELECT _jsonb->>'table' AS table FROM ${client.escapeIdentifier(database)}._ferretdb_database_metadata WHERE _jsonb->>'_id' = $1`, [collection]);
    return found.rows[0].table;
  });
}

/** Scans of the table's indexes made for FerretDB's filters, summed (PostgreSQL's own count). */
async function scansOfFilterIndexes(database: string, table: string): Promise<number> {
  return withPostgres(pgUrl, 2_000, async (client) => {
    const found = await client.query<{ scans: string }>(
      `SELECT COALESCE(SUM(idx_scan), 0) AS scans FROM pg_stat_user_indexes WHERE schemaname = $1 AND relname = $2 AND indexrelname LIKE '%\\_hgin'`,
      [database, table],
    );
    return Number(found.rows[0].scans);
  });
}

async function filterIndexesOf(database: string): Promise<{ name: string; table: string; definition: string; valid: boolean }[]> {
  return withPostgres(pgUrl, 2_000, async (client) =>
    (
      await client.query<{ name: string; table: string; definition: string; valid: boolean }>(
        `SELECT c.relname AS name, t.relname AS table, pg_get_indexdef(c.oid) AS definition, i.indisvalid AS valid
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relname LIKE '%\\_hgin' ORDER BY 1`,
        [database],
      )
    ).rows,
  );
}

/** An idle PostgreSQL backend (FerretDB's, between queries) publishes its counts within 10 s. */
const waitForStatistics = async (read: () => Promise<number>, atLeast: number) => {
  const deadline = Date.now() + 15_000;
  let seen = await read();
  while (seen < atLeast && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    seen = await read();
  }
  return seen;
};

describe('indexes that serve FerretDB filters on PostgreSQL', () => {
  test("a node's start gives every collection's _id and every field of its declared indexes an index, and reads by them use it, even after reads a scan served", async () => {
    const dbName = uniqueDbName('pgix');
    const services = await startServices({ dbName, mongoUri: engine.url, env: { FERRETDB_POSTGRESQL_URL: pgUrl } });
    try {
      const indexes = await filterIndexesOf(dbName);
      const messages = await tableOf(dbName, 'livechat_messages');
      const ofMessages = indexes.filter((index) => index.table === messages).map((index) => index.definition);
      expect(ofMessages).toEqual(expect.arrayContaining([expect.stringContaining(`(_jsonb -> '_id'::text)`), expect.stringContaining(`(_jsonb -> 'conversationId'::text)`)]));
      expect(indexes.every((index) => index.valid && /USING gin .* jsonb_path_ops/.test(index.definition))).toBe(true);
      // The job queue's collection too, which Agenda makes, with its index, as the node starts.
      const jobs = await tableOf(dbName, 'jobs');
      expect(indexes.filter((index) => index.table === jobs).map((index) => index.definition)).toEqual(expect.arrayContaining([expect.stringContaining(`(_jsonb -> 'name'::text)`)]));

      // Enough rows that a scan of the table costs more than the index: then PostgreSQL's choice shows. Most
      // messages are of one chat, eight of chats of their own.
      const collection = mongo.db(dbName).collection('livechat_messages');
      const busy = new ObjectId();
      const quiet = Array.from({ length: 8 }, () => new ObjectId());
      const docs = Array.from({ length: 3_000 }, (_, i) => ({ conversationId: i < quiet.length ? quiet[i] : busy, body: `message ${i}` }));
      await collection.insertMany(docs);
      await withPostgres(pgUrl, 2_000, (client) => client.query(`ANALYZE ${client.escapeIdentifier(dbName)}.${client.escapeIdentifier(messages)}`));
      // Five reads that match nearly every row (a scan is right for them), then eight that match one: PostgreSQL
      // keeps a plan made without the values after five like the first, unless told to plan each for its values.
      for (let i = 0; i < 5; i += 1) expect(await collection.countDocuments({ conversationId: busy })).toBe(2_992);
      const before = await scansOfFilterIndexes(dbName, messages);
      for (const [i, conversationId] of quiet.entries()) expect(await collection.findOne({ conversationId })).toMatchObject({ body: `message ${i}` });
      expect(await waitForStatistics(() => scansOfFilterIndexes(dbName, messages), before + 8)).toBeGreaterThanOrEqual(before + 8);
    } finally {
      await services.close();
    }
  }, 60_000);

  test('nodes starting at once make each index once; a later start makes none; an index left unfinished is made again', async () => {
    const dbName = uniqueDbName('pgix');
    const env = { FERRETDB_POSTGRESQL_URL: pgUrl };
    const nodes = await Promise.all([startServices({ dbName, mongoUri: engine.url, env }), startServices({ dbName, mongoUri: engine.url, env })]);
    try {
      const made = await filterIndexesOf(dbName);
      expect(new Set(made.map((index) => index.name)).size).toBe(made.length);
      const again = await indexFerretDbFilters(pgUrl, dbName, silent);
      expect(again).toEqual({ created: 0, wanted: made.length });

      // A build cut short (its node stopped mid-way) leaves an index PostgreSQL marks invalid.
      const broken = made[0].name;
      await withPostgres(pgUrl, 2_000, (client) => client.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = $1::regclass`, [`"${dbName}"."${broken}"`]));
      expect(await indexFerretDbFilters(pgUrl, dbName, silent)).toEqual({ created: 1, wanted: made.length });
      expect((await filterIndexesOf(dbName)).find((index) => index.name === broken)?.valid).toBe(true);
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  }, 60_000);

  test(`a table of ${BUILT_BESIDE_WRITES_FROM_ROWS} rows gets its indexes built beside writes, one of a row fewer at once`, async () => {
    const dbName = uniqueDbName('pgix');
    const db = mongo.db(dbName);
    const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ key: `k${i}` }));
    await db.collection('at_limit').insertMany(rows(BUILT_BESIDE_WRITES_FROM_ROWS));
    await db.collection('below_limit').insertMany(rows(BUILT_BESIDE_WRITES_FROM_ROWS - 1));
    await db.collection('at_limit').createIndex({ key: 1 });
    await db.collection('below_limit').createIndex({ key: 1 });
    await withPostgres(pgUrl, 2_000, async (client) => client.query(`ANALYZE ${client.escapeIdentifier(dbName)}.${client.escapeIdentifier(await tableOf(dbName, 'at_limit'))}`));
    await withPostgres(pgUrl, 2_000, async (client) => client.query(`ANALYZE ${client.escapeIdentifier(dbName)}.${client.escapeIdentifier(await tableOf(dbName, 'below_limit'))}`));

    const logged: Record<string, unknown>[] = [];
    const outcome = await indexFerretDbFilters(pgUrl, dbName, { info: (fields, message) => logged.push({ ...fields, message }) });
    expect(outcome).toEqual({ created: 4, wanted: 4 });
    const atLimit = await tableOf(dbName, 'at_limit');
    // Built one at a time, each with progress (`of`), and only those of the table at the limit.
    expect(logged).toEqual([
      expect.objectContaining({ message: 'engine index: building beside writes', table: atLimit, of: '1/2', rows: BUILT_BESIDE_WRITES_FROM_ROWS }),
      expect.objectContaining({ message: 'engine index: built', table: atLimit, of: '1/2' }),
      expect.objectContaining({ message: 'engine index: building beside writes', table: atLimit, of: '2/2' }),
      expect.objectContaining({ message: 'engine index: built', table: atLimit, of: '2/2' }),
    ]);
    expect(await db.collection('at_limit').findOne({ key: 'k42' })).toMatchObject({ key: 'k42' });
  }, 120_000);

  test('a node whose PostgreSQL cannot be reached for them starts all the same, and says so', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
    const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/nothing`;
    const services = await startServices({ dbName: uniqueDbName('pgix'), mongoUri: engine.url, env: { FERRETDB_POSTGRESQL_URL: unreachable }, logger });
    try {
      expect(warnings).toEqual(['engine indexes for FerretDB on PostgreSQL not made: its queries read whole tables']);
    } finally {
      await services.close();
    }
  }, 60_000);
});
