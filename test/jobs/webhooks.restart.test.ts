import { afterAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { startReceiver } from './receiver.js';

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
