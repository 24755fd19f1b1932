import { afterAll, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { startReceiver } from './receiver.js';
import { startNodeProcess } from '../support/node-process.js';

const nodes: HearthNode[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;
afterAll(async () => {
  for (const node of nodes) await node.stop().catch(() => undefined);
  await receiver?.stop();
});

test('a worker that dies mid-retry leaves the job locked; a second worker finishes it after the lock expires', async () => {
  receiver = await startReceiver();
  const dbName = uniqueDbName('hooks');
  const env = { WEBHOOK_TIMEOUT_MS: '600', WEBHOOK_RETRY_BASE_MS: '2' };
  const first = await startTestNode({ dbName, env });
  nodes.push(first);
  const ws = await createWorkspace(first.url);
  // The first attempt gets a 500; the retry (an Agenda job) hangs and the worker "dies" while waiting.
  receiver.script('/restart', [500, 'hang', 200]);
  await workspaceStore(first.deps.db).update(ws.id, { webhookUrl: receiver.url('/restart') });
  await first.deps.events.publish({ event: 'navigation.created', workspaceId: ws.id, navigationId: 'n1', key: 'main', name: 'Main', at: new Date().toISOString() });
  await eventually(() => receiver.on('/restart').length === 2);

  // Crash: stop polling without unlocking, and cut the database so nothing of the attempt is recorded.
  first.deps.jobs.abandon();
  await first.deps.db.close(true);

  const second = await startTestNode({ dbName, env: { ...env, NODE_ROLE: 'worker' } });
  nodes.push(second);
  const hits = await eventually(() => (receiver.on('/restart').length >= 3 ? receiver.on('/restart') : undefined), 20_000);
  expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
  expect(hits[2].body).toMatchObject({ event: 'navigation.created', navigationId: 'n1' });
  // Not before the dead worker's lock ran out (lock lifetime: timeout + 4 s).
  expect(hits[2].at - hits[1].at).toBeGreaterThanOrEqual(4_000);

  const delivery = await eventually(async () => {
    const res = await request(second.url, `/admin/workspaces/${ws.id}/webhook-deliveries`, { token: ws.token });
    return res.body.items[0]?.state === 'delivered' ? res.body.items[0] : undefined;
  });
  // The dead worker's hung attempt was never recorded; the second worker's retry delivered it.
  expect(delivery.attempts.map((a: any) => [a.number, a.statusCode, a.outcome])).toEqual([[1, 500, 'retry'], [2, 200, 'delivered']]);
});

/**
 * A worker in a child process whose workspace sends its webhooks to `path` of the receiver (answering after
 * `delayMs`), publishing `count` post events at once; `published()`: the receiver's hits of those events
 * (the workspace's own change may be announced there too).
 */
async function burstingWorker(prefix: string, env: Record<string, string>, path: string, delayMs: number, count: number) {
  receiver ??= await startReceiver();
  const dbName = uniqueDbName(prefix);
  const worker = await startNodeProcess({ dbName, env });
  const ws = await createWorkspace(worker.url);
  const patched = await request(worker.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { webhookUrl: receiver.url(path) } });
  expect(patched.status).toBe(200);
  receiver.script(path, [`delay:${delayMs}`]);
  const published = () => receiver.on(path).filter((hit) => hit.body?.event === 'post.published');
  const publish = () => worker.publish(count, { event: 'post.published', workspaceId: ws.id, postId: 'post-{i}', slug: 'post-{i}', title: 'Post {i}', publishedAt: new Date().toISOString() });
  return { dbName, worker, ws, published, publish };
}

test('a worker killed (SIGKILL) mid-burst loses nothing: the next worker sends what it had not, any repeat with the same Webhook-Id', async () => {
  const env = { WEBHOOK_TIMEOUT_MS: '600', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  const count = 400;
  // Slow answers keep the burst going long enough to kill the worker in the middle of it.
  const { dbName, worker: doomed, published, publish } = await burstingWorker('hooks-kill', env, '/burst', 25, count);
  await publish();
  await eventually(() => published().length >= 40, 20_000);
  await doomed.kill();
  const atKill = new Set(published().map((hit) => hit.body.postId)).size;
  expect(atKill).toBeLessThan(count);

  const successor = await startTestNode({ dbName, env: { ...env, NODE_ROLE: 'worker' } });
  nodes.push(successor);
  await eventually(() => new Set(published().map((hit) => hit.body.postId)).size === count, 40_000);
  const idsByPost = new Map<string, Set<string>>();
  for (const hit of published()) {
    if (!idsByPost.has(hit.body.postId)) idsByPost.set(hit.body.postId, new Set());
    idsByPost.get(hit.body.postId)!.add(String(hit.headers['webhook-id']));
  }
  expect(idsByPost.size).toBe(count);
  for (const ids of idsByPost.values()) expect(ids.size).toBe(1);
}, 90_000);

test('a worker stopped (SIGTERM) mid-burst sends each event once: what it had in flight is answered and recorded before it closes, and a running node sends the rest', async () => {
  // A lease that would outlast the test: the rest goes on only because the stopped node hands it over.
  const env = { WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  const count = 300;
  // Slow answers: a full window of attempts is in flight when the stop comes.
  const { dbName, worker: stopping, ws, published, publish } = await burstingWorker('hooks-stop', env, '/rolling', 300, count);
  const other = await startTestNode({ dbName, env: { ...env, NODE_ROLE: 'worker' } });
  nodes.push(other);
  await publish();
  await eventually(() => published().length >= 40, 30_000);
  await stopping.stop();
  expect(new Set(published().map((hit) => hit.body.postId)).size).toBeLessThan(count);

  await eventually(() => new Set(published().map((hit) => hit.body.postId)).size === count, 40_000);
  const hitsByPost = new Map<string, number>();
  for (const hit of published()) hitsByPost.set(hit.body.postId, (hitsByPost.get(hit.body.postId) ?? 0) + 1);
  expect([...hitsByPost.values()].filter((hits) => hits > 1)).toEqual([]);
  // And the delivery log holds every one of them, none left pending.
  const records = other.deps.db.collection('webhook_deliveries');
  await eventually(async () => (await records.countDocuments({ workspaceId: new Types.ObjectId(ws.id), event: 'post.published' })) === count, 10_000);
  expect(await other.deps.db.collection('webhook_pending').countDocuments({})).toBe(0);
}, 120_000);

test('a worker stopped while its dispatch runs as a job: the job keeps its next run, and another worker sends the rest soon, each once', async () => {
  // A lease that would outlast the test: the rest goes on only because the stopped worker hands it over. Four in
  // flight (13 a second against the receiver's 300 ms): the burst outlasts the second worker's start on a busy machine.
  const env = { WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CONCURRENCY_PER_WORKSPACE: '4' };
  const count = 200;
  receiver ??= await startReceiver();
  const dbName = uniqueDbName('hooks-job-stop');
  // An API-only node dispatches nothing itself: what it records is due at once as the workspace's dispatch job.
  const api = await startTestNode({ dbName, env: { ...env, NODE_ROLE: 'api' } });
  nodes.push(api);
  const ws = await createWorkspace(api.url);
  await workspaceStore(api.deps.db).update(ws.id, { webhookUrl: receiver.url('/job-stop') });
  receiver.script('/job-stop', ['delay:300']);
  const published = () => receiver.on('/job-stop').filter((hit) => hit.body?.event === 'post.published');
  const sent = () => new Set(published().map((hit) => hit.body.postId)).size;
  const at = new Date().toISOString();
  await Promise.all(
    Array.from({ length: count }, (_, i) => api.deps.events.publish({ event: 'post.published', workspaceId: ws.id, postId: `post-${i}`, slug: `post-${i}`, title: `Post ${i}`, publishedAt: at, at })),
  );
  const stopping = await startTestNode({ dbName, env: { ...env, NODE_ROLE: 'worker' } });
  await eventually(() => published().length >= 40, 30_000);
  const other = await startTestNode({ dbName, env: { ...env, NODE_ROLE: 'worker' } });
  nodes.push(other);
  await stopping.stop();
  expect(sent()).toBeLessThan(count);

  // Well before the stopped worker's lease (64 s) would have run out.
  await eventually(() => sent() === count, 40_000);
  const hitsByPost = new Map<string, number>();
  for (const hit of published()) hitsByPost.set(hit.body.postId, (hitsByPost.get(hit.body.postId) ?? 0) + 1);
  expect([...hitsByPost.values()].filter((hits) => hits > 1)).toEqual([]);
}, 90_000);
