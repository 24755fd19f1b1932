import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { startReceiver, type Behaviour } from './receiver.js';
import { deliveryStore } from '../../src/webhooks/webhooks.model.js';
import { RETRY_JOB } from '../../src/webhooks/webhooks.schedule.js';
import { newDelivery } from '../../src/webhooks/webhooks.sealing.js';

const BASE_MS = 2;
let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let pathCounter = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  node = await startTestNode({ env: { WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_TIMEOUT_MS: '400' } });
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
});

/** A workspace whose webhook points at a fresh receiver path (set in storage: no `workspace.updated` noise). */
async function hookedWorkspace(behaviours: Behaviour[] = [200]) {
  const ws = await createWorkspace(node.url);
  const path = `/hook-${++pathCounter}`;
  receiver.script(path, behaviours);
  await workspaceStore(node.deps.db).update(ws.id, { webhookUrl: receiver.url(path) });
  return { ws, path };
}

const publishPost = (ws: WorkspaceFixture, n: number, event: 'post.published' | 'post.unpublished' = 'post.published') =>
  node.deps.events.publish({
    event,
    workspaceId: ws.id,
    postId: `post${n}`,
    slug: `post-${n}`,
    title: `Post ${n}`,
    publishedAt: event === 'post.published' ? '2025-01-02T03:04:05.000Z' : null,
    at: new Date().toISOString(),
  });

async function deliveries(ws: WorkspaceFixture, query = '') {
  const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries${query}`, { token: ws.token });
  expect(res.status).toBe(200);
  return res.body.items as any[];
}

async function settled(ws: WorkspaceFixture, count = 1, timeoutMs = 10_000) {
  return eventually(async () => {
    const items = await deliveries(ws);
    return items.length >= count && items.every((d) => d.state === 'delivered' || d.state === 'failed') ? items : undefined;
  }, timeoutMs);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('PATCH of the workspace sends workspace.updated: POST, JSON, user agent, ids, signature, secret in the query', async () => {
  const ws = await createWorkspace(node.url);
  const path = `/hook-${++pathCounter}`;
  const patched = await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { webhookUrl: receiver.url(path, 'top secret') } });
  expect(patched.status).toBe(200);
  // Stored before the PATCH answered.
  expect(await deliveries(ws)).toHaveLength(1);

  const [got] = await eventually(() => (receiver.on(path).length ? receiver.on(path) : undefined));
  expect(got.method).toBe('POST');
  expect(got.query.get('secret')).toBe('top secret');
  expect(got.headers['content-type']).toBe('application/json');
  expect(got.headers['user-agent']).toBe('Service-Notifier/1');
  expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
  expect(got.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
  const expected = createHmac('sha256', 'top secret').update(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.raw}`).digest('base64');
  expect(got.headers['webhook-signature']).toBe(`v1,${expected}`);
  expect(Object.keys(got.body).sort()).toEqual(['at', 'event', 'workspaceId']);
  expect(got.body).toMatchObject({ event: 'workspace.updated', workspaceId: ws.id });
  expect(new Date(got.body.at).toISOString()).toBe(got.body.at);

  const [delivery] = await settled(ws);
  expect(delivery).toMatchObject({ event: 'workspace.updated', state: 'delivered', webhookId: got.headers['webhook-id'] });
  expect(delivery.url).toContain('secret=***');
  expect(delivery.url).not.toContain('top');
  expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: 200, error: null, outcome: 'delivered' })]);
});

test('post and navigation events carry the payload fields of the spec', async () => {
  const { ws, path } = await hookedWorkspace();
  await publishPost(ws, 1);
  await publishPost(ws, 2, 'post.unpublished');
  await node.deps.events.publish({ event: 'navigation.items.replaced', workspaceId: ws.id, navigationId: 'nav1', key: 'main', name: 'Main', at: new Date().toISOString() });
  const got = await eventually(() => (receiver.on(path).length === 3 ? receiver.on(path) : undefined));
  expect(got[0].body).toEqual({ event: 'post.published', workspaceId: ws.id, postId: 'post1', slug: 'post-1', title: 'Post 1', publishedAt: '2025-01-02T03:04:05.000Z', at: expect.any(String) });
  expect(got[1].body).toEqual({ event: 'post.unpublished', workspaceId: ws.id, postId: 'post2', slug: 'post-2', title: 'Post 2', publishedAt: null, at: expect.any(String) });
  expect(got[2].body).toEqual({ event: 'navigation.items.replaced', workspaceId: ws.id, navigationId: 'nav1', key: 'main', name: 'Main', at: expect.any(String) });
  expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(3);
});

test('a workspace without a webhook URL gets no delivery', async () => {
  const ws = await createWorkspace(node.url);
  await publishPost(ws, 1);
  expect(await deliveries(ws)).toEqual([]);
});

