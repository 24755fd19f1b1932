/**
 * `npm run bench`: the content, churn, chat, webhooks and console benches one after the other (each in its own process,
 * each with its own engine unless MONGODB_URI / REDIS_URL say otherwise), their output as it comes,
 * then a short table and the five JSON result lines, which are the last five lines. A bench that
 * fails still gets its line (`{"bench":…,"error":…}`) and the run exits 1.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH_DIR } from './support/children.js';

const BENCHES = ['content', 'churn', 'chat', 'webhooks', 'console'] as const;

function runOne(name: string): Promise<Record<string, any>> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, `${name}.bench.ts`)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let result: Record<string, any> | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"bench":')) result = JSON.parse(line) as Record<string, any>;
      else console.log(line);
    });
    child.once('exit', (code, signal) => resolve(result && code === 0 ? result : { bench: name, error: `exited ${code ?? signal}` }));
  });
}

const results: Record<string, any>[] = [];
for (const name of BENCHES) {
  console.log(`\n== ${name} ==`);
  results.push(await runOne(name));
}

const fmt = (value: string | number | null | undefined) => (value === null || value === undefined ? '?' : String(value));
const describe = (r: Record<string, any>): string => {
  if (r.error) return `FAILED (${r.error})`;
  switch (r.bench) {
    case 'content':
      return `list ${fmt(r.list_rps)} req/s (x${fmt(r.list_ratio)} bare), slug ${fmt(r.slug_rps)} req/s (x${fmt(r.slug_ratio)}), cold list ${fmt(r.cold_list_rps)} req/s, ${fmt(r.db_ops_per_warm_request)} db ops/warm req`;
    case 'chat':
      return `${r.visitors} visitors / ${r.nodes} nodes: p50 ${fmt(r.p50_ms)} ms, p99 ${fmt(r.p99_ms)} ms, ${fmt(r.heap_kib_per_socket)} KiB heap/socket, ${fmt(r.db_ops_per_message)} db ops/msg`;
    case 'console':
      return `first paint median/max ms: chats ${fmt(r.chats_first_paint_ms)}/${fmt(r.chats_first_paint_max_ms)}, submissions ${fmt(r.submissions_first_paint_ms)}/${fmt(r.submissions_first_paint_max_ms)}, bookings ${fmt(r.bookings_first_paint_ms)}/${fmt(r.bookings_first_paint_max_ms)}, team ${fmt(r.team_first_paint_ms)}/${fmt(r.team_first_paint_max_ms)}; console ${fmt(r.console_gzip_kb)} KB gzip`;
    default:
      return `${r.publishes} publishes: ${fmt(r.deliveries_per_s)} deliveries/s, p50 ${fmt(r.p50_ms)} ms, p99 ${fmt(r.p99_ms)} ms, lost ${fmt(r.lost)}, duplicated ${fmt(r.duplicated)}`;
  }
};
console.log('\nbench      engine                figures');
for (const r of results) console.log(`${r.bench.padEnd(10)} ${fmt(r.engine).padEnd(21)} ${describe(r)}`);
for (const r of results) console.log(JSON.stringify(r));
process.exit(results.some((r) => r.error) ? 1 : 0);
