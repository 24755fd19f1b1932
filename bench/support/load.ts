/**
 * HTTP load from a separate process: `wrk` (Debian package `wrk`; installed with apt-get when missing
 * and we are root), else autocannon's CLI in a child process, and the result says so. The same settings
 * drive Hearth and the bare server: `wrk -t1 -c10 -d10s` unless BENCH_SECONDS / BENCH_CONNECTIONS say
 * otherwise. BENCH_LOAD=autocannon forces the fallback.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

export interface LoadResult {
  rps: number;
  requests: number;
  /** Answers outside 2xx/3xx plus socket errors and timeouts: a run with any is not a clean figure. */
  failures: number;
  p50Ms: number;
  p99Ms: number;
  /** The slowest request, when the tool says (wrk's latency line). */
  maxMs?: number;
  tool: 'wrk' | 'autocannon-child';
  /**
   * The server's CPU time (user + system, all its threads) per answered request, when the server says
   * what it used: unlike a rate, a neighbour taking the machine's cores does not move it.
   */
  cpuUsPerRequest?: number;
}

/** A server under load: where to send it, and (optionally) how to ask it for the CPU time it has used, in µs. */
export interface LoadTarget {
  url: string;
  headers?: Record<string, string>;
  cpuMicros?: () => Promise<number>;
}

let tool: LoadResult['tool'] | undefined;

function hasWrk(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

/** Decides once per run which tool makes the load; prints one line when it is not wrk. */
export function loadTool(): LoadResult['tool'] {
  if (tool) return tool;
  if (process.env.BENCH_LOAD === 'autocannon') return (tool = 'autocannon-child');
  if (hasWrk()) return (tool = 'wrk');
  if (process.getuid?.() === 0) {
    const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'wrk'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (install().status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'ignore' });
      install();
    }
    if (hasWrk()) return (tool = 'wrk');
  }
  console.log('wrk not found (apt-get install wrk, as root): load made by autocannon in a child process instead; figures marked "autocannon-child"');
  return (tool = 'autocannon-child');
}

export function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${err || out}`))));
  });
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function wrkLatency(output: string, percent: string): number {
  const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(output);
  return match ? Number(match[1]) * UNIT_MS[match[2]] : NaN;
}

export function parseWrk(output: string): LoadResult {
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? NaN);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  if (!Number.isFinite(rps)) throw new Error(`could not read wrk's output:\n${output}`);
  const latency = /^\s*Latency\s+[\d.]+(?:us|ms|s|m)\s+[\d.]+(?:us|ms|s|m)\s+([\d.]+)(us|ms|s|m)/m.exec(output);
  const maxMs = latency ? Number(latency[1]) * UNIT_MS[latency[2]] : undefined;
  return { rps, requests, failures: non2xx + socketErrors, p50Ms: wrkLatency(output, '50'), p99Ms: wrkLatency(output, '99'), maxMs, tool: 'wrk' };
}

/** Load against one URL for `seconds` (SECONDS) with CONNECTIONS connections (one wrk thread). */
export async function measure(url: string, headers: Record<string, string> = {}, seconds = SECONDS): Promise<LoadResult> {
  const headerArgs = (flag: string, join: string) => Object.entries(headers).flatMap(([name, value]) => [flag, `${name}${join}${value}`]);
  if (loadTool() === 'wrk') {
    const output = await run('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '--timeout', '30s', ...headerArgs('-H', ': '), url]);
    return parseWrk(output);
  }
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const output = await run(process.execPath, [cli, '-c', String(CONNECTIONS), '-d', String(seconds), '-t', '30', '-j', ...headerArgs('-H', '='), url]);
  const result = JSON.parse(output) as { requests: { total: number; average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; timeouts: number; duration: number };
  return {
    rps: result.requests.total / result.duration,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    tool: 'autocannon-child',
  };
}

/**
 * Two servers measured in alternation, `rounds` times `seconds / rounds` each, so that load from outside
 * the bench (a shared machine) falls on both alike instead of on whichever ran in a busy moment. Each
 * side's rate is the mean of its rounds' rates (the rounds are equally long, so all requests / all time),
 * its latencies the median round's; the per-round ratios say how steady the comparison was. A side that can
 * say what CPU time it used also gets its CPU time per request over all its rounds.
 */
export async function measurePaired(subject: LoadTarget, yardstick: LoadTarget, rounds: number, seconds = SECONDS): Promise<{ subject: LoadResult; yardstick: LoadResult; roundRatios: number[] }> {
  const per = Math.max(1, Math.round(seconds / rounds));
  const subjectRounds: LoadResult[] = [];
  const yardstickRounds: LoadResult[] = [];
  const cpuUsed = new Map<LoadTarget, number>([
    [subject, 0],
    [yardstick, 0],
  ]);
  for (let round = 0; round < rounds; round += 1) {
    // Alternate which goes first, so neither always follows the other's load.
    const order = round % 2 === 0 ? [yardstick, subject] : [subject, yardstick];
    for (const side of order) {
      const before = await side.cpuMicros?.();
      const result = await measure(side.url, side.headers, per);
      if (before !== undefined) cpuUsed.set(side, cpuUsed.get(side)! + (await side.cpuMicros!()) - before);
      (side === subject ? subjectRounds : yardstickRounds).push(result);
    }
  }
  const combine = (side: LoadTarget, results: LoadResult[]): LoadResult => {
    const byRate = [...results].sort((a, b) => a.rps - b.rps);
    const median = byRate[Math.floor(byRate.length / 2)];
    const rps = results.reduce((sum, result) => sum + result.rps, 0) / results.length;
    const requests = results.reduce((sum, result) => sum + result.requests, 0);
    const cpuUsPerRequest = side.cpuMicros ? cpuUsed.get(side)! / requests : undefined;
    return { ...median, rps, requests, failures: results.reduce((sum, result) => sum + result.failures, 0), cpuUsPerRequest };
  };
  return { subject: combine(subject, subjectRounds), yardstick: combine(yardstick, yardstickRounds), roundRatios: subjectRounds.map((result, i) => result.rps / yardstickRounds[i].rps) };
}