for (const status of [400, 401, 404] as const) {
  test(`a ${status} answer is final: one attempt, never retried`, async () => {
    const { ws, path } = await hookedWorkspace([status]);
    await publishPost(ws, 1);
    const [delivery] = await settled(ws);
    expect(delivery.state).toBe('failed');
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: status, outcome: 'rejected' })]);
    expect(delivery.finalReason).toContain(`${status}`);
    expect(delivery.finalReason).toContain('not retried');
    await pause(300); // 150 × the first retry wait
    expect(receiver.on(path)).toHaveLength(1);
  });
}

test('5xx is retried with growing waits up to 6 attempts in all, then the delivery fails', async () => {
  const { ws, path } = await hookedWorkspace([500, 502, 503, 500, 504, 500, 200]);
  await publishPost(ws, 1);
  const [delivery] = await settled(ws, 1, 20_000);
  expect(delivery.state).toBe('failed');
  expect(delivery.finalReason).toMatch(/gave up after 6 attempts/);
  expect(delivery.attempts.map((a: any) => a.statusCode)).toEqual([500, 502, 503, 500, 504, 500]);
  expect(delivery.attempts.map((a: any) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry', 'exhausted']);
  const hits = receiver.on(path);
  expect(hits).toHaveLength(6);
  expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
  // Wait before retry n is at least 0.8 × base × 6^(n-1) (jitter ±20%).
  for (let n = 1; n <= 5; n++) {
    expect(hits[n].at - hits[n - 1].at).toBeGreaterThanOrEqual(Math.floor(0.8 * BASE_MS * 6 ** (n - 1)));
  }
  expect(hits[5].at - hits[4].at).toBeGreaterThanOrEqual(2000);
  await pause(200);
  expect(receiver.on(path)).toHaveLength(6);
});

test("429 is retried and a longer Retry-After replaces the computed wait", async () => {
  const { ws, path } = await hookedWorkspace(['429:1', 200]);
  await publishPost(ws, 1);
  const [delivery] = await settled(ws);
  expect(delivery.state).toBe('delivered');
  expect(delivery.attempts.map((a: any) => [a.statusCode, a.outcome])).toEqual([[429, 'retry'], [200, 'delivered']]);
  const hits = receiver.on(path);
  expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(1000);
});

test('a receiver that hangs past the timeout is retried; the attempt records the timeout', async () => {
  const { ws } = await hookedWorkspace(['hang', 200]);
  await publishPost(ws, 1);
  const [delivery] = await settled(ws);
  expect(delivery.state).toBe('delivered');
  expect(delivery.attempts[0]).toMatchObject({ statusCode: null, outcome: 'retry', error: 'timeout after 400 ms' });
  expect(delivery.attempts[0].durationMs).toBeGreaterThanOrEqual(390);
  expect(delivery.attempts[1]).toMatchObject({ statusCode: 200, outcome: 'delivered' });
});

test('a closed connection is retried; the attempt records the connection error', async () => {
  const { ws } = await hookedWorkspace(['close', 200]);
  await publishPost(ws, 1);
  const [delivery] = await settled(ws);
  expect(delivery.state).toBe('delivered');
  expect(delivery.attempts[0]).toMatchObject({ statusCode: null, outcome: 'retry' });
  expect(delivery.attempts[0].error).toMatch(/ECONNRESET|socket hang up/);
});

test("first attempts follow the workspace's event order, even when an earlier one is being retried", async () => {
  const { ws, path } = await hookedWorkspace([500, 200]);
  for (let n = 1; n <= 8; n++) await publishPost(ws, n);
  await settled(ws, 8);
  const firsts: string[] = [];
  for (const hit of receiver.on(path)) if (!firsts.includes(hit.body.postId)) firsts.push(hit.body.postId);
  // First attempts are in flight together (started in event order, so they may arrive in any order): all 8
  // went out although the first one got a 500 and is being retried.
  expect([...firsts].sort()).toEqual(['post1', 'post2', 'post3', 'post4', 'post5', 'post6', 'post7', 'post8']);
  expect(receiver.on(path)).toHaveLength(9);
});

test('retries of a workspace share one job; a retry job left by a version with one job per delivery is adopted', async () => {
  const { ws, path } = await hookedWorkspace([500, 500, 500, 200]);
  for (let n = 1; n <= 3; n++) await publishPost(ws, n);
  const done = await settled(ws, 3);
  expect(done.map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered']);
  const jobs = node.deps.db.db!.collection('jobs');
  expect(await jobs.countDocuments({ name: RETRY_JOB, 'data.workspaceId': ws.id })).toBe(1);
  expect(await jobs.countDocuments({ name: RETRY_JOB, 'data.deliveryId': { $exists: true } })).toBe(0);

  // An older version's job names only its delivery: the delivery is retried by its workspace's dispatcher.
  const store = deliveryStore(node.deps.db);
  const left = newDelivery(node.deps, ws.id, { event: 'post.published', webhookId: 'msg_left', payload: { event: 'post.published' }, url: receiver.url(path), state: 'scheduled', nextAttemptAt: new Date() });
  await store.create(left);
  await node.deps.jobs.enqueue(RETRY_JOB, { deliveryId: left.id });
  await eventually(async () => (await store.byId(left.id))?.state === 'delivered', 10_000);
  await eventually(async () => (await jobs.countDocuments({ name: RETRY_JOB, 'data.deliveryId': left.id })) === 0);
});

test('a retry job a failed run left unscheduled is scheduled again by the next retry', async () => {
  const { ws, path } = await hookedWorkspace([500, 200]);
  await publishPost(ws, 1);
  await settled(ws, 1);
  // What Agenda leaves of a run that failed (its lock lapsed, say): no next run, no lock.
  const jobs = node.deps.db.db!.collection('jobs');
  await jobs.updateOne({ name: RETRY_JOB, 'data.workspaceId': ws.id }, { $set: { nextRunAt: null, lockedAt: null } });
  receiver.script(path, [500, 200]);
  await publishPost(ws, 2);
  const done = await settled(ws, 2);
  expect(done.map((d) => [d.payload.postId, d.state, d.attempts.length])).toEqual([
    ['post2', 'delivered', 2],
    ['post1', 'delivered', 2],
  ]);
});

test('redeliver sends the same event again with the same Webhook-Id; unknown or foreign ids are 404', async () => {
  const { ws, path } = await hookedWorkspace([400, 200]);
  await publishPost(ws, 1);
  const [failed] = await settled(ws);
  expect(failed.state).toBe('failed');
  const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries/${failed.id}/redeliver`, { method: 'POST', token: ws.token });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ event: 'post.published', webhookId: failed.webhookId, redeliveryOf: failed.id, state: 'scheduled' });
  const items = await settled(ws, 2);
  expect(items[0]).toMatchObject({ id: res.body.id, state: 'delivered' });
  expect(items[1]).toMatchObject({ id: failed.id, state: 'failed' });
  expect(receiver.on(path)[1].headers['webhook-id']).toBe(failed.webhookId);

  const other = await createWorkspace(node.url);
  for (const [wsx, did] of [[ws, '0123456789abcdef01234567'], [ws, 'nope'], [other, failed.id]] as const) {
    const miss = await request(node.url, `/admin/workspaces/${wsx.id}/webhook-deliveries/${did}/redeliver`, { method: 'POST', token: wsx.token });
    expect(miss.status).toBe(404);
  }
  expect(await deliveries(other)).toEqual([]);
});

test('the delivery list pages with limit 1..100', async () => {
  const { ws } = await hookedWorkspace();
  for (let n = 1; n <= 3; n++) await publishPost(ws, n);
  const first = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries?limit=2`, { token: ws.token });
  expect(first.body.items.map((d: any) => d.payload.postId)).toEqual(['post3', 'post2']);
  const second = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries?limit=2&before=${first.body.nextBefore}`, { token: ws.token });
  expect(second.body.items.map((d: any) => d.payload.postId)).toEqual(['post1']);
  expect(second.body.nextBefore).toBeNull();
  expect((await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries?limit=100`, { token: ws.token })).status).toBe(200);
  for (const bad of ['limit=101', 'limit=0', 'before=xyz']) {
    expect((await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries?${bad}`, { token: ws.token })).status).toBe(400);
  }
});

test('the delivery log shows every delivery while first attempts finish: none drops out between pending and done', async () => {
  const { ws } = await hookedWorkspace(Array.from({ length: 80 }, (_, n) => `delay:${(n % 8) * 5}` as const));
  // Events in waves, each stored before its publish resolves; the log is read all the while: each read
  // must show at least every delivery stored before it started.
  let stored = 0;
  const publishing = (async () => {
    for (let wave = 0; wave < 40; wave += 1) {
      await Promise.all([publishPost(ws, 2 * wave), publishPost(ws, 2 * wave + 1)]);
      stored += 2;
      await pause(15);
    }
  })();
  let reads = 0;
  for (let done = false; !done; reads += 1) {
    done = stored === 80;
    const before = stored;
    expect((await deliveries(ws, '?limit=100')).length).toBeGreaterThanOrEqual(before);
  }
  await publishing;
  expect(reads).toBeGreaterThan(10);
  await eventually(async () => (await deliveries(ws, '?limit=100')).every((delivery) => delivery.state === 'delivered'));
});
