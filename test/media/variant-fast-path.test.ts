import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { HearthNode } from '../../src/app/node.js';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import { rawGet, rawRequest, type RawAnswer } from '../support/raw-http.js';
import { onNode, photo, upload } from './media-files.js';

// Three nodes on one database, one store and one Redis: `fast` and `peer` serve warm variants before Express
// (the fast path), `full` sends every request through Express. A variant a node holds in memory, its file's
// record remembered, is a kept answer: whichever way it leaves, it must be the same answer.
let dataDir: string;
let fast: HearthNode;
let peer: HearthNode;
let full: HearthNode;
const expressCalls = new Map<HearthNode, number>();

/** Counts the requests Express's app function is handed on `node`: whatever the fast path left to it. */
function countExpressCalls(node: HearthNode): void {
  const app = node.app as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  expressCalls.set(node, 0);
  app.handle = (...args: unknown[]) => (expressCalls.set(node, expressCalls.get(node)! + 1), handle(...args));
}

/** Express calls on `node` while `work` runs. */
async function viaExpress<T>(node: HearthNode, work: () => Promise<T>): Promise<{ answer: T; calls: number }> {
  const before = expressCalls.get(node)!;
  const answer = await work();
  return { answer, calls: expressCalls.get(node)! - before };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-variant-fast-'));
  const dbName = uniqueDbName('variants');
  // A rate limit of 3 a minute: far below what these tests send from one address, so a count would show.
  const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '3' };
  fast = await startTestNode({ dbName, redis: true, env });
  peer = await startTestNode({ dbName, redis: true, env });
  full = await startTestNode({ dbName, redis: true, env, fastPath: false });
  for (const node of [fast, peer, full]) countExpressCalls(node);
}, 60_000);

