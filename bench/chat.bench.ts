/**
 * `npm run bench:chat`: BENCH_VISITORS (default 1,000) visitors hold Socket.IO connections to two nodes
 * (children) sharing Redis; the agent replies at BENCH_RATE per second (default 10) for BENCH_SECONDS
 * (default 10) through the admin API, alternating nodes. Measured:
 *
 * - p50/p99 from just before the agent's POST is sent (`node:http`, kept alive) to the visitor's `message.created`: the visitors
 *   run in a child of their own (not on a node's event loop); both sides read
 *   `performance.timeOrigin + performance.now()`.
 * - Server heap per socket: each node's heap after a forced full GC (`--expose-gc`), before and after
 *   the sockets connect, summed over the nodes and divided by the sockets held.
 * - db_ops_per_message: driver commands both nodes sent while the replies were posted, less their idle
 *   rate and the job queue's polling, per reply.
 * - Widget config while the visitors are held and one agent console is open on the first node:
 *   BENCH_CONFIG_READS (default 300) `GET /external/live-chat/config` in series to the last node, which must
 *   learn from the others that the team is online (`config_p50_ms`, `config_p99_ms`; `config_offline` counts
 *   answers that said offline).
 *
 * With BENCH_HAPROXY=1 the nodes (three) sit behind HAProxy and the visitors and the agent go through it
 * (`support/cluster.ts`); BENCH_TRANSPORT=polling makes the visitors use Socket.IO's long-polling, with the
 * sticky cookie README "Scaling out" tells users to configure for it. BENCH_KILL=1 (behind HAProxy) kills
 * one node (SIGKILL) halfway through the replies: its visitors reconnect through HAProxy and catch up as the
 * widget does, and the agent sends again a reply whose answer was lost with the node. `lost` counts the
 * replies the server accepted (201) that their visitor never got.
 *
 * Last line: the JSON figures.
 */
import { benchEngine, benchRedis } from './support/environment.js';
import { now, percentile, report, round, runBench, spawnChild } from './support/children.js';
import { pool, postJson, type NodeChild } from './support/hearth.js';
import { startCluster } from './support/cluster.js';
import type { Trace } from './support/chat-trace.js';
import { createWorkspace, request } from '../test/support/harness.js';
import { agentSocket, createAgent } from '../test/livechat/support.js';

