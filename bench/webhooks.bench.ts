/**
 * `npm run bench:webhooks`: BENCH_PUBLISHES (default 2,000) `post.published` events at once on one node
 * (a child), for one workspace whose webhook points at a receiver in another process. The node publishes
 * them on its own event bus when the orchestrator asks (over IPC), as the publish route does after it
 * stored a post, so the figure is the delivery pipeline's: store, queue, dispatch, POST, record.
 *
 * The receiver stands for a customer's long-running endpoint: before any node starts, the bench sends it
 * a burst's worth of such POSTs itself, so its own JIT warm-up is not counted as Hearth's.
 *
 * The burst goes twice. The first meets a node that has just started (the `cold_` figures): its HTTP
 * client and the driver still run unoptimized code, and V8 compiles them while they work.
 * The second, once the first is delivered and recorded, is the running server's figure (the main ones):
 * a burst of this size after a smaller warm-up still had about a hundred functions compiled while it ran
 * (`--trace-opt`), so a smaller one measures the JIT more than the pipeline.
 *
 * Measured per burst: deliveries per second (first publish to last first receipt), p50/p99
 * publish-to-receipt, lost (no receipt within BENCH_WEBHOOK_TIMEOUT seconds, default 300), duplicated
 * (received twice); for the warm burst also driver commands and the node's CPU time per delivery (the
 * machine's two cores are shared by every process, so it sets the pace). The node runs the shipped job
 * settings (NODE_ROLE all, default polling).
 *
 * More nodes (`support/cluster.ts`: BENCH_NODES, or BENCH_HAPROXY=1 for three behind HAProxy) share the
 * queue; the events are published on the first. BENCH_KILL=1 (three nodes) kills that first node (SIGKILL)
 * once a quarter of the running node's burst has arrived: the deliveries it had stored and not yet sent,
 * or taken and not finished, are taken by the others (at once, or once their lock runs out), so `lost`
 * must stay 0 (a delivery it sent but did not record may arrive twice).
 *
 * BENCH_HIST=1 also prints each burst's first receipts per 50 ms: while the burst is still being stored
 * the sends share the node with the storing, and the histogram shows how much.
 *
 * Last line: the JSON figures.
 */
import { now, percentile, report, round, runBench, spawnChild } from './support/children.js';
import { pool, postJson, type NodeChild } from './support/hearth.js';
import { startCluster } from './support/cluster.js';
import { benchEngine, benchRedis } from './support/environment.js';
import { createWorkspace, request } from '../test/support/harness.js';

const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 2000);
const TIMEOUT_S = Number(process.env.BENCH_WEBHOOK_TIMEOUT ?? 300);
/** After a burst's last receipt: a delivery sent twice has the time to arrive twice, and the outcomes to be recorded. */
const SETTLE_MS = 3_000;

interface Burst {
  ids: string[];
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  lost: number;
  duplicated: number;
  firstReceiptMs: number;
  publishMs: number;
  spanMs: number;
  /** Bodies the receiver could not read, since it started. */
  unreadable: number;
}

/** `count` POSTs of a webhook's shape to the receiver, 8 at a time over kept-alive connections, from this process. */
async function warmReceiver(url: string, count: number): Promise<void> {
  await pool(count, 8, async (i) => {
    const at = new Date().toISOString();
    await postJson(`${url}/hook?secret=bench`, undefined, { event: 'post.published', workspaceId: 'warm-up', postId: `receiver-warm-up-${i}`, slug: `post-${i}`, title: `Post ${i}`, publishedAt: at, at });
  });
}

/** First receipts per 50 ms since the first publish: the burst's pace while it was stored and after. */
function receiptsPer50Ms(firstPublish: number, firsts: number[]): string {
  const counts: number[] = [];
  for (const at of firsts) {
    const slot = Math.floor((at - firstPublish) / 50);
    counts[slot] = (counts[slot] ?? 0) + 1;
  }
  return Array.from(counts, (count) => count ?? 0).join(' ');
}

