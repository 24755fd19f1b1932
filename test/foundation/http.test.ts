import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { pino } from 'pino';
import { createWorkspace, OPERATOR, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { route } from '../../src/http/route.js';
import { allRoutes } from '../../src/app/routes.js';
import { startRedis } from '../support/services.js';

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(chunk.toString());
    done();
  },
});

// Routes only this file uses: a slow one (for graceful shutdown) and a token-in-path one (for log redaction).
const testRoutes = [
  route({
    method: 'get',
    path: '/external/test/slow',
    summary: 'test probe',
    tags: ['test'],
    auth: 'none',
    responses: { 200: { description: 'ok' } },
    handle: async () => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return { body: { finished: true } };
    },
  }),
  route({
    method: 'post',
    path: '/external/test/echo',
    summary: 'test probe',
    tags: ['test'],
    auth: 'none',
    responses: { 200: { description: 'ok' } },
    handle: async ({ req }) => ({ body: { length: JSON.stringify(req.body).length } }),
  }),
];

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({
    env: { RATE_LIMIT_PER_MINUTE: '1000', LOG_LEVEL: 'info' },
    logger: pino({ level: 'info' }, logStream),
    app: { routes: [...allRoutes, ...testRoutes] },
  });
});
afterAll(async () => {
  await node.stop();
});

const corsOf = (headers: Headers) => ({
  origin: headers.get('access-control-allow-origin'),
  allowHeaders: headers.get('access-control-allow-headers'),
});

