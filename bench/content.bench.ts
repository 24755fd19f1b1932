/**
 * `npm run bench:content`: the public content reads of one node, against a bare `node:http` server
 * answering the same bytes.
 *
 * - BENCH_POSTS published posts (default 60, the issue's reference case; 1000 for the large case), half
 *   in `en`, their translations in `de`, made through the admin API as a user would.
 * - Warm reads: `GET /external/posts?limit=50` and `GET /external/posts/:slug`, loaded by wrk (separate
 *   process) with BENCH_CONNECTIONS; the bare server gets the same wrk settings. After one second of
 *   warm-up each, the two take turns BENCH_ROUNDS times (default 5) for BENCH_SECONDS in all each, so
 *   that outside load on a shared machine falls on both alike; the human line shows each round's ratio.
 * - Cold list: before every list request the workspace's name is changed (PATCH, not timed). The name is
 *   in every item's JSON-LD (`publisher.name`), so any correct cache must drop the answer; the bench
 *   checks the new name is there. One connection, requests in series, for BENCH_SECONDS:
 *   `cold_list_rps` = 1 / mean list latency. Unlike a cache-busting query parameter this does not
 *   depend on what a cache keys on.
 * - CPU per request: each server's own CPU time (user + system, read by the server over IPC) over its
 *   rounds, divided by the requests it answered, and their ratio (bare / Hearth, read like the rate ratio).
 *   On a machine shared with other guests the rates move with the neighbours; CPU time per request does not.
 * - `db_ops_per_warm_request`: driver commands (`commandStarted`) the node sent for 100 warm list
 *   requests in series, divided by 100, less what it sends idle over the same time.
 *
 * The node runs as shipped, logging one line per request (`info`, written to a file; BENCH_LOG_LEVEL overrides,
 * reported as `log_level`).
 *
 * Last line: the JSON figures. Engine: MONGODB_URI when set, else a private FerretDB; Redis: REDIS_URL
 * when set, else a private redis-server (see bench/support).
 */
import { benchEngine, benchRedis } from './support/environment.js';
import { now, report, round, runBench } from './support/children.js';
import { opsPerRequest, startBare, startNode, type NodeChild } from './support/hearth.js';
import { seedPosts } from './support/content-seed.js';
import { rawGet } from '../test/support/raw-http.js';
import { CONNECTIONS, SECONDS, loadTool, measure, measurePaired, type LoadResult } from './support/load.js';
import { createWorkspace, request } from '../test/support/harness.js';

