/**
 * Where a bench's data lives: `MONGODB_URI` / `REDIS_URL` when set, else a private FerretDB (on a
 * private PostgreSQL database when 127.0.0.1:5432 accepts one, else SQLite; `BENCH_ENGINE=sqlite`
 * forces SQLite) and a private `redis-server`. Each run uses a database of its own, dropped at the end.
 */
import { MongoClient } from 'mongodb';
import { startEngine, startRedis } from '../../test/support/services.js';

export interface BenchEngine {
  uri: string;
  dbName: string;
  /** `ferretdb-sqlite`, `ferretdb-postgresql`, `mongodb`, or what `BENCH_ENGINE` names. */
  kind: string;
  /** FerretDB on PostgreSQL started by this bench: its PostgreSQL database (nodes index it, `FERRETDB_POSTGRESQL_URL`). */
  postgresqlUrl?: string;
  /** The engine's process when this bench started it (FerretDB), for CPU readings. */
  pid: number | null;
  stop(): Promise<void>;
}

export async function benchEngine(prefix: string, cleanup: (step: () => Promise<unknown>) => void): Promise<BenchEngine> {
  const dbName = `${prefix}_${Date.now().toString(36)}`;
  const external = process.env.MONGODB_URI;
  if (external) {
    const kind = await externalKind(external);
    const engine = { uri: external, dbName, kind, pid: null, stop: () => dropDatabase(external, dbName) };
    cleanup(engine.stop);
    return engine;
  }
  // test/support/services.ts reads HEARTH_TEST_ENGINE to decide between PostgreSQL and SQLite.
  if (process.env.BENCH_ENGINE === 'sqlite') process.env.HEARTH_TEST_ENGINE = 'sqlite';
  const engine = await startEngine();
  cleanup(() => engine.stop());
  return { uri: engine.url, dbName, kind: engine.kind ?? 'ferretdb-sqlite', postgresqlUrl: engine.postgresqlUrl, pid: engine.pid ?? null, stop: () => engine.stop() };
}

export async function benchRedis(cleanup: (step: () => Promise<unknown>) => void): Promise<string> {
  if (process.env.REDIS_URL) return process.env.REDIS_URL;
  const redis = await startRedis();
  cleanup(() => redis.stop());
  return redis.url;
}

/** An outside engine is named by what it says it is: FerretDB answers `buildInfo` with `ferretdbVersion`. */
async function externalKind(uri: string): Promise<string> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    return info.ferretdbVersion ? 'ferretdb' : 'mongodb';
  } finally {
    await client.close();
  }
}

async function dropDatabase(uri: string, dbName: string): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}

/**
 * The same URI with the driver's command monitoring on, so the node child can count the commands it
 * sends (`commandStarted`) without a production code path knowing about benchmarks.
 */
export function withCommandMonitoring(uri: string): string {
  const scheme = uri.indexOf('://') + 3;
  const slash = uri.indexOf('/', scheme);
  const question = uri.indexOf('?', scheme);
  if (question >= 0) return `${uri}&monitorCommands=true`;
  return slash >= 0 ? `${uri}?monitorCommands=true` : `${uri}/?monitorCommands=true`;
}
