import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { pino } from 'pino';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { startServices } from '../support/service-harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { deliveryStore } from '../../src/webhooks/webhooks.model.js';
import type { Delivery } from '../../src/webhooks/delivery.js';
import { PRUNE_JOB } from '../../src/webhooks/webhooks.schedule.js';
import { pruneDeliveries } from '../../src/webhooks/webhooks.prune.js';
import { newDelivery } from '../../src/webhooks/webhooks.sealing.js';
import { startReceiver, type Behaviour } from './receiver.js';

const SECRET = 'pipeline-secret-42';
const logLines: string[] = [];
let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let pathCounter = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  node = await startTestNode({
    env: { WEBHOOK_RETRY_BASE_MS: '2', WEBHOOK_TIMEOUT_MS: '1500', LOG_LEVEL: 'debug' },
    logger: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }),
  });
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
});

async function hookedWorkspace(behaviours: Behaviour[] = [200], secret = 's3cret') {
  const ws = await createWorkspace(node.url);
  const path = `/pipe-${++pathCounter}`;
  receiver.script(path, behaviours);
  await workspaceStore(node.deps.db).update(ws.id, { webhookUrl: receiver.url(path, secret) });
  return { ws, path };
}

const publish = (ws: WorkspaceFixture, n: number) =>
  node.deps.events.publish({ event: 'post.published', workspaceId: ws.id, postId: `post${n}`, slug: `post-${n}`, title: `Post ${n}`, publishedAt: null, at: new Date().toISOString() });

/** Post numbers in the order their first attempt reached the receiver. */
function firstArrivals(path: string): number[] {
  const order: number[] = [];
  for (const hit of receiver.on(path)) {
    const n = Number(String(hit.body.postId).slice(4));
    if (!order.includes(n)) order.push(n);
  }
  return order;
}

async function allDeliveries(ws: WorkspaceFixture): Promise<any[]> {
  const items: any[] = [];
  let before = '';
  for (;;) {
    const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries?limit=100${before}`, { token: ws.token });
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    if (!res.body.nextBefore) return items;
    before = `&before=${res.body.nextBefore}`;
  }
}

describe('first attempts of one workspace', () => {
  /** The window: WEBHOOK_CONCURRENCY_PER_WORKSPACE at its default. */
  const WINDOW = 16;
  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  test('the default window is 16', () => {
    expect(node.deps.config.WEBHOOK_CONCURRENCY_PER_WORKSPACE).toBe(WINDOW);
  });

  test('up to the window are in flight at once, the oldest events first; the next start only when a slot frees', async () => {
    const { ws, path } = await hookedWorkspace(['hang']);
    for (let n = 1; n <= WINDOW + 4; n++) await publish(ws, n);
    await eventually(() => receiver.on(path).length >= WINDOW);
    await new Promise((r) => setTimeout(r, 500));
    // The receiver holds all of them: no further first attempt may start (timeout 1.5 s).
    expect(receiver.on(path)).toHaveLength(WINDOW);
    expect(firstArrivals(path).sort((a, b) => a - b)).toEqual(upTo(WINDOW));
    // Once those time out, the remaining four go out.
    await eventually(() => firstArrivals(path).length === WINDOW + 4, 10_000);
    expect(firstArrivals(path).slice(WINDOW).sort((a, b) => a - b)).toEqual([1, 2, 3, 4].map((n) => WINDOW + n));
  });

  test('are started in event order: event j reaches the receiver only after at least j minus the window earlier events did', async () => {
    const { ws, path } = await hookedWorkspace([200]);
    for (let n = 1; n <= 60; n++) await publish(ws, n);
    await eventually(() => firstArrivals(path).length === 60, 15_000);
    const order = firstArrivals(path);
    for (let j = 1; j <= 60; j++) {
      const earlierBefore = order.slice(0, order.indexOf(j)).filter((k) => k < j).length;
      expect([j, earlierBefore >= j - WINDOW]).toEqual([j, true]);
    }
  });

  test('a burst of 300 publishes is delivered, each exactly once, and every delivery is recorded', async () => {
    const { ws, path } = await hookedWorkspace([200]);
    await Promise.all(Array.from({ length: 300 }, (_, i) => publish(ws, i + 1)));
    await eventually(() => receiver.on(path).length >= 300, 30_000);
    const items = await eventually(async () => {
      const all = await allDeliveries(ws);
      return all.length === 300 && all.every((d) => d.state === 'delivered') ? all : undefined;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const hits = receiver.on(path);
    expect(hits).toHaveLength(300);
    expect(new Set(hits.map((h) => h.body.postId)).size).toBe(300);
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(300);
    expect(new Set(items.map((d) => d.webhookId))).toEqual(new Set(hits.map((h) => h.headers['webhook-id'])));
    expect(items.every((d) => d.attempts.length === 1 && d.attempts[0].outcome === 'delivered')).toBe(true);
  });
});

describe('the webhook secret', () => {
  test('is sent and signs the POST, but is masked in the admin list, in storage and in the log lines', async () => {
    const { ws, path } = await hookedWorkspace([500, 200], SECRET);
    await publish(ws, 1);
    // Visible (masked) while still pending, before any attempt.
    const [pending] = await allDeliveries(ws);
    expect(pending.url).toContain('secret=***');
    const [delivered] = await eventually(async () => {
      const items = await allDeliveries(ws);
      return items[0]?.state === 'delivered' ? items : undefined;
    }, 10_000);
    expect(delivered.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
    expect(delivered.url).toBe(`http://127.0.0.1:${receiver.port}${path}?secret=***`);
    const hits = receiver.on(path);
    expect(hits.map((h) => h.query.get('secret'))).toEqual([SECRET, SECRET]);
    expect(hits[0].headers['webhook-signature']).toMatch(/^v1,/);

    const stored = await node.deps.db.collection('webhook_deliveries').findOne({ webhookId: delivered.webhookId });
    expect(stored!.url).toContain('secret=***');
    expect(JSON.stringify(stored)).not.toContain(SECRET);

    const lines = logLines.filter((line) => line.includes(delivered.id));
    expect(lines.some((line) => line.includes('secret=***'))).toBe(true);
    expect(logLines.filter((line) => line.includes(SECRET))).toEqual([]);
  });
});

