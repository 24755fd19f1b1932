import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName } from '../support/harness.js';
import { startRedis, type RunningService } from '../support/services.js';
import type { HearthNode } from '../../src/app/node.js';
import { activateChat, startChat } from './support.js';

/**
 * The flood guard (20 visitor messages per conversation per minute) is one bound for the whole cluster.
 * Counting per node while Redis is away would let a visitor send 20 through each node, so visitor posts
 * fail closed (503 `flood_guard_unavailable`, Retry-After) until the shared count is back.
 */

// Two nodes on one database and a private Redis this file may stop and restart.
let redis: RunningService;
let a: HearthNode;
let b: HearthNode;
beforeAll(async () => {
  redis = await startRedis();
  const dbName = uniqueDbName('flood');
  // The generic per-credential limiter is not under test here.
  const env = { RATE_LIMIT_PER_MINUTE: '10000' };
  a = await startTestNode({ redis: redis.url, dbName, env });
  b = await startTestNode({ redis: redis.url, dbName, env });
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

const post = (node: HearthNode, token: string, body: string) => request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body } });
const ready = async (node: HearthNode) => (await request(node.url, '/readyz')).status === 200;

test('during a Redis outage visitor posts answer 503 with Retry-After on every node; after it the 20/min bound holds across both', async () => {
  const ws = await createWorkspace(a.url);
  const key = await activateChat(a.url, ws);
  const before = (await startChat(a.url, key)).body.conversationToken as string;
  expect((await post(a, before, 'before the outage')).status).toBe(201);

  await redis.stop();
  try {
    await eventually(async () => !(await ready(a)) && !(await ready(b)), 10_000);

    // 21 attempts through each node: with per-node counting 40 of them would be accepted; none is.
    for (const node of [a, b]) {
      for (let i = 0; i < 21; i += 1) {
        const res = await post(node, before, `during the outage ${i}`);
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('flood_guard_unavailable');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    // The team's replies are not flood-guarded and keep working on a node without Redis.
    const cid = (await request(a.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token })).body.items[0].id as string;
    expect((await request(b.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body: 'we are here' } })).status).toBe(201);
  } finally {
    // Also when an assertion failed: the nodes only shut down cleanly once reconnected to their Redis.
    redis = await startRedis(redis.port);
    await eventually(async () => (await ready(a)) && (await ready(b)), 20_000, 100);
  }
  expect((await post(a, before, 'after the outage, A')).status).toBe(201);
  expect((await post(b, before, 'after the outage, B')).status).toBe(201);
  const stored = await request(a.url, `/external/live-chat/conversations/${before}/messages`);
  expect(stored.body.messages.map((m: { body: string }) => m.body)).toEqual(['before the outage', 'we are here', 'after the outage, A', 'after the outage, B']);

  // A fresh conversation (the restarted Redis forgot its counts): 20 through alternating nodes pass,
  // the 21st is refused whichever node takes it.
  const token = (await startChat(b.url, key, { visitorSessionId: 'sess-2' })).body.conversationToken as string;
  for (let i = 1; i <= 20; i += 1) expect((await post(i % 2 ? a : b, token, `m${i}`)).status).toBe(201);
  for (const node of [a, b]) {
    const flooded = await post(node, token, 'one too many');
    expect(flooded.status).toBe(409);
    expect(flooded.body.code).toBe('flood_limited');
  }
}, 90_000);
