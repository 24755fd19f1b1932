import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { chooseEmbeddedEngine, recordHandler } from '../../src/db/engine-choice.js';
import { EngineUnavailableError, findFerretDb, freePort, startFerretDb } from '../../src/db/embedded-engine.js';
import { withDatabase, withPostgres } from '../../src/db/postgres-probe.js';

/**
 * `npm start`'s engine choice against a real PostgreSQL on 127.0.0.1:5432 (trust auth) and a closed port.
 * The database is private to this run (`hearth_test_..._<pid>`: the global setup drops it if the run dies).
 */
const PG = { host: '127.0.0.1', port: 5432 };
const database = `hearth_test_choice_${Date.now().toString(36)}_${process.pid}`;
const pgUrl = `postgres://postgres@${PG.host}:${PG.port}/${database}`;
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-choice-'));
  dirs.push(dir);
  return join(dir, 'ferretdb');
};

async function pgReachable(): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(PG.port, PG.host);
    socket.setTimeout(1_000, () => (socket.destroy(), done(false)));
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

/** A port nothing listens on: connections to it are refused. */
async function closedPortUrl(): Promise<string> {
  return `postgres://postgres@127.0.0.1:${await freePort()}/hearth`;
}

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (!(await pgReachable())) return;
  await withPostgres(withDatabase(pgUrl, 'postgres'), 2_000, (admin) => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
});

describe('the embedded engine npm start runs', () => {
  test('a reachable PostgreSQL is chosen, its database created when missing, and FerretDB stores in it', async () => {
    if (!(await pgReachable())) throw new Error('this test needs the PostgreSQL at 127.0.0.1:5432 (trust auth)');
    const engineDir = freshDir();
    const first = await chooseEmbeddedEngine({ setting: 'auto', postgresqlUrl: pgUrl, engineDir });
    expect(first).toMatchObject({ engine: 'postgresql', postgresqlUrl: pgUrl, created: true });
    const again = await chooseEmbeddedEngine({ setting: 'auto', postgresqlUrl: pgUrl, engineDir });
    expect(again).toMatchObject({ engine: 'postgresql', postgresqlUrl: pgUrl, created: false });

    // The choice is what the engine is started with: a document written through it lands in that database.
    const engine = await startFerretDb({ binary: findFerretDb(process.env.FERRETDB_BIN)!, dataDir: engineDir, postgresqlUrl: first.engine === 'postgresql' ? first.postgresqlUrl : undefined });
    const client = new MongoClient(engine.uri);
    try {
      await client.db('hearth').collection('probe').insertOne({ hello: 'postgres' });
      // FerretDB keeps each Mongo database as a schema of the PostgreSQL database.
      const schemas = await withPostgres(pgUrl, 2_000, async (admin) => (await admin.query<{ schema_name: string }>('SELECT schema_name FROM information_schema.schemata')).rows.map((row) => row.schema_name));
      expect(schemas).toContain('hearth');
      expect(schemas).not.toContain('nowhere');
    } finally {
      await client.close();
      await engine.stop();
    }
  });

  test('no PostgreSQL (connection refused) means SQLite, saying why', async () => {
    const choice = await chooseEmbeddedEngine({ setting: 'auto', postgresqlUrl: await closedPortUrl(), engineDir: freshDir() });
    expect(choice.engine).toBe('sqlite');
    expect(choice.reason).toMatch(/no PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/hearth \(.*ECONNREFUSED/);
  });

  test('explicit settings win: MONGODB_URI over everything, EMBEDDED_ENGINE=sqlite over a reachable PostgreSQL, EMBEDDED_ENGINE=postgresql never falls back', async () => {
    expect(await chooseEmbeddedEngine({ mongoUri: 'mongodb://db.example:27017', setting: 'postgresql', postgresqlUrl: await closedPortUrl(), engineDir: freshDir() })).toEqual({
      engine: 'external',
      reason: 'MONGODB_URI is set',
    });
    expect(await chooseEmbeddedEngine({ setting: 'sqlite', postgresqlUrl: pgUrl, engineDir: freshDir() })).toEqual({ engine: 'sqlite', reason: 'EMBEDDED_ENGINE=sqlite' });
    await expect(chooseEmbeddedEngine({ setting: 'postgresql', postgresqlUrl: await closedPortUrl(), engineDir: freshDir() })).rejects.toThrow(EngineUnavailableError);
  });

  test('a data directory stays where its data is: SQLite data from an earlier start keeps SQLite; data in PostgreSQL never starts on an empty SQLite', async () => {
    const sqliteDir = freshDir();
    mkdirSync(sqliteDir, { recursive: true });
    // What FerretDB's SQLite handler leaves behind (one file per database), from a start before the marker existed.
    writeFileSync(join(sqliteDir, 'hearth.sqlite'), '');
    const kept = await chooseEmbeddedEngine({ setting: 'auto', postgresqlUrl: pgUrl, engineDir: sqliteDir });
    expect(kept.engine).toBe('sqlite');
    expect(kept.reason).toMatch(/holds SQLite data from an earlier start/);
    // Asked for explicitly, PostgreSQL is used even so.
    expect((await chooseEmbeddedEngine({ setting: 'postgresql', postgresqlUrl: pgUrl, engineDir: sqliteDir })).engine).toBe('postgresql');

    const pgDir = freshDir();
    recordHandler(pgDir, 'postgresql');
    await expect(chooseEmbeddedEngine({ setting: 'auto', postgresqlUrl: await closedPortUrl(), engineDir: pgDir })).rejects.toThrow(/is in PostgreSQL .*EMBEDDED_ENGINE=sqlite/);
    expect((await chooseEmbeddedEngine({ setting: 'sqlite', postgresqlUrl: await closedPortUrl(), engineDir: pgDir })).engine).toBe('sqlite');
  });
});
