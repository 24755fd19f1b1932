import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ferretDbPostgresqlUrl } from './postgres-filter-indexes.js';

/**
 * The embedded default engine: FerretDB 1.24 on SQLite, started as a child process when no MONGODB_URI
 * is configured. Used by `npm start` and by the test suite's global setup.
 */
export interface EmbeddedEngine {
  uri: string;
  /** The engine process id (tests kill it to prove supervision). */
  readonly pid: number | undefined;
  /** Resolves when the process exits, whoever ended it. */
  readonly exited: Promise<void>;
  stop(): Promise<void>;
  /** Ends the engine at once, synchronously: for a server that must exit now (a shutdown past its deadline). */
  kill(): void;
}

export class EngineUnavailableError extends Error {}

function goBinDir(): string | null {
  const result = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' });
  if (result.status === 0 && result.stdout.trim()) return join(result.stdout.trim().split(':')[0], 'bin');
  return null;
}

export function findFerretDb(explicit?: string): string | null {
  const candidates = [
    explicit,
    ...(process.env.PATH ?? '').split(':').filter(Boolean).map((dir) => join(dir, 'ferretdb')),
    goBinDir() && join(goBinDir()!, 'ferretdb'),
    join(homedir(), 'go', 'bin', 'ferretdb'),
  ];
  return candidates.find((path): path is string => Boolean(path && existsSync(path))) ?? null;
}

/** Builds FerretDB with the project's install script when it is missing; returns its path. */
export function installFerretDb(projectRoot: string, log: (line: string) => void): string {
  log('FerretDB not found; installing it with scripts/install-ferretdb.sh (needs Go and the Go module proxy)...');
  const result = spawnSync('bash', [join(projectRoot, 'scripts', 'install-ferretdb.sh')], { stdio: 'inherit' });
  const found = findFerretDb();
  if (result.status !== 0 || !found) {
    throw new EngineUnavailableError(
      'No database engine available. Either set MONGODB_URI to a MongoDB 7/8 server, ' +
        'or install Go 1.22+ so `npm start` can build the local FerretDB engine (scripts/install-ferretdb.sh).',
    );
  }
  return found;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new EngineUnavailableError(`FerretDB exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new EngineUnavailableError(`FerretDB did not listen on port ${port} within ${timeoutMs} ms`);
}

export interface FerretDbOptions {
  binary: string;
  /** SQLite files (without `postgresqlUrl`) and FerretDB's state. */
  dataDir: string;
  /** Store in this PostgreSQL database instead of SQLite (5-15x faster point reads and updates). */
  postgresqlUrl?: string;
  port?: number;
  log?: (line: string) => void;
  /**
   * Where the engine's pid is kept while it runs. An engine a previous server left running (that server
   * was killed before it could stop it) is found there at the next start and ended first, so it never
   * outlives its server for longer than that and never shares the data with a new one.
   */
  pidFile?: string;
}

/** True while `pid` is a running FerretDB (on Linux; elsewhere nothing is ever taken for one). */
function isEngineProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('ferretdb');
  } catch {
    return false;
  }
}

/** The pid a pid file names, or null when there is none. */
function pidIn(pidFile: string): number | null {
  try {
    return Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return null;
  }
}

/** Ends the engine named in `pidFile` if it still runs, and waits (up to 5 s) until it is gone. */
async function endLeftoverEngine(pidFile: string, log?: (line: string) => void): Promise<void> {
  const pid = pidIn(pidFile);
  if (pid === null) return;
  if (Number.isInteger(pid) && pid > 0 && isEngineProcess(pid)) {
    log?.(`ending the local database engine a previous run left running (pid ${pid})`);
    process.kill(pid, 'SIGKILL');
    for (let waited = 0; waited < 5_000 && isEngineProcess(pid); waited += 50) await new Promise((r) => setTimeout(r, 50));
  }
  rmSync(pidFile, { force: true });
}

export async function startFerretDb(options: FerretDbOptions): Promise<EmbeddedEngine> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  if (options.pidFile) await endLeftoverEngine(options.pidFile, options.log);
  const port = options.port ?? (await freePort());
  const child = spawn(
    options.binary,
    [
      ...(options.postgresqlUrl ? ['--handler=postgresql', `--postgresql-url=${ferretDbPostgresqlUrl(options.postgresqlUrl)}`] : ['--handler=sqlite', `--sqlite-url=file:${dataDir}/`]),
      `--state-dir=${dataDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  try {
    await waitForPort(port, child, 20_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new EngineUnavailableError(`${(error as Error).message}\n${stderr}`);
  }
  options.log?.(`FerretDB listening on 127.0.0.1:${port} (data in ${options.postgresqlUrl ? 'PostgreSQL' : dataDir})`);
  const { pidFile } = options;
  if (pidFile && child.pid) {
    const pid = child.pid;
    writeFileSync(pidFile, `${pid}\n`);
    // Only while the file still names this engine: one started after it (which ended it) owns the file now.
    child.once('exit', () => {
      if (pidIn(pidFile) === pid) rmSync(pidFile, { force: true });
    });
  }
  const exited = new Promise<void>((done) => (child.exitCode !== null ? done() : child.once('exit', () => done())));
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    pid: child.pid,
    exited,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}

/**
 * Keeps the embedded engine running: when the process dies while it should run, it is started again
 * on the same port and data, after 0.5 s, then 1 s, 2 s ... up to 30 s between failed tries, and each
 * step is logged. Clients reconnect by themselves (requests meanwhile answer 503).
 */
export async function superviseFerretDb(
  options: FerretDbOptions,
  log: { warn(message: string): void; error(message: string): void; info(message: string): void },
): Promise<EmbeddedEngine & { restarts(): number }> {
  const port = options.port ?? (await freePort());
  let current = await startFerretDb({ ...options, port });
  let stopping = false;
  let restarts = 0;
  let settled: () => void = () => undefined;
  const stopped = new Promise<void>((done) => (settled = done));

  const watch = (engine: EmbeddedEngine) => {
    void engine.exited.then(async () => {
      let delayMs = 500;
      while (!stopping) {
        log.error(`local database engine exited; restarting it in ${delayMs} ms`);
        await new Promise((resume) => setTimeout(resume, delayMs));
        if (stopping) break;
        try {
          current = await startFerretDb({ ...options, port });
          restarts += 1;
          log.info(`local database engine restarted on port ${port}`);
          watch(current);
          return;
        } catch (error) {
          log.warn(`local database engine did not start again: ${(error as Error).message.split('\n')[0]}`);
          delayMs = Math.min(delayMs * 2, 30_000);
        }
      }
      settled();
    });
  };
  watch(current);

  return {
    uri: current.uri,
    get pid() {
      return current.pid;
    },
    exited: stopped,
    restarts: () => restarts,
    stop: async () => {
      stopping = true;
      await current.stop();
    },
    kill: () => {
      stopping = true;
      current.kill();
    },
  };
}
