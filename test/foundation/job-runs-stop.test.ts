import { afterAll, expect, test } from '@jest/globals';
import { eventually, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';

// A node that stops lets the job runs under way end and store their next run before its database closes.
// While a one-off job runs, its stored next run is empty: a run cut off would leave the job due never again
// (the webhook dispatch a stopping worker hands over to the next one is such a run).
const nodes: HearthNode[] = [];
afterAll(async () => {
  for (const node of nodes) await node.stop().catch(() => undefined);
});

const RESCHEDULES = 'test.reschedules';
const RUN_MS = 800;
const NEXT_RUN_IN_MS = 3_600_000;

async function stopDuringRun(runMs: number) {
  const dbName = uniqueDbName('job-stop');
  const node = await startTestNode({ dbName, env: { NODE_ROLE: 'worker' } });
  let started = false;
  node.deps.jobs.agenda.define(RESCHEDULES, async (job) => {
    started = true;
    await new Promise((resolve) => setTimeout(resolve, runMs).unref());
    job.attrs.nextRunAt = new Date(Date.now() + NEXT_RUN_IN_MS);
  });
  await node.deps.jobs.enqueue(RESCHEDULES, {});
  await eventually(() => started);
  const stopAt = Date.now();
  await node.stop();
  const stoppedAfterMs = Date.now() - stopAt;
  const reader = await startTestNode({ dbName });
  nodes.push(reader);
  const stored = await reader.deps.db.collection('jobs').findOne({ name: RESCHEDULES });
  return { stored, stoppedAfterMs };
}

test('a run under way when its node stops stores the next run it set', async () => {
  const { stored, stoppedAfterMs } = await stopDuringRun(RUN_MS);
  expect(stored?.nextRunAt?.getTime()).toBeGreaterThan(Date.now() + NEXT_RUN_IN_MS - 60_000);
  expect(stored?.lockedAt ?? null).toBeNull();
  expect(stoppedAfterMs).toBeGreaterThanOrEqual(RUN_MS / 2);
});

test('a run longer than the stop waits for (2 s) does not hold the node', async () => {
  const { stoppedAfterMs } = await stopDuringRun(60_000);
  expect(stoppedAfterMs).toBeLessThan(10_000);
});
