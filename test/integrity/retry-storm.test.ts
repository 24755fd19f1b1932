import { readFileSync } from 'node:fs';
import { afterAll, expect, jest, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import { startEngine, type RunningService } from '../support/services.js';
import { startReceiver } from '../webhooks/receiver.js';
import { deliveryStore } from '../../src/webhooks/webhooks.model.js';
import { RETRY_JOB } from '../../src/webhooks/webhooks.schedule.js';
import type { HearthNode } from '../../src/app/node.js';

/*
 * A receiver down while a site publishes: hundreds of deliveries fail and come due for their retry at
 * once, on the embedded engine (FerretDB on SQLite, the `npm start` default). The job queue must stay
 * live: every retry goes out on schedule, the team's writes keep answering, and the engine goes back to
 * idle once the retries are made.
 */
const FAILING = 500;
/** The first retry waits 4 s ± 20 %: the 500 come due within 1.6 s of each other. */
const RETRY_BASE_MS = 4_000;
/**
 * How late a retry may go out and still be on schedule. SQLite takes each delivery's reads and writes in
 * turn, so the 500th goes out well after the first: about 20 s on a quiet machine, 54 s with both cores
 * busy elsewhere, 82 s in a clean-clone CI run on a loaded machine. The livelock this guards against left
 * them unsent for good; the bench, not this test, measures the engine's speed.
 */
const LATE_MS = 120_000;
/**
 * Once the receiver is back, the last deliveries arrive by their fourth attempt at the latest: a third attempt
 * (24 s ± 20 % after the second) can come before the receiver is back when the second ones spread late (the
 * team's own workspace.updated events first), and the fourth follows it by 144 s ± 20 %; as late as the others.
 */
const ALL_DELIVERED_WITHIN_MS = 1.2 * 144_000 + LATE_MS;
jest.setTimeout(600_000);

let engine: RunningService;
let node: HearthNode | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
afterAll(async () => {
  await node?.stop();
  await receiver?.stop();
  await engine?.stop();
});

/** CPU seconds the process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat; after the command name they are the 12th and 13th.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(`${FAILING} failing deliveries due at once: each retried on schedule, admin writes answer, the engine idles after`, async () => {
  engine = await startEngine('sqlite');
  receiver = await startReceiver();
  // Production's poll interval: the queue's own polling is part of the load.
  node = await startTestNode({ env: { MONGODB_URI: engine.url, WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS), WEBHOOK_TIMEOUT_MS: '2000' }, jobsProcessEvery: 1_000 });
  const ws = await createWorkspace(node.url);
  receiver.script('/down', [503]);
  const hooked = await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { webhookUrl: receiver.url('/down') } });
  expect(hooked.status).toBe(200);

  const at = new Date().toISOString();
  await Promise.all(
    Array.from({ length: FAILING }, (_, i) =>
      node!.deps.events.publish({ event: 'post.published', workspaceId: ws.id, postId: `p${i}`, slug: `p-${i}`, title: `Post ${i}`, publishedAt: at, at }),
    ),
  );
  const store = deliveryStore(node.deps.db);
  const published = async () => (await store.list(ws.id, { limit: FAILING + 100 })).filter((delivery) => delivery.event === 'post.published');
  await eventually(async () => (await published()).filter((delivery) => delivery.attempts.length >= 1).length === FAILING, 120_000, 250);

  // The team keeps working while the retries come due and go out.
  const answers: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    const res = await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { name: `Bakery ${i}` } });
    answers.push(res.status);
    await pause(200);
  }
  expect(answers.filter((status) => status !== 200)).toEqual([]);

  const retried = await eventually(async () => {
    const all = await published();
    return all.every((delivery) => delivery.attempts.length >= 2) ? all : undefined;
  }, 1.2 * RETRY_BASE_MS + LATE_MS, 250);
  for (const delivery of retried) {
    const [first, second] = delivery.attempts;
    const waited = second.at.getTime() - first.at.getTime();
    // Never early (the wait is at least 0.8 × base), never more than LATE_MS past the latest it could be due.
    expect(waited).toBeGreaterThanOrEqual(0.8 * RETRY_BASE_MS - 50);
    expect(waited).toBeLessThanOrEqual(1.2 * RETRY_BASE_MS + LATE_MS);
    expect(second.outcome).toBe('retry');
  }

  // One retry job for the workspace, not one per delivery.
  const jobs = node.deps.db.db!.collection('jobs');
  expect(await jobs.countDocuments({ name: RETRY_JOB })).toBe(1);

  // The receiver is back: the third attempts (24 s ± 20 % on) deliver them all, and then the engine has only
  // the queue's polling to do.
  receiver.script('/down', [200]);
  // Every delivery, the admin saves' workspace.updated ones too: their retries, due seconds after the posts',
  // would otherwise fall into the idle measurement.
  const everyDelivery = async () => store.list(ws.id, { limit: FAILING + 100 });
  await eventually(async () => (await everyDelivery()).every((delivery) => delivery.state === 'delivered'), ALL_DELIVERED_WITHIN_MS, 500);
  expect(await jobs.countDocuments({ name: RETRY_JOB })).toBe(1);
  const before = cpuSeconds(engine.pid!);
  await pause(4_000);
  const busy = (cpuSeconds(engine.pid!) - before) / 4;
  expect(busy).toBeLessThan(0.25);
});