afterAll(async () => {
  await Promise.all([fast, peer, full].map((node) => node?.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

/** What two answers of one request may differ in: the date. */
const comparable = (raw: RawAnswer) => ({ ...raw, headers: raw.headers.map(([name, value]) => [name, name === 'Date' ? 'date' : value]) });
const header = (raw: RawAnswer, name: string) => raw.headers.find(([found]) => found.toLowerCase() === name.toLowerCase())?.[1];

/** The headers of a variant, in order, as the Express path has sent them since variants exist. */
const VARIANT_HEADERS = [
  'X-Request-Id',
  'Cache-Control',
  'X-Content-Type-Options',
  'Content-Security-Policy',
  'Cross-Origin-Resource-Policy',
  'Content-Type',
  'ETag',
  'Content-Length',
  'Date',
  'Connection',
  'Keep-Alive',
];

/** A fresh workspace with one 800 x 600 JPEG in its library: its versioned path (the library's `url`). */
async function libraryImage(): Promise<{ ws: WorkspaceFixture; id: string; path: string }> {
  const ws = await createWorkspace(fast.url);
  const res = await upload(fast.url, ws.id, ws.token, await photo(800, 600).jpeg().toBuffer(), 'loaf.jpg');
  expect(res.status).toBe(201);
  const body = res.body as { id: string; url: string };
  return { ws, id: body.id, path: onNode('', body.url) };
}

/** GETs `path` on `node` until its variant is held (the first request renders or reads it), then once more. */
async function warm(node: HearthNode, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  expect((await rawGet(node.url + path, headers)).status).toBe(200);
  return rawGet(node.url + path, headers);
}

describe('a warm variant leaves the fast path as it leaves Express', () => {
  test.each([
    ['versioned (immutable)', (path: string) => `${path}&w=320&fm=webp`],
    ['unversioned (five minutes)', (path: string) => `${path.replace(/\?v=.*/, '')}?w=320&fm=webp`],
  ])('%s: same status, headers in order and bytes, 200 and 304; the warm one never reaches Express', async (_name, variantOf) => {
    const { path } = await libraryImage();
    const variant = variantOf(path);
    const headers = { 'X-Request-Id': 'same-id-1' };

    const cold = await viaExpress(fast, () => rawGet(fast.url + variant, headers));
    expect(cold.calls).toBe(1);
    expect(cold.answer.status).toBe(200);
    expect(cold.answer.headers.map(([name]) => name)).toEqual(VARIANT_HEADERS);
    expect(header(cold.answer, 'Content-Type')).toBe('image/webp');
    expect(header(cold.answer, 'Cache-Control')).toBe(variant.includes('v=') ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    expect(Number(header(cold.answer, 'Content-Length'))).toBe(cold.answer.body.length);

    const early = await viaExpress(fast, () => rawGet(fast.url + variant, headers));
    expect(early.calls).toBe(0);
    const throughExpress = await viaExpress(full, () => warm(full, variant, headers));
    expect(throughExpress.calls).toBe(2);
    expect(comparable(early.answer)).toEqual(comparable(cold.answer));
    expect(comparable(throughExpress.answer)).toEqual(comparable(early.answer));

    const etag = header(early.answer, 'ETag')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}-320xauto-inside\.webp"$/);
    const conditional = { ...headers, 'If-None-Match': `"other", ${etag}` };
    const notModified = await viaExpress(fast, () => rawGet(fast.url + variant, conditional));
    expect(notModified.calls).toBe(0);
    const notModifiedByExpress = await viaExpress(full, () => rawGet(full.url + variant, conditional));
    expect(notModifiedByExpress.calls).toBe(1);
    expect(notModified.answer.status).toBe(304);
    expect(notModified.answer.body).toHaveLength(0);
    expect(notModified.answer.headers.map(([name]) => name)).toEqual(VARIANT_HEADERS.filter((name) => name !== 'Content-Length'));
    expect(comparable(notModifiedByExpress.answer)).toEqual(comparable(notModified.answer));
  });

  test('one variant asked with and without the version: each warm answer keeps its own Cache-Control, and a wrong version is not immutable', async () => {
    const { path } = await libraryImage();
    const versioned = `${path}&w=320&fm=webp`;
    const unversioned = `${path.replace(/\?v=.*/, '')}?w=320&fm=webp`;
    const wrongVersion = `${path.replace(/\?v=[^&]*/, '?v=0000000000000000')}&w=320&fm=webp`;
    await warm(fast, versioned);
    const cacheControl = async (variant: string) => {
      const { answer, calls } = await viaExpress(fast, () => warm(fast, variant));
      expect(calls).toBeLessThanOrEqual(1);
      return header(answer, 'Cache-Control');
    };
    expect(await cacheControl(unversioned)).toBe('public, max-age=300');
    expect(await cacheControl(versioned)).toBe('public, max-age=31536000, immutable');
    expect(await cacheControl(wrongVersion)).toBe('public, max-age=300');
    expect((await viaExpress(fast, () => rawGet(fast.url + versioned))).calls).toBe(0);
  });

  test('a route that names no credential counts nothing: past RATE_LIMIT_PER_MINUTE (3) from one address, warm variants are still answered, without RateLimit headers, on both paths', async () => {
    const { path } = await libraryImage();
    const variant = `${path}&w=160&fm=webp`;
    for (const node of [fast, full]) {
      await warm(node, variant);
      const answers = [];
      for (let i = 0; i < 5; i += 1) answers.push(await rawGet(node.url + variant));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.flatMap((answer) => answer.headers.filter(([name]) => name.startsWith('RateLimit')))).toEqual([]);
    }
    // The limiter itself is live on this node: a keyed read is refused once its 3 are spent, fast path or not.
    const ws = await createWorkspace(fast.url);
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await request(fast.url, '/external/workspace', { apiKey: ws.apiKey })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('what the fast path leaves to Express', () => {
  test('a HEAD, the original, a miss and an invalid size go to Express; the HEAD answers the GET\'s headers without a body', async () => {
    const { path } = await libraryImage();
    const variant = `${path}&w=640&fm=webp`;
    const get = await warm(fast, variant, { 'X-Request-Id': 'head-1' });

    const head = await viaExpress(fast, () => rawRequest('HEAD', fast.url + variant, { 'X-Request-Id': 'head-1' }));
    expect(head.calls).toBe(1);
    expect(head.answer.status).toBe(200);
    expect(head.answer.body).toHaveLength(0);
    expect(comparable({ ...head.answer, body: get.body })).toEqual(comparable(get));

    expect((await viaExpress(fast, () => rawGet(fast.url + path))).calls).toBe(1);
    const miss = await viaExpress(fast, () => rawGet(`${fast.url}${path}&w=960&fm=avif`));
    expect([miss.calls, miss.answer.status]).toEqual([1, 200]);
    const invalid = await viaExpress(fast, () => rawGet(`${fast.url}${path}&w=400&fm=webp`));
    expect([invalid.calls, invalid.answer.status]).toEqual([1, 400]);
  });
});

describe('a change of the file ends its warm variants at once', () => {
  test('a new focal point: the next request of the old URL is no longer served from memory (new ETag, five minutes), on this node at once and on the others', async () => {
    const { ws, id, path } = await libraryImage();
    const variant = `${path}&w=320&h=320&fit=cover&fm=webp`;
    const before = await warm(fast, variant);
    await warm(peer, variant);
    expect((await viaExpress(peer, () => rawGet(peer.url + variant))).calls).toBe(0);

    const patched = await request(fast.url, `/admin/workspaces/${ws.id}/media/${id}`, { method: 'PATCH', token: ws.token, body: { focalPoint: { x: 0, y: 0.5 } } });
    expect(patched.status).toBe(200);

    const after = await viaExpress(fast, () => rawGet(fast.url + variant));
    expect(after.calls).toBe(1);
    expect(after.answer.status).toBe(200);
    expect(header(after.answer, 'ETag')).not.toBe(header(before, 'ETag'));
    expect(header(after.answer, 'Cache-Control')).toBe('public, max-age=300');
    await eventually(async () => header(await rawGet(peer.url + variant), 'ETag') === header(after.answer, 'ETag'));
  });

  test('a deleted file: 404 from the next request, on this node at once and on the others', async () => {
    const { ws, id, path } = await libraryImage();
    const variant = `${path}&w=320&fm=webp`;
    await warm(fast, variant);
    await warm(peer, variant);
    expect((await viaExpress(fast, () => rawGet(fast.url + variant))).calls).toBe(0);

    const deleted = await request(fast.url, `/admin/workspaces/${ws.id}/media/${id}`, { method: 'DELETE', token: ws.token });
    expect(deleted.status).toBe(204);

    const gone = await viaExpress(fast, () => rawGet(fast.url + variant));
    expect([gone.calls, gone.answer.status]).toEqual([1, 404]);
    await eventually(async () => (await rawGet(peer.url + variant)).status === 404);
  });
});
