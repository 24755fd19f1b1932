import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { createWorkspace, loginOperator, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { allRoutes } from '../../src/app/routes.js';
import { JSON_MAX_DEPTH } from '../../src/shared/json-depth.js';

/**
 * Whatever a client sends, the answer is never a 5xx and a refused request stores nothing
 * (decisions.md, Error bodies). `FUZZ_RUNS` lengthens the route-table fuzz (`npm run fuzz`).
 */
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 150);

let node: HearthNode;
let ws: WorkspaceFixture;
let operatorToken: string;
beforeAll(async () => {
  node = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  ws = await createWorkspace(node.url);
  operatorToken = await loginOperator(node.url);
});
afterAll(async () => {
  await node?.stop();
});

const submission = { name: 'Ada', email: 'ada@example.com', message: 'Hello' };
/** `levels` nested arrays. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

async function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const response = await fetch(node.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Api-Key': ws.apiKey, ...headers }, body });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as { code?: string } };
}

async function inboxTotal(fixture: WorkspaceFixture): Promise<number> {
  const inbox = await request(node.url, `/admin/workspaces/${fixture.id}/submissions`, { token: fixture.token });
  return inbox.body.pageInfo.total;
}

describe('framework faults a client causes are 4xx in the error shape', () => {
  test('a bad percent-escape in the path is 400 malformed_path, on external and admin routes', async () => {
    const external = await request(node.url, '/external/posts/%E0%A4%A', { apiKey: ws.apiKey });
    expect([external.status, external.body.code]).toEqual([400, 'malformed_path']);
    const admin = await request(node.url, '/admin/workspaces/%ZZ', { token: ws.token });
    expect([admin.status, admin.body.code]).toEqual([400, 'malformed_path']);
  });

  test('a corrupt gzip body is 400 malformed_body; a good one is read', async () => {
    const corrupt = await post('/external/submissions', 'not gzip at all', { 'Content-Encoding': 'gzip' });
    expect([corrupt.status, corrupt.body.code]).toEqual([400, 'malformed_body']);
    const good = await post('/external/submissions', gzipSync(JSON.stringify(submission)), { 'Content-Encoding': 'gzip' });
    expect(good.status).toBe(201);
  });

  test('what the HTTP parser itself refuses (a malformed request line or header, headers over the limit) is 400 or 431 in the error shape', async () => {
    const { port } = new URL(node.url);
    const raw = (request: string) =>
      new Promise<{ status: number; contentType: string; body: { code?: string; message?: string } }>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => {
          const [head, body] = text.split('\r\n\r\n');
          resolve({ status: Number(head.split(' ')[1]), contentType: /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '', body: JSON.parse(body) });
        });
      });
    for (const request of ['NONSENSE\r\n\r\n', 'GET /external/posts HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']) {
      const answer = await raw(request);
      expect(answer).toEqual({ status: 400, contentType: 'application/json; charset=utf-8', body: { code: 'bad_request', message: expect.any(String) } });
    }
    const huge = await raw(`GET /external/posts HTTP/1.1\r\nHost: x\r\nX-Filler: ${'x'.repeat(20_000)}\r\n\r\n`);
    expect([huge.status, huge.body.code]).toEqual([431, 'headers_too_large']);
  });

  test('an unsupported Content-Encoding or charset is 415', async () => {
    const encoding = await post('/external/submissions', JSON.stringify(submission), { 'Content-Encoding': 'zstd-ish' });
    expect([encoding.status, encoding.body.code]).toEqual([415, 'unsupported_media_type']);
    const charset = await post('/external/submissions', JSON.stringify(submission), { 'Content-Type': 'application/json; charset=klingon' });
    expect([charset.status, charset.body.code]).toEqual([415, 'unsupported_media_type']);
  });
});

describe(`JSON nested deeper than ${JSON_MAX_DEPTH} levels`, () => {
  test(`is refused with 400 before anything is stored; exactly ${JSON_MAX_DEPTH} levels is accepted`, async () => {
    const fixture = await createWorkspace(node.url);
    const send = (depth: number) =>
      fetch(node.url + '/external/submissions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Api-Key': fixture.apiKey },
        // The body object is level 1, `metadata` level 2, then nested arrays.
        body: `{"name":"a","email":"a@example.com","message":"m","metadata":{"deep":${nested(depth - 2)}}}`,
      });
    const atLimit = await send(JSON_MAX_DEPTH);
    expect(atLimit.status).toBe(201);
    const overLimit = await send(JSON_MAX_DEPTH + 1);
    expect(overLimit.status).toBe(400);
    expect(((await overLimit.json()) as { code: string }).code).toBe('json_too_deep');
    const absurd = await send(10_000);
    expect(absurd.status).toBe(400);
    expect(await inboxTotal(fixture)).toBe(1);
    // The stored document comes back, and the operator's workspace list still answers.
    expect((await request(node.url, '/admin/workspaces', { token: operatorToken })).status).toBe(200);
  });

  test('applies to admin free-form JSON too (workspace customConfig)', async () => {
    const fixture = await createWorkspace(node.url);
    const response = await fetch(`${node.url}/admin/workspaces/${fixture.id}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fixture.token}` },
      body: `{"customConfig":{"a":${nested(JSON_MAX_DEPTH - 1)}}}`,
    });
    expect(response.status).toBe(400);
    const workspace = await request(node.url, '/external/workspace', { apiKey: fixture.apiKey });
    expect(workspace.body.customConfig).toBeNull();
  });
});

describe('__proto__ and constructor keys in free-form JSON', () => {
  const tricky = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"a.b":{"$x":[[1]]}}';

  test('round-trip byte for byte and pollute no prototype (submission metadata, workspace customConfig)', async () => {
    const fixture = await createWorkspace(node.url);
    const created = await fetch(node.url + '/external/submissions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': fixture.apiKey },
      body: `{"name":"a","email":"a@example.com","message":"m","metadata":${tricky}}`,
    });
    expect(created.status).toBe(201);
    const inbox = await fetch(`${node.url}/admin/workspaces/${fixture.id}/submissions`, { headers: { Authorization: `Bearer ${fixture.token}` } });
    expect(await inbox.text()).toContain(`"metadata":${tricky}`);

    const patched = await fetch(`${node.url}/admin/workspaces/${fixture.id}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fixture.token}` },
      body: `{"customConfig":${tricky}}`,
    });
    expect(patched.status).toBe(200);
    const workspace = await fetch(`${node.url}/external/workspace`, { headers: { 'X-Api-Key': fixture.apiKey } });
    expect(await workspace.text()).toContain(`"customConfig":${tricky}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** Path segments that have broken servers before; every declared route gets each of them. */
