import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Agent, request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { HearthNode } from '../../src/app/node.js';
import { createNode, type NodeOptions } from '../../src/app/node.js';
import { loadConfig } from '../../src/config/config.js';
import { createWorkspace, OPERATOR, request, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import { contentAdmin } from '../content/content-helpers.js';
import { rawGet, type RawAnswer } from '../support/raw-http.js';

// Two nodes on one database, no Redis (each counts its own rate limits): F answers warm hits on the
// fast path, E (fast path off) through Express. Recording is off: the fast path steps aside for it.
const env = { RATE_LIMIT_PER_MINUTE: '10', RECORD_RESPONSES_DIR: '' };
const lines: { F: Record<string, unknown>[]; E: Record<string, unknown>[] } = { F: [], E: [] };
const capture = (into: Record<string, unknown>[]): Logger =>
  pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => (chunk.toString().split('\n').filter(Boolean).forEach((line) => into.push(JSON.parse(line))), done()) }));
let fast: HearthNode;
let express: HearthNode;
let expressCalls = 0;

async function startNode(dbName: string, fastPath: boolean, logger: Logger): Promise<HearthNode> {
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: process.env.TEST_MONGODB_URI,
    MONGODB_DB: dbName,
    ADMIN_EMAIL: OPERATOR.email,
    ADMIN_PASSWORD: OPERATOR.password,
    KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-000',
    AUTH_FAILURES_PER_MINUTE: '100000',
    NODE_ROLE: fastPath ? 'all' : 'api',
    ...env,
  });
  return createNode({ config: config as NodeOptions['config'], logger, jobsProcessEvery: 100, fastPath });
}

beforeAll(async () => {
  const dbName = uniqueDbName('fast');
  fast = await startNode(dbName, true, capture(lines.F));
  express = await startNode(dbName, false, capture(lines.E));
  // Express's app function hands every request to `app.handle`: counting its calls tells which path answered.
  const app = fast.app as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...args: unknown[]) => ((expressCalls += 1), handle(...args));
});
afterAll(async () => {
  await Promise.all([fast?.stop(), express?.stop()]);
});

const comparable = (raw: RawAnswer) => ({ ...raw, headers: raw.headers.map(([name, value]) => [name, name === 'Date' ? 'date' : name === 'RateLimit-Reset' ? 'reset' : value]) });
const logOf = (line: Record<string, unknown> | undefined) => line && { ...line, time: 0, pid: 0, responseTime: 0 };

let ws: WorkspaceFixture;

