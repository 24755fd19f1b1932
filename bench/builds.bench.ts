/**
 * `npm run bench:builds`: is this change faster? The warm content reads of the working tree's build against
 * those of another commit's (BENCH_BASELINE, default HEAD: what the uncommitted change does), side by side in
 * one run, so that what a shared machine's neighbours do falls on both alike.
 *
 * - The baseline is checked out into a temporary git worktree (sharing this node_modules) and compiled
 *   there as `npm start` compiles; the working tree into `dist/` as every bench does.
 * - Both nodes run on one engine and one Redis, logging each request as shipped (`info`, to a file), and
 *   serve one workspace of BENCH_POSTS published posts (default 60).
 * - Before anything is measured, each node answers the same team traffic through Express (the seeding's
 *   writes, taken in turns, and TEAM_REQUESTS admin reads of the posts), as a node in use has: the requests
 *   the fast path serves share Node's HTTP code with them, and what they leave in V8 (one seeded node, one
 *   not) told the two builds apart before.
 * - `GET /external/posts?limit=50` and `GET /external/posts/post-0`, warm (the fast path), `GET /healthz`
 *   (answered by Express, its first route) and one of the last routes declared, refused for want of a
 *   credential (`late`), loaded by wrk: after two seconds each, the two nodes take turns BENCH_ROUNDS times
 *   (default 10) for two seconds each.
 * - Reported per read: each node's rate and CPU time per request, and the ratios (baseline / working tree
 *   for the CPU time, working tree / baseline for the rate: above 1 is faster).
 *
 * Last line: the JSON figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchEngine, benchRedis } from './support/environment.js';
import { BENCH_DIR, report, round, runBench } from './support/children.js';
import { startNode, type NodeChild } from './support/hearth.js';
import { seedPosts } from './support/content-seed.js';
import { measure, measurePaired } from './support/load.js';
import { createWorkspace, request } from '../test/support/harness.js';

const BASELINE = process.env.BENCH_BASELINE ?? 'HEAD';
const POSTS = Number(process.env.BENCH_POSTS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const REPO = join(BENCH_DIR, '..');
const TEAM_REQUESTS = 1_000;

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr || result.status}`);
  return result.stdout.trim();
}

/** The baseline's compiled server, built in a worktree of its own; removed by `cleanup`. */
function buildBaseline(cleanup: (step: () => Promise<unknown>) => void): { commit: string; builtServer: string } {
  const commit = run('git', ['rev-parse', '--short', BASELINE], REPO);
  const dir = join(mkdtempSync(join(tmpdir(), 'hearth-baseline-')), 'tree');
  run('git', ['worktree', 'add', '--detach', dir, commit], REPO);
  cleanup(async () => {
    run('git', ['worktree', 'remove', '--force', dir], REPO);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  run(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], dir);
  return { commit, builtServer: pathToFileURL(join(dir, 'dist')).href };
}

await runBench(async (cleanup) => {
  const baseline = buildBaseline(cleanup);
  const engine = await benchEngine('bench_builds', cleanup);
  const redisUrl = await benchRedis(cleanup);
  const nodeOptions = { engine, redisUrl, role: 'api' as const, logLevel: 'info' };
  const before = await startNode({ ...nodeOptions, env: { BENCH_BUILT_SERVER: baseline.builtServer } });
  cleanup(() => before.stop());
  const after = await startNode(nodeOptions);
  cleanup(() => after.stop());
  const ws = await createWorkspace(after.url, { slug: 'bench', name: 'Bench', locales: ['en', 'de'], defaultLocale: 'en' });
  await seedPosts([before.url, after.url], ws, POSTS);
  for (const node of [before, after]) {
    for (let i = 0; i < TEAM_REQUESTS; i += 1) {
      const listed = await request(node.url, `/admin/workspaces/${ws.id}/posts?limit=5`, { token: ws.token });
      if (listed.status !== 200) throw new Error(`admin posts: ${listed.status} ${listed.text}`);
    }
  }
  console.log(`builds bench on ${engine.kind}: working tree against ${baseline.commit}, ${POSTS} posts, ${ROUNDS} rounds of 2 s each`);

  const headers = { 'X-Api-Key': ws.apiKey };
  const cpuOf = (node: NodeChild) => async () => (await node.ask<{ cpuMicros: number }>('ops')).cpuMicros;
  const lines: string[] = [];
  const figures: Record<string, unknown> = { bench: 'builds', baseline: baseline.commit };
  // `late`: one of the last routes declared, asked without its credential (a 401 before any engine command).
  const reads = [['list', '/external/posts?limit=50'], ['slug', '/external/posts/post-0'], ['health', '/healthz'], ['late', `/admin/workspaces/${ws.id}/emails`]] as const;
  for (const [name, path] of reads) {
    await measure(before.url + path, headers, 2);
    await measure(after.url + path, headers, 2);
    const { subject, yardstick, roundRatios } = await measurePaired({ url: after.url + path, headers, cpuMicros: cpuOf(after) }, { url: before.url + path, headers, cpuMicros: cpuOf(before) }, ROUNDS, 2 * ROUNDS);
    const rateRatio = subject.rps / yardstick.rps;
    const cpuRatio = yardstick.cpuUsPerRequest! / subject.cpuUsPerRequest!;
    lines.push(
      `  GET ${path.padEnd(26)} ${subject.rps.toFixed(0).padStart(6)} req/s, ${subject.cpuUsPerRequest!.toFixed(1)} µs CPU/req | ${baseline.commit}: ${yardstick.rps.toFixed(0).padStart(6)} req/s, ${yardstick.cpuUsPerRequest!.toFixed(1)} µs | rate x${rateRatio.toFixed(3)} (rounds ${roundRatios.map((ratio) => ratio.toFixed(2)).join(' ')}), CPU x${cpuRatio.toFixed(3)}`,
    );
    Object.assign(figures, {
      [`${name}_rps`]: round(subject.rps, 0),
      [`baseline_${name}_rps`]: round(yardstick.rps, 0),
      [`${name}_rate_ratio`]: round(rateRatio, 3),
      [`${name}_cpu_us`]: round(subject.cpuUsPerRequest!, 1),
      [`baseline_${name}_cpu_us`]: round(yardstick.cpuUsPerRequest!, 1),
      [`${name}_cpu_ratio`]: round(cpuRatio, 3),
    });
  }
  report(lines, { ...figures, engine: engine.kind });
});
