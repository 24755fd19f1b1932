/**
 * `npm run bench:webhooks`: BENCH_PUBLISHES (default 2,000) `post.published` events at once on one node
 * (a child), for one workspace whose webhook points at a receiver in another process. The node publishes
 * them on its own event bus when the orchestrator asks (over IPC), as the publish route does after it
 * stored a post, so the figure is the delivery pipeline's: store, queue, dispatch, POST, record.
 * Measured: deliveries per second (first publish to last first receipt), p50/p99 publish-to-receipt,
 * lost (no receipt within BENCH_WEBHOOK_TIMEOUT seconds, default 300), duplicated (received twice), and the
 * node's CPU time per delivery (the machine's two cores are shared by every process, so it sets the pace).
 * The node runs the shipped job settings (NODE_ROLE all, default polling). Before the measured burst, a
 * warm-up burst of BENCH_WEBHOOK_WARMUP events (default 1,000; 0 for none) goes the same way and is not
 * counted: it measures a running server, not the JIT compiling the HTTP client and the receiver.
 *
 * Last line: the JSON figures.
 */
import { benchEngine } from './support/environment.js';
import { now, percentile, report, round, runBench, spawnChild } from './support/children.js';
import { startNode } from './support/hearth.js';
import { createWorkspace, request } from '../test/support/harness.js';

const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 2000);
const TIMEOUT_S = Number(process.env.BENCH_WEBHOOK_TIMEOUT ?? 300);
const WARMUP = Number(process.env.BENCH_WEBHOOK_WARMUP ?? 1000);

await runBench(async (cleanup) => {
  const engine = await benchEngine('bench_webhooks', cleanup);
  const receiver = spawnChild('receiver');
  cleanup(() => receiver.stop());
  const { url: receiverUrl } = await receiver.ready;
  const node = await startNode({ uri: engine.uri, dbName: engine.dbName, redisUrl: process.env.REDIS_URL, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  cleanup(() => node.stop());
  console.log(`webhooks bench on ${engine.kind}: ${PUBLISHES} post.published events in a burst -> receiver in another process`);

  const ws = await createWorkspace(node.url, { locales: ['en'], defaultLocale: 'en' });
  const patched = await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { webhookUrl: `${receiverUrl}/hook?secret=bench` } });
  if (patched.status !== 200) throw new Error(`webhook URL: ${patched.status} ${patched.text}`);

  /** Until the receiver has `expected` distinct events (warm-up included), or the timeout. */
  const received = async (expected: number) => {
    const deadline = now() + TIMEOUT_S * 1000;
    while ((await receiver.ask<{ distinct: number }>('distinct')).distinct < expected && now() <= deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  if (WARMUP > 0) {
    await node.ask('publish', { count: WARMUP, workspaceId: ws.id, prefix: 'warm' }, 600_000);
    await received(WARMUP);
    // Its outcomes are recorded once the burst is sent: let that finish too.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    console.log(`  warm-up: ${WARMUP} events delivered`);
  }

  const opsBefore = await node.ask<{ commands: number; jobCommands: number; cpuMicros: number }>('ops');
  const from = now();
  const { publishedAt } = await node.ask<{ publishedAt: Record<string, number> }>('publish', { count: PUBLISHES, workspaceId: ws.id, prefix: 'post' }, 600_000);
  const publishMs = now() - from;
  console.log(`  published in ${Math.round(publishMs)} ms; waiting for deliveries`);
  await received(WARMUP + PUBLISHES);
  // A little longer, so a delivery sent twice has the time to arrive twice.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const { receipts, unreadable } = await receiver.ask<{ receipts: Record<string, number[]>; unreadable: number }>('receipts');

  const opsAfter = await node.ask<{ commands: number; jobCommands: number; cpuMicros: number }>('ops');
  const ids = Object.keys(publishedAt);
  const delivered = ids.filter((id) => receipts[id]);
  const latencies = delivered.map((id) => receipts[id][0] - publishedAt[id]).sort((a, b) => a - b);
  const firstPublish = Math.min(...Object.values(publishedAt));
  const lastReceipt = Math.max(...delivered.map((id) => receipts[id][0]));
  const firstReceipt = Math.min(...delivered.map((id) => receipts[id][0]));
  const perSecond = delivered.length / ((lastReceipt - firstPublish) / 1000);
  const lost = ids.length - delivered.length;
  const duplicated = Object.values(receipts).reduce((sum, times) => sum + times.length - 1, 0);
  const opsPerDelivery = (opsAfter.commands - opsBefore.commands) / delivered.length;
  const jobOpsPerDelivery = (opsAfter.jobCommands - opsBefore.jobCommands) / delivered.length;
  const nodeCpuPerDelivery = (opsAfter.cpuMicros - opsBefore.cpuMicros) / delivered.length;

  report(
    [
      `  delivered ${delivered.length}/${ids.length} in ${((lastReceipt - firstPublish) / 1000).toFixed(1)} s: ${perSecond.toFixed(0)} deliveries/s; first receipt ${(firstReceipt - firstPublish).toFixed(0)} ms after the first publish, the burst published in ${Math.round(publishMs)} ms`,
      `  publish-to-receipt p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(0)} ms; lost ${lost}, duplicated ${duplicated}${unreadable ? `, ${unreadable} unreadable bodies` : ''}`,
      `  driver commands per delivery: ${opsPerDelivery.toFixed(3)} (plus ${jobOpsPerDelivery.toFixed(3)} on the job collection, its polling included)`,
      `  node CPU per delivery: ${nodeCpuPerDelivery.toFixed(0)} µs (storing, sending and recording it, and the node's idle work over the same seconds)`,
    ],
    {
      bench: 'webhooks',
      publishes: PUBLISHES,
      deliveries_per_s: round(perSecond, 0),
      p50_ms: round(percentile(latencies, 50), 0),
      p99_ms: round(percentile(latencies, 99), 0),
      lost,
      duplicated,
      db_ops_per_delivery: round(opsPerDelivery, 3),
      node_cpu_us_per_delivery: round(nodeCpuPerDelivery, 0),
      engine: engine.kind,
    },
  );
});
