/**
 * `npm run bench:churn`: a site being read while its editors publish.
 *
 * - One node (jobs on, as `npm start` runs) with Redis; with BENCH_HAPROXY=1, three behind HAProxy
 *   (`support/cluster.ts`), every read and edit through it. Workspace A: BENCH_POSTS (500) published posts
 *   in five categories, made through the admin API; workspace B: 50, for the other editor.
 * - The read mix: `wrk` (separate process, one thread, BENCH_CONNECTIONS) cycles through 100 post pages, the
 *   first ten list pages and each category's first page of A (115 distinct URLs), by a Lua script.
 * - Two phases of BENCH_SECONDS each, in one run: the mix alone, then the mix while one post of A and one of
 *   B are edited and republished every second (PATCH + publish, each pair timed from the editor's side).
 * - Engine commands per request in the churn phase: the driver's `commandStarted` count over the phase,
 *   less what the nodes send idle, per request wrk made.
 * - BENCH_KILL=1 (behind HAProxy): halfway through the churn phase one node is killed (SIGKILL); reads and
 *   edits go on through the others, and the failed ones are counted (`failed_requests`, `failed_edits`).
 *
 * Issue's bar: ratio (churn / quiet throughput) at least 0.8, p99 at most 20 ms, no request over 100 ms,
 * every edit answered within 250 ms. Last line: the JSON figures.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEngine, benchRedis } from './support/environment.js';
import { now, percentile, report, round, runBench } from './support/children.js';
import { pool } from './support/hearth.js';
import { startCluster } from './support/cluster.js';
import { CONNECTIONS, SECONDS, loadTool, parseWrk, run, type LoadResult } from './support/load.js';
import { createWorkspace, request, type WorkspaceFixture } from '../test/support/harness.js';

const POSTS = Number(process.env.BENCH_POSTS ?? 500);
const OTHER_POSTS = 50;
const CATEGORIES = ['bread', 'cake', 'pastry', 'coffee', 'news'];
const EDIT_EVERY_MS = 1_000;

async function admin(url: string, ws: WorkspaceFixture, method: string, path: string, body: unknown = {}) {
  const res = await request(url, `/admin/workspaces/${ws.id}${path}`, { method, token: ws.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body as { id: string };
}

/** Published posts `post-0..count-1`, spread over the categories; answers their ids. */
async function seed(url: string, ws: WorkspaceFixture, count: number): Promise<string[]> {
  const categories = await Promise.all(CATEGORIES.map((slug) => admin(url, ws, 'POST', '/categories', { slug, name: slug })));
  const ids: string[] = [];
  await pool(count, 4, async (i) => {
    const post = await admin(url, ws, 'POST', '/posts', {
      locale: 'en',
      slug: `post-${i}`,
      title: `Bread notes ${i}`,
      categoryId: categories[i % categories.length].id,
      tags: ['bench'],
      contentMarkdown: `## Part ${i}\n\n${'Lorem ipsum dolor sit amet, **consectetur** adipiscing elit. '.repeat(10)}`,
    });
    await admin(url, ws, 'POST', `/posts/${post.id}/publish`);
    ids[i] = post.id;
  });
  return ids;
}