const POSTS = Number(process.env.BENCH_POSTS ?? 60);
const WARM_SAMPLE = 100;
/** Hearth and the bare server take turns this many times (SECONDS / ROUNDS each), see `measurePaired`. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

await runBench(async (cleanup) => {
  const engine = await benchEngine('bench_content', cleanup);
  // One node without jobs (reads need none), so the command count is the requests' own; with Redis, as
  // nodes run in production: the rate limit is counted there and the cache listens for invalidations.
  const redisUrl = await benchRedis(cleanup);
  const node = await startNode({ engine, redisUrl, role: 'api', logLevel: 'info' });
  cleanup(() => node.stop());
  const ws = await createWorkspace(node.url, { slug: 'bench', name: 'Bench', locales: ['en', 'de'], defaultLocale: 'en' });
  const seedStart = now();
  await seedPosts(node.url, ws, POSTS);
  console.log(`content bench on ${engine.kind}: ${POSTS} published posts seeded in ${((now() - seedStart) / 1000).toFixed(1)} s; load by ${loadTool()}, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s`);

  const headers = { 'X-Api-Key': ws.apiKey };
  const listPath = '/external/posts?limit=50';
  const slugPath = '/external/posts/post-0';
  const listAnswer = await rawGet(node.url + listPath, headers);
  const slugAnswer = await rawGet(node.url + slugPath, headers);
  for (const [path, answer] of [[listPath, listAnswer], [slugPath, slugAnswer]] as const) {
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.body.toString('utf8')}`);
  }
  const listed = (JSON.parse(listAnswer.body.toString('utf8')) as { items: unknown[] }).items.length;

  const fetchOk = async (path: string) => {
    const res = await fetch(node.url + path, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  };
  const listOps = await opsPerRequest(node, WARM_SAMPLE, () => fetchOk(listPath));
  const slugOps = await opsPerRequest(node, WARM_SAMPLE, () => fetchOk(slugPath));

  const loads: Record<string, LoadResult> = {};
  const roundRatios: Record<string, number[]> = {};
  for (const [name, answer, path] of [['list', listAnswer, listPath], ['slug', slugAnswer, slugPath]] as const) {
    const bare = await startBare(answer);
    cleanup(() => bare.stop());
    // Both warmed alike (JIT, connections) before anything is counted.
    await measure(bare.url + path, {}, 1);
    await measure(node.url + path, headers, 1);
    const cpuOf = (child: { ask: NodeChild['ask'] }) => async () => (await child.ask<{ cpuMicros: number }>('ops')).cpuMicros;
    const paired = await measurePaired({ url: node.url + path, headers, cpuMicros: cpuOf(node) }, { url: bare.url + path, cpuMicros: cpuOf(bare) }, ROUNDS);
    await bare.stop();
    loads[`bare_${name}`] = paired.yardstick;
    loads[name] = paired.subject;
    roundRatios[name] = paired.roundRatios;
  }

  // Cold list: a content-visible workspace change before each request.
  const coldLatencies: number[] = [];
  let stale = 0;
  const coldOps: number[] = [];
  const coldUntil = now() + SECONDS * 1000;
  for (let i = 0; now() < coldUntil; i += 1) {
    const name = `Bench cold ${i}`;
    const patched = await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { name } });
    if (patched.status !== 200) throw new Error(`PATCH workspace: ${patched.status} ${patched.text}`);
    const before = await node.commands();
    const from = now();
    const res = await fetch(node.url + listPath, { headers });
    const text = await res.text();
    coldLatencies.push(now() - from);
    coldOps.push((await node.commands()) - before);
    if (res.status !== 200) throw new Error(`cold list: ${res.status}`);
    const first = (JSON.parse(text) as { items: { jsonLd: { publisher?: { name?: string } } | null }[] }).items[0];
    if (first?.jsonLd?.publisher?.name !== name) stale += 1;
  }
  const coldMeanMs = coldLatencies.reduce((a, b) => a + b, 0) / coldLatencies.length;
  const coldOpsMean = coldOps.reduce((a, b) => a + b, 0) / coldOps.length;

  const tool = loads.list.tool;
  const failures = Object.entries(loads).filter(([, load]) => load.failures > 0);
  const cpuRatio = (load: LoadResult, bare: LoadResult) => bare.cpuUsPerRequest! / load.cpuUsPerRequest!;
  const row = (label: string, load: LoadResult, bare: LoadResult, ops: number, ratios: number[]) =>
    `  ${label.padEnd(42)} ${load.rps.toFixed(0).padStart(7)} req/s  p50 ${load.p50Ms.toFixed(1).padStart(6)} ms  p99 ${load.p99Ms.toFixed(1).padStart(6)} ms | bare ${bare.rps.toFixed(0).padStart(7)} req/s | ratio ${(load.rps / bare.rps).toFixed(3)} (rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')}) | CPU ${load.cpuUsPerRequest!.toFixed(1)} µs/req, bare ${bare.cpuUsPerRequest!.toFixed(1)}: ratio ${cpuRatio(load, bare).toFixed(3)} | ${ops.toFixed(2)} db ops/req`;
  report(
    [
      `  (${listed} items, ${(listAnswer.body.length / 1024).toFixed(1)} KiB per list answer)`,
      row(`GET ${listPath}`, loads.list, loads.bare_list, listOps, roundRatios.list),
      row(`GET ${slugPath}`, loads.slug, loads.bare_slug, slugOps, roundRatios.slug),
      `  ${'cold list (workspace PATCHed before each)'.padEnd(42)} ${(1000 / coldMeanMs).toFixed(0).padStart(7)} req/s  mean ${coldMeanMs.toFixed(1)} ms over ${coldLatencies.length} requests, 1 connection | ${coldOpsMean.toFixed(2)} db ops/req${stale ? ` | ${stale} STALE answers (old name)` : ''}`,
      ...failures.map(([name, load]) => `  WARNING: ${name}: ${load.failures} failed requests (non-2xx/3xx or socket errors)`),
    ],
    {
      bench: 'content',
      posts: POSTS,
      bare_rps: round(loads.bare_list.rps, 0),
      list_rps: round(loads.list.rps, 0),
      list_ratio: round(loads.list.rps / loads.bare_list.rps, 3),
      bare_slug_rps: round(loads.bare_slug.rps, 0),
      slug_rps: round(loads.slug.rps, 0),
      slug_ratio: round(loads.slug.rps / loads.bare_slug.rps, 3),
      list_cpu_us: round(loads.list.cpuUsPerRequest!, 1),
      bare_list_cpu_us: round(loads.bare_list.cpuUsPerRequest!, 1),
      list_cpu_ratio: round(cpuRatio(loads.list, loads.bare_list), 3),
      slug_cpu_us: round(loads.slug.cpuUsPerRequest!, 1),
      bare_slug_cpu_us: round(loads.bare_slug.cpuUsPerRequest!, 1),
      slug_cpu_ratio: round(cpuRatio(loads.slug, loads.bare_slug), 3),
      cold_list_rps: round(1000 / coldMeanMs, 0),
      db_ops_per_warm_request: round(listOps, 2),
      log_level: process.env.BENCH_LOG_LEVEL ?? 'info',
      engine: engine.kind,
      ...(tool === 'wrk' ? {} : { load: tool }),
      ...(stale ? { cold_stale: stale } : {}),
      ...(failures.length ? { failed_requests: failures.reduce((sum, [, load]) => sum + load.failures, 0) } : {}),
    },
  );
});
