/**
 * `npm run bench:webhooks`: BENCH_PUBLISHES (default 2,000) `post.published` events at once on one node
 * (a child), for one workspace whose webhook points at a receiver in another process. The node publishes
 * them on its own event bus when the orchestrator asks (over IPC), as the publish route does after it
 * stored a post, so the figure is the delivery pipeline's: store, queue, dispatch, POST, record.
 * Measured: deliveries per second (first publish to last first receipt), p50/p99 publish-to-receipt,
 * lost (no receipt within BENCH_WEBHOOK_TIMEOUT seconds, default 300) and duplicated (received twice).
 * The node runs the shipped job settings (NODE_ROLE all, default polling).
 *
 * Last line: the JSON figures.
 */
import { benchEngine } from './support/environment.js';
import { now, percentile, report, round, runBench, spawnChild } from './support/children.js';
import { startNode } from './support/hearth.js';
import { createWorkspace, request } from '../test/support/harness.js';

const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 2000);
const TIMEOUT_S = Number(process.env.BENCH_WEBHOOK_TIMEOUT ?? 300);

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

  const from = now();
  const { publishedAt } = await node.ask<{ publishedAt: Record<string, number> }>('publish', { count: PUBLISHES, workspaceId: ws.id, prefix: 'post' }, 600_000);
  const publishMs = now() - from;
  console.log(`  published in ${Math.round(publishMs)} ms; waiting for deliveries`);

  let receipts: Record<string, number[]> = {};
  let unreadable = 0;
  const deadline = now() + TIMEOUT_S * 1000;
  for (;;) {
    ({ receipts, unreadable } = await receiver.ask<{ receipts: Record<string, number[]>; unreadable: number }>('receipts'));
    if (Object.keys(publishedAt).every((id) => receipts[id]) || now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // A little longer, so a delivery sent twice has the time to arrive twice.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  ({ receipts, unreadable } = await receiver.ask<{ receipts: Record<string, number[]>; unreadable: number }>('receipts'));

  const ids = Object.keys(publishedAt);
  const delivered = ids.filter((id) => receipts[id]);
  const latencies = delivered.map((id) => receipts[id][0] - publishedAt[id]).sort((a, b) => a - b);
  const firstPublish = Math.min(...Object.values(publishedAt));
  const lastReceipt = Math.max(...delivered.map((id) => receipts[id][0]));
  const perSecond = delivered.length / ((lastReceipt - firstPublish) / 1000);
  const lost = ids.length - delivered.length;
  const duplicated = Object.values(receipts).reduce((sum, times) => sum + times.length - 1, 0);

  report(
    [
      `  delivered ${delivered.length}/${ids.length} in ${((lastReceipt - firstPublish) / 1000).toFixed(1)} s: ${perSecond.toFixed(0)} deliveries/s`,
      `  publish-to-receipt p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(0)} ms; lost ${lost}, duplicated ${duplicated}${unreadable ? `, ${unreadable} unreadable bodies` : ''}`,
    ],
    {
      bench: 'webhooks',
      publishes: PUBLISHES,
      deliveries_per_s: round(perSecond, 0),
      p50_ms: round(percentile(latencies, 50), 0),
      p99_ms: round(percentile(latencies, 99), 0),
      lost,
      duplicated,
      engine: engine.kind,
    },
  );
});
