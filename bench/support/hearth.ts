/** Starting Hearth nodes as children for a bench, and the little the orchestrator needs to drive them. */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATOR } from '../../test/support/harness.js';
import type { RawAnswer } from '../../test/support/raw-http.js';
import { BENCH_DIR, now, spawnChild, type Child } from './children.js';
import { withCommandMonitoring, type BenchEngine } from './environment.js';

/** The database a bench node uses: the engine's URI, the database, and the PostgreSQL behind a FerretDB on PostgreSQL. */
export type NodeEngine = Pick<BenchEngine, 'uri' | 'dbName' | 'postgresqlUrl'>;

export interface NodeChild extends Child {
  url: string;
  /** Driver commands this node has sent since it started. */
  commands(): Promise<number>;
}

let built = false;

/** Compiles the server into `dist/` as `npm start` does, once per bench run, so no node runs an old build. */
function buildServer(): void {
  if (built) return;
  const started = Date.now();
  const result = spawnSync(process.execPath, [join(BENCH_DIR, '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(BENCH_DIR, '..', 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`building the server (tsc -p tsconfig.build.json) failed: ${result.status ?? result.signal}`);
  console.log(`server built into dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  built = true;
}

/**
 * A node in production mode on the bench's database. Rate limits and the per-address connection cap are
 * lifted (one API key from one address makes all the load, which they would rightly refuse); everything else
 * is the shipped default but the log level: `warn` unless `logLevel` or BENCH_LOG_LEVEL says otherwise. A
 * node logging each request (`info`, as shipped) writes its lines to a file, as a log collector would take
 * them, not to the bench's terminal. BENCH_NODE_FLAGS
 * (space-separated) adds node flags to every node, e.g. `--perf-basic-prof` to profile one with `perf`.
 */
export async function startNode(options: { engine: NodeEngine; redisUrl?: string; role?: 'all' | 'api' | 'worker'; logLevel?: string; env?: Record<string, string> }): Promise<NodeChild> {
  buildServer();
  const logLevel = process.env.BENCH_LOG_LEVEL ?? options.logLevel ?? 'warn';
  const logDir = ['info', 'debug', 'trace'].includes(logLevel) ? mkdtempSync(join(tmpdir(), 'hearth-bench-log-')) : undefined;
  const logFile = logDir === undefined ? undefined : openSync(join(logDir, 'node.log'), 'a');
  const child = spawnChild('node-child', {
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: withCommandMonitoring(options.engine.uri),
    MONGODB_DB: options.engine.dbName,
    FERRETDB_POSTGRESQL_URL: options.engine.postgresqlUrl ?? '',
    REDIS_URL: options.redisUrl ?? '',
    NODE_ROLE: options.role ?? 'all',
    ADMIN_EMAIL: OPERATOR.email,
    ADMIN_PASSWORD: OPERATOR.password,
    KEY_ENCRYPTION_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    AUTH_FAILURES_PER_MINUTE: '1000000000',
    MAX_CONNECTIONS_PER_ADDRESS: '0',
    // Load comes from one address: the per-address caps are lifted like the rate limits.
    MAX_CONVERSATIONS_PER_ADDRESS: '0',
    MAX_PENDING_BOOKINGS_PER_ADDRESS: '0',
    MAX_EMAILS_PER_WORKSPACE_PER_HOUR: '1000000000',
    SEED_DEMO: 'false',
    LOG_LEVEL: logLevel,
    // As `npm start` and the Dockerfile run it: two malloc arenas, not one per thread (sharp's threads each grew one).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    RECORD_RESPONSES_DIR: '',
    PUBLIC_URL: '',
    ...options.env,
  }, [], process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean), logFile);
  if (logFile !== undefined) closeSync(logFile);
  const stop = () => child.stop().finally(() => logDir && rmSync(logDir, { recursive: true, force: true }));
  const { url } = await child.ready;
  return { ...child, url, stop, commands: async () => (await child.ask<{ commands: number }>('ops')).commands };
}

/** A bare server child answering `answer`'s exact status, headers and body. */
export async function startBare(answer: RawAnswer): Promise<Child & { url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-'));
  const file = join(dir, 'answer.json');
  writeFileSync(file, JSON.stringify({ status: answer.status, headers: answer.headers, body: answer.body.toString('base64') }));
  const child = spawnChild('bare-server', {}, [file], process.env.BENCH_BARE_FLAGS?.split(' ').filter(Boolean));
  const { url } = await child.ready;
  return { ...child, url, stop: () => child.stop().finally(() => rmSync(dir, { recursive: true, force: true })) };
}

/** A pool of `concurrency` workers over `count` jobs. */
export async function pool(count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

const keptAlive = new Agent({ keepAlive: true });

/**
 * A JSON POST (with a session token, when given) over a kept-alive `node:http` connection, resolving with the
 * status. The chat bench times from just before it: `fetch` (undici) spends about a millisecond of the load
 * process's own time on each request (Request/Headers objects, streams), which is no part of Hearth's latency.
 */
export function postJson(url: string, token: string | undefined, body: unknown): Promise<number> {
  const payload = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) };
  if (token) headers.Authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: keptAlive, headers },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/** Driver commands per request over `count` requests in series, less the node's idle commands in that time. */
export async function opsPerRequest(node: NodeChild, count: number, send: () => Promise<void>): Promise<number> {
  const idleStart = await node.commands();
  const idleFrom = now();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const idlePerMs = ((await node.commands()) - idleStart) / (now() - idleFrom);
  const before = await node.commands();
  const from = now();
  for (let i = 0; i < count; i += 1) await send();
  const elapsed = now() - from;
  return ((await node.commands()) - before - idlePerMs * elapsed) / count;
}