/** wrk over the paths, in turn (a Lua script), with the key header. */
async function wrkMix(base: string, paths: string[], apiKey: string, seconds: number): Promise<LoadResult> {
  const script = join(mkdtempSync(join(tmpdir(), 'hearth-churn-')), 'mix.lua');
  writeFileSync(
    script,
    [
      `local paths = { ${paths.map((p) => JSON.stringify(p)).join(', ')} }`,
      'local i = 0',
      `wrk.headers["X-Api-Key"] = ${JSON.stringify(apiKey)}`,
      'request = function()',
      '  i = i % #paths + 1',
      '  return wrk.format("GET", paths[i])',
      'end',
    ].join('\n'),
  );
  return parseWrk(await run('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '--timeout', '30s', '-s', script, base]));
}

await runBench(async (cleanup) => {
  if (loadTool() !== 'wrk') throw new Error('bench:churn needs wrk (apt-get install wrk) for its URL mix');
  const engine = await benchEngine('bench_churn', cleanup);
  const redisUrl = await benchRedis(cleanup);
  const cluster = await startCluster({ engine, redisUrl }, cleanup, { nodes: 1 });
  const node = { url: cluster.url, commands: cluster.commands };
  const killAt = process.env.BENCH_KILL === '1' && cluster.nodes.length > 1 ? SECONDS * 500 : null;
  const a = await createWorkspace(node.url, { slug: 'churn-a', name: 'Churn A' });
  const b = await createWorkspace(node.url, { slug: 'churn-b', name: 'Churn B' });
  const seedFrom = now();
  const [postsA, postsB] = await Promise.all([seed(node.url, a, POSTS), seed(node.url, b, OTHER_POSTS)]);
  const paths = [
    ...Array.from({ length: 100 }, (_, i) => `/external/posts/post-${Math.floor((i * POSTS) / 100)}`),
    ...Array.from({ length: 10 }, (_, i) => `/external/posts?limit=20&page=${i + 1}`),
    ...CATEGORIES.map((slug) => `/external/posts?limit=20&category=${slug}`),
  ];
  console.log(
    `churn bench on ${engine.kind}, ${cluster.describe()}${killAt ? ', one killed halfway through the churn phase' : ''}: ${POSTS} + ${OTHER_POSTS} posts seeded in ${((now() - seedFrom) / 1000).toFixed(1)} s; ${paths.length} URLs, wrk 1 thread, ${CONNECTIONS} connections, ${SECONDS} s per phase`,
  );
  for (const path of paths) {
    const res = await request(node.url, path, { apiKey: a.apiKey });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  }

  const quiet = await wrkMix(node.url, paths, a.apiKey, SECONDS);

  // The editors: one post of each workspace edited and republished every second, the pair timed.
  const edits: number[] = [];
  let failedEdits = 0;
  let editing = true;
  const editor = async (ws: WorkspaceFixture, ids: string[]) => {
    for (let i = 0; editing; i += 1) {
      const from = now();
      const id = ids[(i * 37) % ids.length];
      try {
        await admin(node.url, ws, 'PATCH', `/posts/${id}`, { contentMarkdown: `Edited ${i} at ${new Date().toISOString()}` });
        await admin(node.url, ws, 'POST', `/posts/${id}/publish`);
        edits.push(now() - from);
      } catch (error) {
        // Only while a node is being killed may an edit fail (its answer lost with the node).
        if (killAt === null) throw error;
        failedEdits += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, EDIT_EVERY_MS - (now() - from))));
    }
  };
  const idleStart = await node.commands();
  const idleFrom = now();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const idlePerMs = ((await node.commands()) - idleStart) / (now() - idleFrom);
  const commandsBefore = await node.commands();
  const phaseFrom = now();
  const editors = Promise.all([editor(a, postsA), editor(b, postsB)]);
  const killing = killAt === null ? null : setTimeout(() => cluster.kill(cluster.nodes.length - 1), killAt);
  const churn = await wrkMix(node.url, paths, a.apiKey, SECONDS);
  editing = false;
  clearTimeout(killing ?? undefined);
  await editors;
  const phaseMs = now() - phaseFrom;
  // The editors' own commands are part of the phase: the figure is what the site costs the engine per read.
  // A killed node's commands leave the sum with it: no figure then.
  const commandsPerRequest = killAt === null ? ((await node.commands()) - commandsBefore - idlePerMs * phaseMs) / churn.requests : NaN;

  const sortedEdits = [...edits].sort((x, y) => x - y);
  const editP99 = percentile(sortedEdits, 99);
  const ratio = churn.rps / quiet.rps;
  const bar = ratio >= 0.8 && churn.p99Ms <= 20 && (churn.maxMs ?? Infinity) <= 100 && editP99 <= 250;
  const line = (label: string, r: LoadResult) =>
    `  ${label.padEnd(24)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50Ms.toFixed(1).padStart(6)} ms  p99 ${r.p99Ms.toFixed(1).padStart(7)} ms  max ${(r.maxMs ?? NaN).toFixed(1).padStart(7)} ms${r.failures ? `  ${r.failures} FAILED` : ''}`;
  report(
    [
      line('reads alone', quiet),
      line('reads while publishing', churn),
      `  edits (PATCH + publish): ${edits.length}${failedEdits ? ` (${failedEdits} FAILED)` : ''}, p50 ${percentile(sortedEdits, 50).toFixed(0)} ms, p99 ${editP99.toFixed(0)} ms, max ${sortedEdits.at(-1)?.toFixed(0)} ms`,
      `  ratio ${ratio.toFixed(3)} | ${commandsPerRequest.toFixed(3)} engine commands per read | bar (ratio >= 0.8, p99 <= 20 ms, max <= 100 ms, edits <= 250 ms): ${bar ? 'met' : 'NOT met'}`,
    ],
    {
      bench: 'churn',
      posts: POSTS,
      urls: paths.length,
      quiet_rps: round(quiet.rps, 0),
      churn_rps: round(churn.rps, 0),
      ratio: round(ratio, 3),
      p99_ms: round(churn.p99Ms, 1),
      max_ms: round(churn.maxMs ?? NaN, 1),
      quiet_p99_ms: round(quiet.p99Ms, 1),
      edit_p99_ms: round(editP99, 0),
      edits: edits.length,
      engine_commands_per_request: round(commandsPerRequest, 3),
      failed_requests: quiet.failures + churn.failures,
      nodes: cluster.nodes.length,
      ...(cluster.balancer ? { balancer: 'haproxy' } : {}),
      ...(killAt !== null ? { node_killed: true, failed_edits: failedEdits } : {}),
      engine: engine.kind,
    },
  );
});