describe('pruning', () => {
  test('finished deliveries past the retention days go; younger and unfinished ones stay', async () => {
    const clock = new ManualClock(new Date('2025-03-01T00:00:00Z'));
    const services = await startServices({ clock, env: { WEBHOOK_DELIVERY_RETENTION_DAYS: '30' } });
    try {
      const { deps } = services;
      expect(deps.jobs.agenda.definitions[PRUNE_JOB]).toBeDefined();
      const make = (workspaceId: string, state: Delivery['state'], tag: string): Delivery => ({
        ...newDelivery(deps, workspaceId, { event: 'post.published', webhookId: tag, payload: {}, url: 'http://127.0.0.1:9/h?secret=x', state }),
      });
      const ws = '65f000000000000000000001';
      const old = [make(ws, 'delivered', 'old-delivered'), make(ws, 'failed', 'old-failed'), make(ws, 'scheduled', 'old-scheduled')];
      clock.advance(24 * 60 * 60 * 1000); // one day later: exactly 30 days old at the check below
      const edge = [make(ws, 'delivered', 'edge')];
      clock.advance(24 * 60 * 60 * 1000);
      const young = [make(ws, 'delivered', 'young')];
      await deliveryStore(deps.db).completeFirstAttempts([...old, ...edge, ...young]);

      clock.set(new Date(edge[0].createdAt.getTime() + 30 * 24 * 60 * 60 * 1000));
      expect(await pruneDeliveries(deps)).toEqual({ byAge: 2, byCount: 0 });
      const left = (await deliveryStore(deps.db).list(ws, { limit: 100 })).map((d) => d.webhookId).sort();
      expect(left).toEqual(['edge', 'old-scheduled', 'young']);

      clock.advance(1);
      expect((await pruneDeliveries(deps)).byAge).toBe(1);
      expect((await deliveryStore(deps.db).list(ws, { limit: 100 })).map((d) => d.webhookId).sort()).toEqual(['old-scheduled', 'young']);
    } finally {
      await services.close();
    }
  });

  test('at most WEBHOOK_DELIVERY_MAX_PER_WORKSPACE finished deliveries per workspace, the newest kept', async () => {
    const clock = new ManualClock(new Date('2025-03-01T00:00:00Z'));
    const services = await startServices({ clock, env: { WEBHOOK_DELIVERY_MAX_PER_WORKSPACE: '3' } });
    try {
      const { deps } = services;
      const atLimit = '65f000000000000000000002';
      const over = '65f000000000000000000003';
      const records: Delivery[] = [];
      for (let n = 1; n <= 3; n++) records.push(newDelivery(deps, atLimit, { event: 'post.published', webhookId: `a${n}`, payload: {}, url: 'http://x.test/h', state: 'delivered' }));
      for (let n = 1; n <= 5; n++) records.push(newDelivery(deps, over, { event: 'post.published', webhookId: `b${n}`, payload: {}, url: 'http://x.test/h', state: n === 1 ? 'failed' : 'delivered' }));
      await deliveryStore(deps.db).completeFirstAttempts(records);

      expect(await pruneDeliveries(deps)).toEqual({ byAge: 0, byCount: 2 });
      expect((await deliveryStore(deps.db).list(atLimit, { limit: 100 })).map((d) => d.webhookId)).toEqual(['a3', 'a2', 'a1']);
      expect((await deliveryStore(deps.db).list(over, { limit: 100 })).map((d) => d.webhookId)).toEqual(['b5', 'b4', 'b3']);
    } finally {
      await services.close();
    }
  });
});
