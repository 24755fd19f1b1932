import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { findFerretDb, freePort, installFerretDb, startFerretDb } from '../../src/db/embedded-engine.js';

export interface RunningService {
  url: string;
  /** For engines: `ferretdb-postgresql` or `ferretdb-sqlite`. */
  kind?: string;
  port: number;
  /** FerretDB on PostgreSQL: its PostgreSQL database (a node's `FERRETDB_POSTGRESQL_URL`). */
  postgresqlUrl?: string;
  /** The server's process (engines: to read its CPU time). */
  pid?: number;
  stop(): Promise<void>;
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), done(true)));
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listening on ${port} after ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
  });
}

/** A private redis-server on a free port (or a given one, to restart "the same" Redis). */
export async function startRedis(port?: number): Promise<RunningService> {
  const chosen = port ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitForPort(chosen);
  return { url: `redis://127.0.0.1:${chosen}`, port: chosen, stop: () => stopChild(child) };
}

/**
 * The HAProxy configuration README "Scaling out" describes, for `backends` (host:port of nodes) behind
 * `bind`: round robin; each node checked on `/healthz` every half second, and one that stops answering is
 * taken out; a request whose node refused the connection goes to another (`redispatch`), and a GET or
 * HEAD whose node died before answering is sent again (L7 retries, never for a write: it may have been
 * done). `sticky` adds the cookie that keeps one browser on one node, which Socket.IO's long-polling needs.
 */
export function haproxyConfig(bind: string, backends: string[], options: { sticky?: boolean } = {}): string {
  const cookie = (i: number) => (options.sticky ? ` cookie node${i}` : '');
  return [
    'global',
    '  maxconn 8000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 120s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response response-timeout',
    'frontend site',
    `  bind ${bind}`,
    '  default_backend nodes',
    'backend nodes',
    '  balance roundrobin',
    '  option httpchk GET /healthz',
    '  http-request disable-l7-retry unless METH_GET',
    ...(options.sticky ? ['  cookie HEARTH_NODE insert indirect nocache httponly'] : []),
    ...backends.map((backend, i) => `  server node${i} ${backend} check inter 500ms fall 2 rise 2${cookie(i)}`),
    '',
  ].join('\n');
}

/**
 * HAProxy on a free loopback port in front of `backends` (URLs of nodes), configured as `haproxyConfig`
 * says; without `sticky`, consecutive requests of one client land on different nodes, as behind most cloud
 * load balancers.
 */