await runBench(async (cleanup) => {
  const engine = await benchEngine('bench_webhooks', cleanup);
  const receiver = spawnChild('receiver');
  cleanup(() => receiver.stop());
  const { url: receiverUrl } = await receiver.ready;
  await warmReceiver(receiverUrl, PUBLISHES);
  await receiver.ask('forget');
  const kill = process.env.BENCH_KILL === '1';
  // One node reads no Redis unless REDIS_URL names one; several share one, as they must.
  const several = kill || process.env.BENCH_HAPROXY === '1' || Number(process.env.BENCH_NODES ?? 1) > 1;
  const redisUrl = several ? await benchRedis(cleanup) : (process.env.REDIS_URL ?? '');
  const cluster = await startCluster({ engine, redisUrl, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } }, cleanup, { nodes: kill ? 3 : 1 });
  const node = cluster.nodes[0];
  const survivors = () => (kill ? cluster.nodes.slice(1) : cluster.nodes);
  console.log(
    `webhooks bench on ${engine.kind}, ${cluster.describe()}: ${PUBLISHES} post.published events in a burst -> receiver in another process, on fresh nodes, then again${kill ? ' (one node killed during it)' : ''}`,
  );

  const ws = await createWorkspace(cluster.url, { locales: ['en'], defaultLocale: 'en' });
  const patched = await request(cluster.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { webhookUrl: `${receiverUrl}/hook?secret=bench` } });
  if (patched.status !== 200) throw new Error(`webhook URL: ${patched.status} ${patched.text}`);

  let expected = 0;
  /** One burst of PUBLISHES events, measured from the publish of each to its first receipt. */
  const burst = async (prefix: string, killAfter?: number): Promise<Burst> => {
    const from = now();
    const { publishedAt } = await node.ask<{ publishedAt: number[] }>('publish', { count: PUBLISHES, workspaceId: ws.id, prefix }, 600_000);
    const publishMs = now() - from;
    let killAt = killAfter === undefined ? Infinity : expected + killAfter;
    expected += PUBLISHES;
    const deadline = now() + TIMEOUT_S * 1000;
    for (let distinct = 0; distinct < expected && now() <= deadline; ) {
      distinct = (await receiver.ask<{ distinct: number }>('distinct')).distinct;
      if (distinct >= killAt) {
        cluster.kill(0);
        killAt = Infinity;
        console.log(`  killed the publishing node after ${distinct - expected + PUBLISHES} deliveries of the burst`);
      }
      await new Promise((resolve) => setTimeout(resolve, kill ? 50 : 250));
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const { receipts, unreadable } = await receiver.ask<{ receipts: Record<string, number[]>; unreadable: number }>('receipts', { prefix });
    const ids = publishedAt.map((_, i) => `${prefix}${i}`);
    const delivered = ids.flatMap((id, i) => (receipts[id] ? [{ publishedAt: publishedAt[i], firstReceipt: receipts[id][0] }] : []));
    const latencies = delivered.map((one) => one.firstReceipt - one.publishedAt).sort((a, b) => a - b);
    const firstPublish = Math.min(...publishedAt);
    const firsts = delivered.map((one) => one.firstReceipt);
    const spanMs = Math.max(...firsts) - firstPublish;
    if (process.env.BENCH_HIST) console.log(`  ${prefix} receipts per 50 ms: ${receiptsPer50Ms(firstPublish, firsts)}`);
    return {
      ids,
      deliveriesPerSecond: delivered.length / (spanMs / 1000),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? NaN,
      lost: ids.length - delivered.length,
      duplicated: Object.values(receipts).reduce((sum, times) => sum + times.length - 1, 0),
      firstReceiptMs: Math.min(...firsts) - firstPublish,
      publishMs,
      spanMs,
      unreadable,
    };
  };
  const describe = (label: string, b: Burst) => [
    `  ${label}: delivered ${b.ids.length - b.lost}/${b.ids.length} in ${(b.spanMs / 1000).toFixed(1)} s: ${b.deliveriesPerSecond.toFixed(0)} deliveries/s; first receipt ${b.firstReceiptMs.toFixed(0)} ms after the first publish, the burst published in ${Math.round(b.publishMs)} ms`,
    `  ${label}: publish-to-receipt p50 ${b.p50.toFixed(0)} ms, p99 ${b.p99.toFixed(0)} ms, max ${b.max.toFixed(0)} ms; lost ${b.lost}, duplicated ${b.duplicated}${b.unreadable ? `, ${b.unreadable} unreadable bodies` : ''}`,
  ];

  const cold = await burst('cold');
  for (const line of describe('fresh node', cold)) console.log(line);
  type Ops = { commands: number; jobCommands: number; cpuMicros: number };
  const opsOf = async (nodes: NodeChild[]): Promise<Ops> => {
    const each = await Promise.all(nodes.map((one) => one.ask<Ops>('ops')));
    return { commands: each.reduce((sum, ops) => sum + ops.commands, 0), jobCommands: each.reduce((sum, ops) => sum + ops.jobCommands, 0), cpuMicros: each.reduce((sum, ops) => sum + ops.cpuMicros, 0) };
  };
  // With a node killed its share of the work leaves the sums with it: the survivors' alone are counted.
  const opsBefore = await opsOf(survivors());
  const warm = await burst('post', kill ? Math.floor(PUBLISHES / 4) : undefined);
  const opsAfter = await opsOf(survivors());
  const deliveredWarm = warm.ids.length - warm.lost;
  const opsPerDelivery = (opsAfter.commands - opsBefore.commands) / deliveredWarm;
  const jobOpsPerDelivery = (opsAfter.jobCommands - opsBefore.jobCommands) / deliveredWarm;
  const nodeCpuPerDelivery = (opsAfter.cpuMicros - opsBefore.cpuMicros) / deliveredWarm;

  report(
    [
      ...describe('running node', warm),
      `  driver commands per delivery: ${opsPerDelivery.toFixed(3)} (plus ${jobOpsPerDelivery.toFixed(3)} on the job collection, its polling included)`,
      `  node CPU per delivery: ${nodeCpuPerDelivery.toFixed(0)} µs (storing, sending and recording it, and the node's idle work over the same seconds)${kill ? '; both figures the surviving nodes\' only' : ''}`,
    ],
    {
      bench: 'webhooks',
      publishes: PUBLISHES,
      deliveries_per_s: round(warm.deliveriesPerSecond, 0),
      p50_ms: round(warm.p50, 0),
      p99_ms: round(warm.p99, 0),
      lost: warm.lost + cold.lost,
      duplicated: warm.duplicated + cold.duplicated,
      cold_deliveries_per_s: round(cold.deliveriesPerSecond, 0),
      cold_p50_ms: round(cold.p50, 0),
      cold_p99_ms: round(cold.p99, 0),
      db_ops_per_delivery: round(opsPerDelivery, 3),
      node_cpu_us_per_delivery: round(nodeCpuPerDelivery, 0),
      nodes: cluster.nodes.length,
      ...(kill ? { node_killed: true } : {}),
      engine: engine.kind,
    },
  );
});
