import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import mongoose from 'mongoose';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import { findFerretDb, freePort, startFerretDb, superviseFerretDb, type EmbeddedEngine } from '../../src/db/embedded-engine.js';

/** A private engine on SQLite in its own directory and port, so it can be stopped and started again. */
const dirs: string[] = [];
function engineOptions(port: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-outage-'));
  dirs.push(dataDir);
  return { binary: findFerretDb(process.env.FERRETDB_BIN)!, dataDir, port };
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the database engine goes away', () => {
  test('requests that need it answer 503 database_unavailable with Retry-After within seconds (published content keeps coming from memory), readyz says so, and the node recovers alone', async () => {
    const options = engineOptions(await freePort());
    let engine: EmbeddedEngine = await startFerretDb(options);
    const node = await startTestNode({ env: { MONGODB_URI: engine.uri } });
    try {
      const ws = await createWorkspace(node.url);
      expect((await request(node.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(200);

      await engine.stop();
      // The published-content cache answers reads it holds without the engine.
      expect((await request(node.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(200);
      const started = Date.now();
      const down = await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Ada', email: 'ada@example.com', message: 'Hi' } });
      expect(Date.now() - started).toBeLessThan(6_000);
      expect(down.status).toBe(503);
      expect(down.body.code).toBe('database_unavailable');
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
      const ready = await request(node.url, '/readyz');
      expect([ready.status, ready.body.mongodb]).toEqual([503, 'down']);

      engine = await startFerretDb(options);
      await eventually(
        async () => (await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Ada', email: 'ada@example.com', message: 'Hi' } })).status === 201,
        30_000,
        250,
      );
      expect((await request(node.url, '/readyz')).status).toBe(200);
    } finally {
      await node.stop();
      await engine.stop();
    }
  }, 90_000);

  test('the supervised embedded engine (npm start) is restarted when it dies, and says so', async () => {
    const lines: string[] = [];
    const log = { info: (line: string) => lines.push(`info ${line}`), warn: (line: string) => lines.push(`warn ${line}`), error: (line: string) => lines.push(`error ${line}`) };
    const engine = await superviseFerretDb(engineOptions(await freePort()), log);
    const client = await mongoose.createConnection(engine.uri, { dbName: 'supervised', serverSelectionTimeoutMS: 2_000 }).asPromise();
    try {
      await client.db!.collection('probe').insertOne({ alive: true });
      process.kill(engine.pid!, 'SIGKILL');
      await eventually(() => engine.restarts() === 1, 20_000, 100);
      await eventually(async () => (await client.db!.collection('probe').countDocuments()) === 1, 20_000, 250);
      expect(lines.some((line) => line.startsWith('error local database engine exited'))).toBe(true);
      expect(lines.some((line) => line.startsWith('info local database engine restarted'))).toBe(true);
    } finally {
      await client.close();
      await engine.stop();
    }
  }, 60_000);
});

describe('the embedded engine never outlives its server', () => {
  const alive = (pid: number | undefined) => {
    try {
      process.kill(pid!, 0);
      return true;
    } catch {
      return false;
    }
  };

  test('an engine a killed server left running is ended at the next start (its pid file), and the file goes with the engine', async () => {
    const options = engineOptions(await freePort());
    const pidFile = join(options.dataDir, 'engine.pid');
    // The first server is "killed": it never stops its engine.
    const leftover = await startFerretDb({ ...options, pidFile });
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(leftover.pid));

    const next = await startFerretDb({ ...options, port: await freePort(), pidFile });
    await leftover.exited;
    expect(alive(leftover.pid)).toBe(false);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(next.pid));

    // kill() ends it at once, synchronously (a shutdown past its deadline), and removes the pid file.
    next.kill();
    await next.exited;
    expect(alive(next.pid)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
  });

  test('a pid file naming a process that is not an engine is left alone', async () => {
    const options = engineOptions(await freePort());
    const pidFile = join(options.dataDir, 'engine.pid');
    writeFileSync(pidFile, `${process.pid}\n`);
    const engine = await startFerretDb({ ...options, pidFile });
    expect(alive(process.pid)).toBe(true);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(engine.pid));
    await engine.stop();
    expect(existsSync(pidFile)).toBe(false);
  });
});