export async function startLoadBalancer(backends: string[], options: { sticky?: boolean } = {}): Promise<RunningService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'hearth-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(`127.0.0.1:${port}`, backends.map((backend) => new URL(backend).host), options));
  const child = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let complaints = '';
  child.stderr.on('data', (chunk: Buffer) => void (complaints = (complaints + chunk.toString('utf8')).slice(-2000)));
  await waitForPort(port).catch((error: unknown) => {
    throw new Error(`HAProxy did not start: ${complaints || String(error)}`);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const POSTGRES = { host: '127.0.0.1', port: 5432 };

async function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, host);
    socket.setTimeout(1_000, () => (socket.destroy(), done(false)));
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

/**
 * A fresh PostgreSQL database for FerretDB's faster handler, when a local PostgreSQL (trust auth) and
 * `psql` are there and `HEARTH_TEST_ENGINE` does not ask for SQLite; otherwise null (SQLite).
 */
async function privatePostgresDatabase(handler?: EngineHandler): Promise<{ url: string; drop(): void } | null> {
  if ((handler ?? process.env.HEARTH_TEST_ENGINE) === 'sqlite') return null;
  if (!(await portOpen(POSTGRES.host, POSTGRES.port))) return null;
  const name = `hearth_test_${Date.now().toString(36)}_${process.pid}`;
  const psql = (sql: string) =>
    spawnSync('psql', ['-h', POSTGRES.host, '-p', String(POSTGRES.port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-Atqc', sql], { encoding: 'utf8' });
  dropAbandoned(psql);
  const created = psql(`CREATE DATABASE ${name}`);
  if (created.error || created.status !== 0) return null;
  return { url: `postgres://postgres@${POSTGRES.host}:${POSTGRES.port}/${name}`, drop: () => void psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Databases of earlier runs that were killed before their teardown (the name ends with the run's pid). */
function dropAbandoned(psql: (sql: string) => { stdout: string; status: number | null }): void {
  const listed = psql("SELECT datname FROM pg_database WHERE datname LIKE 'hearth\\_test\\_%'");
  if (listed.status !== 0) return;
  for (const name of listed.stdout.split('\n').filter(Boolean)) {
    const pid = Number(/_(\d+)$/.exec(name)?.[1]);
    if (pid && !processAlive(pid)) psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

export type EngineHandler = 'sqlite' | 'postgresql';

/**
 * A private FerretDB in a temporary directory: on a private PostgreSQL database when one can be made
 * (unless `handler` or `HEARTH_TEST_ENGINE` says `sqlite`), else on SQLite. Null when `handler` asks for
 * PostgreSQL and none is reachable.
 */
export async function startEngine(handler?: 'sqlite'): Promise<RunningService>;
export async function startEngine(handler: EngineHandler): Promise<RunningService | null>;
export async function startEngine(handler?: EngineHandler): Promise<RunningService | null> {
  const postgres = await privatePostgresDatabase(handler);
  if (handler === 'postgresql' && !postgres) return null;
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ferretdb-'));
  const binary = findFerretDb(process.env.FERRETDB_BIN) ?? installFerretDb(join(import.meta.dirname, '..', '..'), console.log);
  const engine = await startFerretDb({ binary, dataDir: dir, postgresqlUrl: postgres?.url });
  const port = Number(new URL(engine.uri).port);
  return {
    url: engine.uri,
    kind: postgres ? 'ferretdb-postgresql' : 'ferretdb-sqlite',
    postgresqlUrl: postgres?.url,
    port,
    pid: engine.pid,
    stop: async () => {
      await engine.stop();
      postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RunningS3 extends RunningService {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The node configuration that stores media in this server's bucket. */
  env: Record<string, string>;
}

/** The versitygw binary, built by `scripts/install-s3-server.sh` when missing (Go and its module proxy). */
export function ensureS3Server(log: (line: string) => void = console.log): string {
  const script = fileURLToPath(new URL('../../scripts/install-s3-server.sh', import.meta.url));
  const result = spawnSync('bash', [script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`could not install versitygw for the S3 storage tests:\n${result.stderr}`);
  if (!/already at/.test(result.stdout)) log(result.stdout.trim());
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).stdout.trim();
  return join(gopath, 'bin', 'versitygw');
}

/**
 * A real S3-compatible server (versitygw over a temporary directory) on a free loopback port, with one
 * empty bucket. Not a mock: the SDK speaks signed HTTP to it as it would to any S3 store.
 */
export async function startS3Server(): Promise<RunningS3> {
  const binary = ensureS3Server();
  const dir = mkdtempSync(join(tmpdir(), 'hearth-s3-'));
  const port = await freePort();
  const credentials = { accessKeyId: 'hearth-test-access', secretAccessKey: 'hearth-test-secret-0123456789' };
  const child = spawn(binary, ['--access', credentials.accessKeyId, '--secret', credentials.secretAccessKey, '--port', `127.0.0.1:${port}`, 'posix', dir], { stdio: 'ignore' });
  await waitForPort(port);
  const url = `http://127.0.0.1:${port}`;
  const bucket = 'hearth-media';
  const client = new S3Client({ region: 'us-east-1', endpoint: url, forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    url,
    port,
    pid: child.pid,
    bucket,
    ...credentials,
    env: { S3_ENDPOINT: url, S3_BUCKET: bucket, S3_REGION: 'us-east-1', S3_ACCESS_KEY_ID: credentials.accessKeyId, S3_SECRET_ACCESS_KEY: credentials.secretAccessKey },
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