describe('CORS on /external', () => {
  test('on 200, 401 and 404 answers alike', async () => {
    const ws = await createWorkspace(node.url);
    for (const res of [
      await request(node.url, '/external/workspace', { apiKey: ws.apiKey }),
      await request(node.url, '/external/workspace'),
      await request(node.url, '/external/no-such-route', { apiKey: ws.apiKey }),
    ]) {
      expect(corsOf(res.headers)).toEqual({ origin: '*', allowHeaders: 'Content-Type, X-Api-Key, X-Publishable-Key' });
    }
  });

  test('preflights answer 204 with the allowed headers', async () => {
    const res = await request(node.url, '/external/posts', {
      method: 'OPTIONS',
      headers: { Origin: 'https://site.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
    });
    expect(res.status).toBe(204);
    expect(corsOf(res.headers)).toEqual({ origin: '*', allowHeaders: 'Content-Type, X-Api-Key, X-Publishable-Key' });
  });
});

describe('errors are JSON in the spec shape', () => {
  test('an unknown /external route is 404 JSON', async () => {
    const res = await request(node.url, '/external/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({ code: 'route_not_found', message: expect.any(String) });
  });

  test('malformed JSON is 400 malformed_json, never a stack trace', async () => {
    const res = await request(node.url, '/admin/auth/login', { rawBody: '{"email": "a@b.c", ' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'malformed_json', message: expect.any(String) });
    expect(res.text).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  test('a body at the 256 KB limit passes; one byte more is 413', async () => {
    const limit = 256 * 1024;
    const envelope = JSON.stringify({ pad: '' }).length;
    const atLimit = await request(node.url, '/external/test/echo', { rawBody: JSON.stringify({ pad: 'x'.repeat(limit - envelope) }) });
    expect(atLimit.status).toBe(200);
    const over = await request(node.url, '/external/test/echo', { rawBody: JSON.stringify({ pad: 'x'.repeat(limit - envelope + 1) }) });
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ code: 'payload_too_large', message: expect.any(String) });
    expect(corsOf(over.headers).origin).toBe('*');
  });

  test('answers carry a request id: a new one per request, or the caller\'s when it is a sane token', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, async () => (await request(node.url, '/healthz')).headers.get('x-request-id')));
    for (const id of ids) expect(id).toMatch(/^[\w.-]{1,64}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const echoed = await request(node.url, '/healthz', { headers: { 'X-Request-Id': 'trace.42-a_b' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace.42-a_b');
    for (const unfit of ['has space', 'x'.repeat(65), 'semi;colon']) {
      const replaced = await request(node.url, '/healthz', { headers: { 'X-Request-Id': unfit } });
      expect(replaced.headers.get('x-request-id')).not.toBe(unfit);
      expect(replaced.headers.get('x-request-id')).toMatch(/^[\w.-]{1,64}$/);
    }
  });
});

describe('health', () => {
  test('healthz and readyz answer', async () => {
    expect((await request(node.url, '/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(node.url, '/readyz')).body).toEqual({ status: 'ready', mongodb: 'up', redis: 'disabled' });
  });

  test('readyz reports Redis down with 503, and ready again once it is back', async () => {
    const redis = await startRedis();
    const withRedis = await startTestNode({ redis: redis.url });
    try {
      expect((await request(withRedis.url, '/readyz')).body.redis).toBe('up');
      await redis.stop();
      const down = await request(withRedis.url, '/readyz');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ status: 'degraded', mongodb: 'up', redis: 'down' });
      const again = await startRedis(redis.port);
      try {
        const deadline = Date.now() + 10_000;
        let status = 0;
        while (Date.now() < deadline && status !== 200) {
          status = (await request(withRedis.url, '/readyz')).status;
          if (status !== 200) await new Promise((r) => setTimeout(r, 100));
        }
        expect(status).toBe(200);
      } finally {
        await withRedis.stop();
        await again.stop();
      }
    } finally {
      await redis.stop();
    }
  });
});

describe('logs', () => {
  test('one line per request with a request id; keys, tokens and passwords never appear', async () => {
    const ws = await createWorkspace(node.url);
    logLines.length = 0;
    await request(node.url, '/external/workspace', { apiKey: ws.apiKey });
    await request(node.url, '/external/workspace?publishableKey=pk_secretvalue123');
    await request(node.url, '/external/live-chat/conversations/conv-secret-token/messages');
    await request(node.url, '/admin/auth/login', { body: { email: OPERATOR.email, password: OPERATOR.password } });
    const all = logLines.join('\n');
    expect(all).not.toContain(ws.apiKey);
    expect(all).not.toContain('pk_secretvalue123');
    expect(all).not.toContain('conv-secret-token');
    expect(all).not.toContain(OPERATOR.password);
    const completed = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.res);
    expect(completed.length).toBeGreaterThanOrEqual(4);
    for (const entry of completed) expect(entry.req.id).toEqual(expect.any(String));
  });
});

describe('rate limits', () => {
  test('the credential over its per-minute budget gets 429 with Retry-After and RateLimit headers', async () => {
    const limited = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const ws = await createWorkspace(limited.url);
      for (let i = 1; i <= 5; i += 1) {
        const res = await request(limited.url, '/external/workspace', { apiKey: ws.apiKey });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe('5');
        expect(res.headers.get('ratelimit-remaining')).toBe(String(5 - i));
      }
      const over = await request(limited.url, '/external/workspace', { apiKey: ws.apiKey });
      expect(over.status).toBe(429);
      expect(over.body.code).toBe('rate_limited');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(over.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      expect(over.headers.get('access-control-allow-origin')).toBe('*');
      // Another credential has its own budget.
      const other = await createWorkspace(limited.url);
      expect((await request(limited.url, '/external/workspace', { apiKey: other.apiKey })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  test('with Redis the budget is shared by all nodes', async () => {
    const dbName = uniqueDbName();
    const a = await startTestNode({ dbName, redis: true, env: { RATE_LIMIT_PER_MINUTE: '4' } });
    const b = await startTestNode({ dbName, redis: true, env: { RATE_LIMIT_PER_MINUTE: '4' } });
    try {
      const ws = await createWorkspace(a.url);
      const statuses = [];
      for (const target of [a, b, a, b, a]) statuses.push((await request(target.url, '/external/workspace', { apiKey: ws.apiKey })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      expect((await request(b.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(429);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  test('random keys do not escape the limit: unknown keys are counted per address, 429 past the bound', async () => {
    const guarded = await startTestNode({ env: { AUTH_FAILURES_PER_MINUTE: '5', RATE_LIMIT_PER_MINUTE: '1000' } });
    try {
      await createWorkspace(guarded.url);
      const statuses = [];
      for (let i = 0; i < 6; i += 1) {
        statuses.push((await request(guarded.url, '/external/workspace', { apiKey: `sk_guess${i}${'x'.repeat(40)}` })).status);
      }
      // Exactly the bound (5 failures) answers 401; the next guess is refused before its key is looked up.
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      const refused = await request(guarded.url, '/external/workspace', { apiKey: `sk_another${'y'.repeat(40)}` });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Missing keys and keys of the wrong kind are not guesses of a key.
      expect((await request(guarded.url, '/external/posts', { publishableKey: 'pk_wrongkind' })).status).toBe(401);
    } finally {
      await guarded.stop();
    }
  });

  test('one stale key sent again and again is one wrong key: 401 each time, no database work, counted once against the address', async () => {
    // An `api` node: no job polling, so every driver command it sends belongs to a request.
    const guarded = await startTestNode({ env: { AUTH_FAILURES_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '1000', NODE_ROLE: 'api' } });
    try {
      const ws = await createWorkspace(guarded.url);
      const stale = `sk_stale${'s'.repeat(40)}`;
      expect((await request(guarded.url, '/external/workspace', { apiKey: stale })).status).toBe(401);
      const commands: string[] = [];
      const client = guarded.deps.db.getClient();
      const listen = (event: { commandName: string }) => commands.push(event.commandName);
      client.on('commandStarted', listen);
      const statuses = [];
      for (let i = 0; i < 20; i += 1) statuses.push((await request(guarded.url, '/external/workspace', { apiKey: stale })).status);
      client.off('commandStarted', listen);
      expect(statuses).toEqual(Array(20).fill(401));
      expect(commands).toEqual([]);
      // The same for an unknown publishable key on the config route: enabled false every time.
      for (let i = 0; i < 5; i += 1) expect((await request(guarded.url, '/external/live-chat/config', { publishableKey: `pk_stale${'p'.repeat(40)}` })).body).toEqual({ enabled: false });
      // The address's own key still works; distinct guesses still reach the bound (stale keys: 2 of 3).
      expect((await request(guarded.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(200);
      expect((await request(guarded.url, '/external/workspace', { apiKey: `sk_guess${'g'.repeat(40)}` })).status).toBe(401);
      expect((await request(guarded.url, '/external/workspace', { apiKey: `sk_again${'a'.repeat(40)}` })).status).toBe(429);
    } finally {
      await guarded.stop();
    }
  });

  test('the limit counts the resolved credential, not the raw header: one key in either header shares one budget', async () => {
    const limited = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const ws = await createWorkspace(limited.url);
      const statuses = [];
      statuses.push((await request(limited.url, '/external/workspace', { apiKey: ws.apiKey })).status);
      statuses.push((await request(limited.url, '/external/workspace', { headers: { 'X-Api-Key': ` ${ws.apiKey} ` } })).status);
      statuses.push((await request(limited.url, '/external/workspace', { apiKey: ws.apiKey })).status);
      statuses.push((await request(limited.url, '/external/workspace', { headers: { 'X-Api-Key': `${ws.apiKey}  ` } })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.stop();
    }
  });

  test('repeated failed logins are 429 even with the right password afterwards', async () => {
    const limited = await startTestNode({ env: { LOGIN_MAX_FAILURES: '3' } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push((await request(limited.url, '/admin/auth/login', { body: { email: OPERATOR.email, password: 'wrong-password' } })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.stop();
    }
  });
});

describe('graceful shutdown', () => {
  test('an in-flight request finishes; new connections are refused', async () => {
    const dying = await startTestNode({ app: { routes: [...allRoutes, ...testRoutes] } });
    const inFlight = request(dying.url, '/external/test/slow');
    await new Promise((r) => setTimeout(r, 100));
    const stopped = dying.stop();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ finished: true });
    await stopped;
    await expect(fetch(`${dying.url}/healthz`)).rejects.toThrow();
  });
});
