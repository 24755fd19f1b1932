import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { findFerretDb, freePort, installFerretDb, startFerretDb } from '../../src/db/embedded-engine.js';

export interface RunningService {
  url: string;
  port: number;
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

/** A private FerretDB in a temporary directory. */
export async function startEngine(): Promise<RunningService> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ferretdb-'));
  const binary = findFerretDb(process.env.FERRETDB_BIN) ?? installFerretDb(join(import.meta.dirname, '..', '..'), console.log);
  const engine = await startFerretDb({ binary, dataDir: dir });
  const port = Number(new URL(engine.uri).port);
  return {
    url: engine.uri,
    port,
    stop: async () => {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
