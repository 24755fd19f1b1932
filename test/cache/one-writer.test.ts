import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Agent, request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { HearthNode } from '../../src/app/node.js';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import { contentAdmin } from '../content/content-helpers.js';
import { rawGet, type RawAnswer } from '../support/raw-http.js';

// One node, no Redis (it counts its own rate limits). A cold read of a published-content URL goes through
// Express, which builds and keeps the answer; the next is a warm hit the fast path serves before Express.
// Both leave through the node's one response writer, so they answer alike.
const lines: Record<string, unknown>[] = [];
const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => (chunk.toString().split('\n').filter(Boolean).forEach((line) => lines.push(JSON.parse(line) as Record<string, unknown>)), done()) }));
let node: HearthNode;
let expressCalls = 0;

beforeAll(async () => {
  node = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '10', AUTH_FAILURES_PER_MINUTE: '100000' }, logger });
  // Express's app function hands every request to `app.handle`: counting its calls tells which way it went.
  const app = node.app as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...args: unknown[]) => ((expressCalls += 1), handle(...args));
});
afterAll(async () => {
  await node?.stop();
});

/** What two answers of one URL may differ in: the date, and what the rate count says. */
const comparable = (raw: RawAnswer) => ({
  ...raw,
  headers: raw.headers.map(([name, value]) => [name, name === 'Date' ? 'date' : name === 'RateLimit-Reset' ? 'reset' : name === 'RateLimit-Remaining' ? 'remaining' : value]),
});
const logOf = (line: Record<string, unknown> | undefined) => line && { ...line, time: 0, pid: 0, responseTime: 0 };