const KNOWN_HOSTILE_SEGMENTS = ['%', '%E0%A4%A', '%ZZ', '%00', '%01', '..', '%2F', '%20', 'a'.repeat(5000), '%E6%97%A5%E6%9C%AC', 'ffffffffffffffffffffffff', '-1', '1e309', '%24where', 'a.b'];

describe('the route table under fuzz', () => {
  const hostileSegment = fc.oneof(fc.string(), fc.constantFrom(...KNOWN_HOSTILE_SEGMENTS));

  test('every route with path parameters or a query, every known hostile segment in each: never 5xx', async () => {
    const fixture = await createWorkspace(node.url);
    const failures: string[] = [];
    for (const def of allRoutes.filter((candidate) => candidate.path.includes(':') || candidate.method === 'get')) {
      for (const segment of KNOWN_HOSTILE_SEGMENTS) {
        const query = def.method === 'get' ? `?${['locale', 'type', 'q', 'page', 'limit', 'after', 'from', 'to', 'status'].map((name) => `${name}=${segment}`).join('&')}` : '';
        const path = def.path.replace(/:(\w+)/g, (_, name: string) => (name === 'wid' ? fixture.id : segment)) + query;
        const response = await fetch(node.url + path, {
          method: def.method.toUpperCase(),
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': fixture.apiKey, Authorization: `Bearer ${fixture.token}` },
          body: def.method === 'get' ? undefined : '{}',
        });
        if (response.status >= 500) failures.push(`${def.method.toUpperCase()} ${path.slice(0, 120)} -> ${response.status}`);
        await response.arrayBuffer();
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  const hostileBody = fc.oneof(
    fc.json().map((text) => ({ raw: text })),
    fc.string().map((text) => ({ raw: text })),
    fc.constantFrom(
      { raw: nested(5000) },
      { raw: '{"a":' },
      { raw: '{"limit":1e309,"page":-0,"count":9007199254740993}' },
      { raw: 'x'.repeat(300 * 1024) },
      { raw: '{"__proto__":{"x":1}}' },
    ),
    fc.dictionary(fc.constantFrom('name', 'email', 'message', 'body', 'visitor', 'requestedAt', 'slug', 'items', 'metadata', 'limit'), fc.anything()).map((value) => ({ raw: JSON.stringify(value) ?? 'null' })),
  );
  const hostileHeaders = fc.record(
    {
      'Content-Type': fc.constantFrom('application/json', 'application/json; charset=utf-16', 'application/json; charset=nope', 'text/plain', 'multipart/form-data; boundary=x', ''),
      'Content-Encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'nope'),
      'X-Api-Key': fc.oneof(fc.constant('valid'), fc.string(), fc.constant('pk_x')),
      Authorization: fc.oneof(fc.constant('valid'), fc.string().map((text) => `Bearer ${text}`)),
    },
    { requiredKeys: [] },
  );
  const query = fc.dictionary(fc.constantFrom('page', 'limit', 'force_limit', 'locale', 'type', 'q', 'from', 'to', 'after', 'status', 'include'), hostileSegment, { maxKeys: 3 });

  test(`no declared route answers 5xx to malformed paths, headers, bodies and numbers (${FUZZ_RUNS} runs)`, async () => {
    const fuzzed = await createWorkspace(node.url);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...allRoutes), fc.array(hostileSegment, { minLength: 4, maxLength: 4 }), hostileHeaders, hostileBody, query, async (def, segments, headers, body, params) => {
        let index = 0;
        const path = def.path.replace(/:(\w+)/g, (_, name: string) => (name === 'wid' && index++ % 2 === 0 ? fuzzed.id : encodeURI(segments[index++ % 4]).replace(/%25/g, '%')));
        const search = new URLSearchParams(params).toString();
        const sent: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers)) {
          const resolved = value === 'valid' ? (name === 'X-Api-Key' ? fuzzed.apiKey : `Bearer ${fuzzed.token}`) : value;
          if (/^[\t\x20-\x7e]*$/.test(resolved)) sent[name] = resolved;
        }
        const method = def.method.toUpperCase();
        const response = await fetch(`${node.url}${path}${search ? `?${search}` : ''}`, {
          method,
          headers: sent,
          body: method === 'GET' ? undefined : body.raw,
        }).catch((error: Error) => ({ status: 0, error }));
        if (!('error' in response)) {
          const text = await response.text();
          if (response.status >= 500) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
          if (response.status >= 400 && response.status !== 405) {
            const parsed = JSON.parse(text) as { code?: unknown; message?: unknown };
            expect(typeof parsed.code).toBe('string');
            expect(typeof parsed.message).toBe('string');
          }
        }
      }),
      // `npm test` replays one fixed sample so a run is repeatable; `npm run fuzz` draws new ones each time.
      { numRuns: FUZZ_RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? undefined : 20261123 },
    );
  }, 600_000);

  test('a refused request stores nothing: only malformed requests against one workspace leave it empty', async () => {
    const target = await createWorkspace(node.url);
    const writes = allRoutes.filter((def) => def.method !== 'get' && def.path.startsWith('/external/'));
    const malformed: { body: string; headers: Record<string, string> }[] = [
      { body: '{"name":', headers: {} },
      { body: 'garbage', headers: { 'Content-Encoding': 'gzip' } },
      { body: `{"name":"a","email":"a@example.com","message":"m","metadata":${nested(JSON_MAX_DEPTH + 2)}}`, headers: {} },
      { body: JSON.stringify(submission), headers: { 'Content-Type': 'application/json; charset=klingon' } },
    ];
    for (const def of writes) {
      for (const attempt of malformed) {
        const path = def.path.replace(/:(\w+)/g, 'x');
        const response = await fetch(node.url + path, {
          method: def.method.toUpperCase(),
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': target.apiKey, ...attempt.headers },
          body: attempt.body,
        });
        expect({ path, status: response.status }).toEqual({ path, status: expect.any(Number) });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
      }
    }
    expect(await inboxTotal(target)).toBe(0);
  });
});