const VISITORS = Number(process.env.BENCH_VISITORS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TRANSPORT = process.env.BENCH_TRANSPORT === 'polling' ? 'polling' : 'websocket';
const CONFIG_READS = Number(process.env.BENCH_CONFIG_READS ?? 300);

const totalCommands = async (nodes: NodeChild[]) => (await Promise.all(nodes.map((node) => node.commands()))).reduce((a, b) => a + b, 0);
const totalHeap = async (nodes: NodeChild[]) => (await Promise.all(nodes.map((node) => node.ask<{ heapUsed: number }>('heap')))).reduce((sum, reply) => sum + reply.heapUsed, 0);

/** BENCH_TRACE=1: the median time of each stage of a reply, from the send, for visitors on the posting node and on the other. */
async function printBreakdown(nodes: NodeChild[], sentAt: Map<string, number>, receipts: Record<string, number[]>) {
  const traces = await Promise.all(nodes.map(async (node) => (await node.ask<{ trace: Trace }>('trace')).trace));
  const rows: Record<'local' | 'remote', Record<string, number[]>> = { local: {}, remote: {} };
  for (const [body, sent] of sentAt) {
    const [posting, other] = traces[0][body]?.arrived !== undefined ? [traces[0][body], traces[1][body] ?? {}] : [traces[1][body] ?? {}, traces[0][body] ?? {}];
    const side = other.relayed !== undefined ? 'remote' : 'local';
    const stages = { ...posting, relayed: other.relayed, received: receipts[body]?.[0] };
    for (const [name, at] of Object.entries(stages)) if (typeof at === 'number') (rows[side][name] ??= []).push(at - sent);
    const before = posting.before ?? [];
    if (before.length > 1) console.log(`  reads before the insert of ${body} (${side}): ${before.join(', ')}`);
  }
  for (const side of ['local', 'remote'] as const) {
    const cells = Object.entries(rows[side]).map(([name, values]) => `${name} ${percentile(values.sort((a, b) => a - b), 50).toFixed(2)}`);
    console.log(`  trace (${side}, n=${rows[side].received?.length ?? 0}, median ms after send): ${cells.join(', ')}`);
  }
}

await runBench(async (cleanup) => {
  const engine = await benchEngine('bench_chat', cleanup);
  const redisUrl = await benchRedis(cleanup);
  const cluster = await startCluster({ engine, redisUrl }, cleanup, { nodes: 2, sticky: TRANSPORT === 'polling' });
  const { nodes } = cluster;
  const kill = process.env.BENCH_KILL === '1' && cluster.balancer !== null;
  // Behind HAProxy everything goes through it; otherwise the bench spreads visitors and replies over the nodes.
  const urls = cluster.balancer ? [cluster.url] : nodes.map((node) => node.url);
  const urlFor = (i: number) => urls[i % urls.length];
  console.log(
    `chat bench on ${engine.kind}: ${VISITORS} visitors (${TRANSPORT}) on ${cluster.describe()} + Redis, agent replying ${RATE}/s for ${SECONDS} s${kill ? ', one node killed halfway' : ''}`,
  );

  const ws = await createWorkspace(nodes[0].url);
  const put = await request(nodes[0].url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { enabled: true, greeting: 'Hi' } });
  if (put.status !== 200) throw new Error(`live-chat settings: ${put.status} ${put.text}`);
  const publishableKey = put.body.publishableKey as string;

  const conversations: { id: string; token: string }[] = new Array(VISITORS);
  const startFrom = now();
  await pool(VISITORS, 10, async (i) => {
    const res = await request(urlFor(i), '/external/live-chat/conversations', { publishableKey, body: { visitorSessionId: `bench-${i}` } });
    if (res.status !== 201) throw new Error(`conversation start: ${res.status} ${res.text}`);
    conversations[i] = { id: res.body.conversationId, token: res.body.conversationToken };
  });
  console.log(`  ${VISITORS} conversations started in ${((now() - startFrom) / 1000).toFixed(1)} s`);

  const visitors = spawnChild('visitors');
  cleanup(() => visitors.stop());
  await visitors.ready;
  const heapBefore = await totalHeap(nodes);
  const connectFrom = now();
  const { failed } = await visitors.ask<{ connected: number; failed: number }>('connect', { urls, tokens: conversations.map((c) => c.token), transport: TRANSPORT, recover: kill }, 600_000);
  const connectSeconds = (now() - connectFrom) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const heapAfter = await totalHeap(nodes);
  const held = await Promise.all(nodes.map(async (node) => (await node.ask<{ widget: number }>('sockets')).widget));
  const sockets = held.reduce((a, b) => a + b, 0);

  // The widget config on a node without the agent, while the visitors are held.
  const agent = await agentSocket(nodes[0].url, await createAgent(nodes[0].url, ws), ws.id);
  const configTimes: number[] = [];
  let configOffline = 0;
  for (let i = 0; i < CONFIG_READS; i += 1) {
    const from = now();
    const res = await request(nodes.at(-1)!.url, '/external/live-chat/config', { publishableKey });
    configTimes.push(now() - from);
    if (res.status !== 200) throw new Error(`widget config: ${res.status} ${res.text}`);
    if (res.body.online !== true) configOffline += 1;
  }
  agent.close();
  configTimes.sort((a, b) => a - b);

  const idleFrom = now();
  const idleStart = await totalCommands(nodes);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const idlePerMs = ((await totalCommands(nodes)) - idleStart) / (now() - idleFrom);

  const total = Math.round(RATE * SECONDS);
  const sentAt = new Map<string, number>();
  const accepted = new Set<string>();
  const posts: Promise<void>[] = [];
  let postErrors = 0;
  let postRetries = 0;
  /** Why POSTs failed (status, or the client's error), with how often. */
  const failureKinds = new Map<string, number>();
  const reply = async (i: number, conversationId: string, body: string) => {
    const send = () =>
      postJson(`${urlFor(i)}/admin/workspaces/${ws.id}/conversations/${conversationId}/messages`, ws.token, { body }).then(
        (status) => (status === 201 ? status : (failureKinds.set(String(status), (failureKinds.get(String(status)) ?? 0) + 1), status)),
        (error: Error) => (failureKinds.set(error.message, (failureKinds.get(error.message) ?? 0) + 1), 0),
      );
    let status = await send();
    // The node that took the reply died before answering: the agent sends it again (up to three times, half
    // a second apart), as the team app lets them.
    for (let again = 0; status !== 201 && kill && again < 3; again += 1) {
      postRetries += 1;
      await new Promise((resolve) => setTimeout(resolve, 500));
      status = await send();
    }
    if (status === 201) accepted.add(body);
    else postErrors += 1;
  };
  const opsBefore = await totalCommands(nodes);
  const loopFrom = now();
  for (let i = 0; i < total; i += 1) {
    const wait = loopFrom + (i * 1000) / RATE - now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (kill && i === Math.floor(total / 2)) cluster.kill(nodes.length - 1);
    const conversation = conversations[Math.floor(Math.random() * conversations.length)];
    const body = `r${i}`;
    sentAt.set(body, now());
    posts.push(reply(i, conversation.id, body));
  }
  await Promise.all(posts);
  const opsElapsed = now() - loopFrom;
  const opsAfter = kill ? NaN : await totalCommands(nodes);

  let receipts: Record<string, number[]> = {};
  const deadline = now() + 10_000;
  while (now() < deadline) {
    receipts = (await visitors.ask<{ receipts: Record<string, number[]> }>('receipts')).receipts;
    if ([...accepted].every((body) => receipts[body])) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const latencies = [...sentAt].filter(([body]) => receipts[body]).map(([body, at]) => receipts[body][0] - at).sort((a, b) => a - b);
  const lost = [...accepted].filter((body) => !receipts[body]).length;
  const recovery = kill ? await visitors.ask<{ reconnects: number; recovered: number }>('recovery') : null;
  const duplicated = Object.values(receipts).filter((times) => times.length > 1).length;
  const dbOps = (opsAfter - opsBefore - idlePerMs * opsElapsed) / total;
  const heapPerSocket = (heapAfter - heapBefore) / Math.max(1, sockets) / 1024;
  if (process.env.BENCH_TRACE) await printBreakdown(nodes, sentAt, receipts);

  report(
    [
      `  sockets held ${sockets} (${held.join(' + ')}), ${failed} failed to connect, connected in ${connectSeconds.toFixed(1)} s`,
      `  heap ${(heapPerSocket).toFixed(1)} KiB per socket (all nodes, after forced GC)`,
      `  replies sent ${total}, accepted ${accepted.size}, received ${latencies.length}, lost ${lost}, duplicated ${duplicated}, POST errors ${postErrors}${kill ? `, sent again ${postRetries}` : ''}${failureKinds.size ? ` (failed: ${[...failureKinds].map(([kind, count]) => `${kind} x${count}`).join(', ')})` : ''}`,
      ...(recovery ? [`  node killed: ${recovery.reconnects} visitors reconnected through HAProxy, ${recovery.recovered} replies fetched on reconnection`] : []),
      `  widget config on a node without the agent: p50 ${percentile(configTimes, 50).toFixed(1)} ms, p99 ${percentile(configTimes, 99).toFixed(1)} ms over ${CONFIG_READS} reads in series${configOffline ? `, ${configOffline} said offline` : ''}`,
      `  POST-to-receipt p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(1)} ms${kill ? '' : `; ${dbOps.toFixed(2)} db ops per reply`}`,
    ],
    {
      bench: 'chat',
      visitors: VISITORS,
      nodes: nodes.length,
      transport: TRANSPORT,
      ...(cluster.balancer ? { balancer: 'haproxy' } : {}),
      sockets_held: sockets,
      p50_ms: round(percentile(latencies, 50)),
      p99_ms: round(percentile(latencies, 99)),
      heap_kib_per_socket: round(heapPerSocket),
      db_ops_per_message: round(dbOps, 2),
      config_p50_ms: round(percentile(configTimes, 50), 2),
      config_p99_ms: round(percentile(configTimes, 99), 2),
      ...(configOffline ? { config_offline: configOffline } : {}),
      engine: engine.kind,
      ...(lost || postErrors || failed || kill ? { lost, duplicated, post_errors: postErrors, connect_failures: failed } : {}),
      ...(recovery ? { node_killed: true, posts_sent_again: postRetries, reconnects: recovery.reconnects, recovered: recovery.recovered } : {}),
    },
  );
});