describe('warm published-content hits answered before Express', () => {
  beforeAll(async () => {
    ws = await createWorkspace(fast.url);
    await contentAdmin(fast.url, ws).published({ slug: 'hello', title: 'Hello' });
  });

  /** Every route the fast path may answer (`cache: 'published'`), each read with a workspace of its own (the rate limit is 10). */
  const cachedPaths = [
    '/external/workspace',
    '/external/posts?limit=50',
    '/external/posts/hello',
    '/external/changes',
    '/external/categories',
    '/external/navigations/main',
    '/external/analytics-config',
    '/external/feed.xml',
    '/external/sitemap.xml',
  ];

  test.each(cachedPaths)('%s: a hit skips Express and answers the same status, headers (in order) and bytes as the Express path, 304 included, with the same log line', async (path) => {
    const mine = await createWorkspace(fast.url);
    const admin = contentAdmin(fast.url, mine);
    const category = await admin.category('news', 'News');
    await admin.published({ slug: 'hello', title: 'Hello', categoryId: category.id });
    const nav = await admin.navigation('main');
    await admin.items(nav.id, [{ parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home' } }]);
    // Feeds and the sitemap need the site's address; analytics its tracker.
    await admin.call('', { method: 'PATCH', body: { siteUrl: 'https://site.example', analytics: { websiteId: '6f1c1f43-5a3c-4e4e-9d5b-0c1b7f8a9e21', scriptUrl: 'https://stats.example/s.js' } } });
    const headers = { 'X-Api-Key': mine.apiKey, 'X-Request-Id': 'same-id-1' };
    // Warm both (key remembered, answer kept): the first read of each goes through Express.
    await rawGet(fast.url + path, headers);
    await rawGet(express.url + path, headers);
    const calls = expressCalls;
    const viaFast = await rawGet(fast.url + path, headers);
    expect(expressCalls).toBe(calls);
    const viaExpress = await rawGet(express.url + path, headers);
    expect(viaFast.status).toBe(200);
    expect(comparable(viaFast)).toEqual(comparable(viaExpress));
    expect(viaFast.headers.filter(([name]) => name === 'Content-Type')).toHaveLength(1);
    expect(Number(viaFast.headers.find(([name]) => name === 'RateLimit-Reset')![1])).toBeGreaterThan(0);
    expect(logOf(lines.F.at(-1))).toEqual(logOf(lines.E.at(-1)));
    expect(lines.F.at(-1)).toMatchObject({ msg: 'request completed', req: { id: 'same-id-1' }, res: { statusCode: 200 } });

    const etag = viaFast.headers.find(([name]) => name === 'ETag')?.[1];
    expect(etag).toMatch(/^W\/"/);
    const conditional = { ...headers, 'If-None-Match': etag! };
    const fast304 = await rawGet(fast.url + path, conditional);
    expect(expressCalls).toBe(calls);
    const express304 = await rawGet(express.url + path, conditional);
    expect(fast304.status).toBe(304);
    expect(comparable(fast304)).toEqual(comparable(express304));
    expect(logOf(lines.F.at(-1))).toEqual(logOf(lines.E.at(-1)));
  });

  test('a GET carrying a malformed JSON body gets the same 400 as through Express, even when its answer is kept', async () => {
    const path = '/external/posts/hello';
    await rawGet(fast.url + path, { 'X-Api-Key': ws.apiKey });
    await rawGet(fast.url + path, { 'X-Api-Key': ws.apiKey });
    const withBody = (url: string) =>
      new Promise<{ status: number; code: string }>((resolve, reject) => {
        const req = httpRequest(url + path, { method: 'GET', headers: { 'X-Api-Key': ws.apiKey, 'Content-Type': 'application/json', 'Content-Length': '1' } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, code: (JSON.parse(body) as { code: string }).code }));
        });
        req.on('error', reject);
        req.end('{');
      });
    const [viaFast, viaExpress] = [await withBody(fast.url), await withBody(express.url)];
    expect(viaFast).toEqual(viaExpress);
    expect(viaFast.status).toBe(400);
  });

  test('a remembered workspace key in the publishableKey query is refused (Express answers 401), never served from memory', async () => {
    const mine = await createWorkspace(fast.url);
    await contentAdmin(fast.url, mine).published({ slug: 'hello', title: 'Hello' });
    for (let i = 0; i < 2; i += 1) expect((await rawGet(`${fast.url}/external/posts/hello`, { 'X-Api-Key': mine.apiKey })).status).toBe(200);
    const calls = expressCalls;
    const inUrl = await request(fast.url, `/external/posts/hello?publishableKey=${mine.apiKey}`);
    expect(expressCalls).toBe(calls + 1);
    expect(inUrl.status).toBe(401);
    expect(inUrl.body.code).toBe('wrong_credential_kind');
  });

  test('rate limit: the limit-th request passes on the fast path, the next is 429 (counted once)', async () => {
    const other = await createWorkspace(fast.url);
    await contentAdmin(fast.url, other).published({ slug: 'hello', title: 'Hello' });
    const path = '/external/posts/hello';
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await rawGet(fast.url + path, { 'X-Api-Key': other.apiKey })).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    const refused = await request(fast.url, path, { apiKey: other.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  });

  test('a publish shows on the next read and a rotated key is refused at once', async () => {
    const mine = await createWorkspace(fast.url);
    const admin = contentAdmin(fast.url, mine);
    await admin.published({ slug: 'one', title: 'One' });
    const list = async (key: string) => request(fast.url, '/external/posts', { apiKey: key });
    expect((await list(mine.apiKey)).body.items).toHaveLength(1);
    expect((await list(mine.apiKey)).body.items).toHaveLength(1);
    await admin.published({ slug: 'two', title: 'Two' });
    expect((await list(mine.apiKey)).body.items).toHaveLength(2);
    const rotated = await request(fast.url, `/admin/workspaces/${mine.id}/api-key/rotate`, { method: 'POST', token: mine.token, body: {} });
    expect(rotated.status).toBe(200);
    expect((await list(mine.apiKey)).status).toBe(401);
  });

  test('one kept-alive connection sending two workspaces\' keys in turn gets each its own answer, and a rotated key refused', async () => {
    const [first, second] = await Promise.all([createWorkspace(fast.url), createWorkspace(fast.url)]);
    await contentAdmin(fast.url, first).published({ slug: 'mine', title: 'First workspace' });
    await contentAdmin(fast.url, second).published({ slug: 'mine', title: 'Second workspace' });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    const read = (apiKey: string) =>
      new Promise<{ status: number; title?: string }>((resolve, reject) => {
        const req = httpRequest(`${fast.url}/external/posts/mine`, { agent, headers: { 'X-Api-Key': apiKey } }, (res) => {
          ports.add(res.socket.localPort!);
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, title: res.statusCode === 200 ? (JSON.parse(body) as { title: string }).title : undefined }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      for (let i = 0; i < 3; i += 1) {
        expect(await read(first.apiKey)).toEqual({ status: 200, title: 'First workspace' });
        expect(await read(second.apiKey)).toEqual({ status: 200, title: 'Second workspace' });
      }
      const calls = expressCalls;
      expect(await read(first.apiKey)).toEqual({ status: 200, title: 'First workspace' });
      expect(expressCalls).toBe(calls);
      const rotated = await request(fast.url, `/admin/workspaces/${first.id}/api-key/rotate`, { method: 'POST', token: first.token, body: {} });
      expect(rotated.status).toBe(200);
      expect((await read(first.apiKey)).status).toBe(401);
      expect(await read(second.apiKey)).toEqual({ status: 200, title: 'Second workspace' });
      expect(ports.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