describe('a cold miss and a warm hit of one URL answer alike through the one writer', () => {
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

  test.each(cachedPaths)('%s: same status, headers (in order), bytes and log line, cold and warm; the warm one skips Express, 304 included', async (path) => {
    const mine = await createWorkspace(node.url);
    const admin = contentAdmin(node.url, mine);
    const category = await admin.category('news', 'News');
    await admin.published({ slug: 'hello', title: 'Hello', categoryId: category.id });
    const nav = await admin.navigation('main');
    await admin.items(nav.id, [{ parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home' } }]);
    // Feeds and the sitemap need the site's address; analytics its tracker.
    await admin.call('', { method: 'PATCH', body: { siteUrl: 'https://site.example', analytics: { websiteId: '6f1c1f43-5a3c-4e4e-9d5b-0c1b7f8a9e21', scriptUrl: 'https://stats.example/s.js' } } });
    const headers = { 'X-Api-Key': mine.apiKey, 'X-Request-Id': 'same-id-1' };

    const calls = expressCalls;
    const cold = await rawGet(node.url + path, headers);
    expect(expressCalls).toBe(calls + 1);
    const coldLine = lines.at(-1);
    const warm = await rawGet(node.url + path, headers);
    expect(expressCalls).toBe(calls + 1);
    expect(cold.status).toBe(200);
    expect(comparable(warm)).toEqual(comparable(cold));
    expect(warm.headers.filter(([name]) => name === 'Content-Type')).toHaveLength(1);
    expect(Number(warm.headers.find(([name]) => name === 'RateLimit-Remaining')![1])).toBe(Number(cold.headers.find(([name]) => name === 'RateLimit-Remaining')![1]) - 1);
    expect(logOf(lines.at(-1))).toEqual(logOf(coldLine));
    expect(lines.at(-1)).toMatchObject({ msg: 'request completed', req: { id: 'same-id-1' }, res: { statusCode: 200 } });

    const etag = warm.headers.find(([name]) => name === 'ETag')?.[1];
    expect(etag).toMatch(/^W\/"/);
    const notModified = await rawGet(node.url + path, { ...headers, 'If-None-Match': etag! });
    expect(expressCalls).toBe(calls + 1);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toHaveLength(0);
    expect(notModified.headers.map(([name]) => name)).toEqual(warm.headers.map(([name]) => name).filter((name) => name !== 'Content-Length' && (name !== 'Content-Type' || path.endsWith('.xml'))));
  });
});

describe('what the fast path leaves to Express', () => {
  test('a GET carrying a malformed JSON body gets the 400 of every other path, even when its answer is kept', async () => {
    const ws = await createWorkspace(node.url);
    await contentAdmin(node.url, ws).published({ slug: 'hello', title: 'Hello' });
    const path = '/external/posts/hello';
    await rawGet(node.url + path, { 'X-Api-Key': ws.apiKey });
    await rawGet(node.url + path, { 'X-Api-Key': ws.apiKey });
    const calls = expressCalls;
    const answer = await new Promise<{ status: number; code: string }>((resolve, reject) => {
      const req = httpRequest(node.url + path, { method: 'GET', headers: { 'X-Api-Key': ws.apiKey, 'Content-Type': 'application/json', 'Content-Length': '1' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, code: (JSON.parse(body) as { code: string }).code }));
      });
      req.on('error', reject);
      req.end('{');
    });
    expect(expressCalls).toBe(calls + 1);
    expect(answer).toEqual({ status: 400, code: 'malformed_json' });
  });

  test('a remembered workspace key in the publishableKey query is refused (401), never served from memory', async () => {
    const mine = await createWorkspace(node.url);
    await contentAdmin(node.url, mine).published({ slug: 'hello', title: 'Hello' });
    for (let i = 0; i < 2; i += 1) expect((await rawGet(`${node.url}/external/posts/hello`, { 'X-Api-Key': mine.apiKey })).status).toBe(200);
    const calls = expressCalls;
    const inUrl = await request(node.url, `/external/posts/hello?publishableKey=${mine.apiKey}`);
    expect(expressCalls).toBe(calls + 1);
    expect(inUrl.status).toBe(401);
    expect(inUrl.body.code).toBe('wrong_credential_kind');
  });

  test('rate limit: the limit-th request passes on the fast path, the next is 429 (counted once)', async () => {
    const other = await createWorkspace(node.url);
    await contentAdmin(node.url, other).published({ slug: 'hello', title: 'Hello' });
    const path = '/external/posts/hello';
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await rawGet(node.url + path, { 'X-Api-Key': other.apiKey })).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    const refused = await request(node.url, path, { apiKey: other.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  });

  test('a publish shows on the next read and a rotated key is refused at once', async () => {
    const mine = await createWorkspace(node.url);
    const admin = contentAdmin(node.url, mine);
    await admin.published({ slug: 'one', title: 'One' });
    const list = async (key: string) => request(node.url, '/external/posts', { apiKey: key });
    expect((await list(mine.apiKey)).body.items).toHaveLength(1);
    expect((await list(mine.apiKey)).body.items).toHaveLength(1);
    await admin.published({ slug: 'two', title: 'Two' });
    expect((await list(mine.apiKey)).body.items).toHaveLength(2);
    const rotated = await request(node.url, `/admin/workspaces/${mine.id}/api-key/rotate`, { method: 'POST', token: mine.token, body: {} });
    expect(rotated.status).toBe(200);
    expect((await list(mine.apiKey)).status).toBe(401);
  });

  test('one kept-alive connection sending two workspaces\' keys in turn gets each its own answer, and a rotated key refused', async () => {
    const [first, second] = await Promise.all([createWorkspace(node.url), createWorkspace(node.url)]);
    await contentAdmin(node.url, first).published({ slug: 'mine', title: 'First workspace' });
    await contentAdmin(node.url, second).published({ slug: 'mine', title: 'Second workspace' });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    const read = (apiKey: string) =>
      new Promise<{ status: number; title?: string }>((resolve, reject) => {
        const req = httpRequest(`${node.url}/external/posts/mine`, { agent, headers: { 'X-Api-Key': apiKey } }, (res) => {
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
      const rotated = await request(node.url, `/admin/workspaces/${first.id}/api-key/rotate`, { method: 'POST', token: first.token, body: {} });
      expect(rotated.status).toBe(200);
      expect((await read(first.apiKey)).status).toBe(401);
      expect(await read(second.apiKey)).toEqual({ status: 200, title: 'Second workspace' });
      expect(ports.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
