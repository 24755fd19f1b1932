/**
 * The orchestrator only spawns and measures: every server, load generator, visitor crowd and webhook
 * receiver is a child process with its own event loop, so what one does never slows what another measures.
 * Children speak to the orchestrator over the IPC channel with `{id, type, ...}` requests and
 * `{id, ...}` replies, plus unsolicited messages (no `id`) such as `ready`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { buildSync } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The compiled server (`tsc -p tsconfig.build.json`), as a URL to import from; BENCH_BUILT_SERVER names another build (`bench:builds`). */
export const BUILT_SERVER = process.env.BENCH_BUILT_SERVER ?? pathToFileURL(join(BENCH_DIR, '..', 'dist')).href;

export const now = () => performance.timeOrigin + performance.now();

export interface Child {
  process: ChildProcess;
  /** The child's `ready` message (sent once it listens or is connected). */
  ready: Promise<Record<string, any>>;
  ask<T = any>(type: string, payload?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  /** Unsolicited messages other than `ready`. */
  onMessage(listener: (message: Record<string, any>) => void): void;
  stop(): Promise<void>;
}

/** Where each child script is compiled to (one level below bench/, like bench/support, so its paths hold). */
const COMPILED_DIR = join(BENCH_DIR, '.children');
const compiled = new Set<string>();

/**
 * `bench/support/<name>.ts` as plain JavaScript, compiled once per run (esbuild; packages stay imports):
 * a child run under tsx carries its loader thread (about 33 MB of RSS more, and CPU for the transform),
 * which a node started with `npm start` does not.
 */
function compiledChild(name: string): string {
  const outfile = join(COMPILED_DIR, `${name}.mjs`);
  if (!compiled.has(name)) {
    buildSync({ entryPoints: [join(BENCH_DIR, 'support', `${name}.ts`)], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
    compiled.add(name);
  }
  return outfile;
}

/**
 * Forks `bench/support/<name>.ts`, compiled; `--expose-gc` so memory readings follow a full collection.
 * `nodeFlags` are added to those (a profiler's, say). Its stdout is the bench's unless `stdout` names an
 * open file (a node's request log).
 */
export function spawnChild(name: string, env: Record<string, string | undefined> = {}, args: string[] = [], nodeFlags: string[] = [], stdout: number | 'inherit' = 'inherit'): Child {
  const child = fork(compiledChild(name), args, {
    execArgv: ['--expose-gc', ...nodeFlags],
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  const pending = new Map<number, (reply: any) => void>();
  const listeners: ((message: Record<string, any>) => void)[] = [];
  let nextId = 1;
  let exited = false;
  const ready = new Promise<Record<string, any>>((resolve, reject) => {
    child.on('message', (message: Record<string, any>) => {
      if (typeof message.id === 'number' && pending.has(message.id)) {
        pending.get(message.id)!(message);
        pending.delete(message.id);
      } else if (message.type === 'ready') resolve(message);
      else if (message.type === 'error') reject(new Error(`${name}: ${message.message}`));
      else for (const listener of listeners) listener(message);
    });
    child.once('exit', (code, signal) => {
      exited = true;
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready`));
      for (const resolveReply of pending.values()) resolveReply({ error: `${name} exited` });
      pending.clear();
    });
  });
  ready.catch(() => undefined);
  return {
    process: child,
    ready,
    ask(type, payload = {}, timeoutMs = 120_000) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => (pending.delete(id), reject(new Error(`${name}: no answer to ${type} in ${timeoutMs} ms`))), timeoutMs);
        pending.set(id, (reply) => {
          clearTimeout(timer);
          if (reply.error) reject(new Error(`${name}: ${reply.error}`));
          else resolve(reply);
        });
        child.send({ id, type, ...payload });
      });
    },
    onMessage: (listener) => void listeners.push(listener),
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited || child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** Child side: answers the orchestrator's requests with `handlers[type]`. */
export function serve(handlers: Record<string, (message: Record<string, any>) => Promise<Record<string, unknown>> | Record<string, unknown>>): void {
  process.on('message', async (message: Record<string, any>) => {
    const handler = handlers[message.type];
    try {
      if (!handler) throw new Error(`unknown request ${message.type}`);
      process.send!({ id: message.id, ...(await handler(message)) });
    } catch (error) {
      process.send!({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  // The orchestrator going away (crash, Ctrl-C) takes its children with it.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const round = (value: number, digits = 1) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

let finalLine: string | undefined;

/**
 * Reports a bench's figures: the short human block now, the JSON object once the cleanups have run
 * (`runBench`), so it stays the very last line whatever the stopping children still log.
 */
export function report(lines: string[], result: Record<string, unknown>): void {
  for (const line of lines) console.log(line);
  finalLine = JSON.stringify(result);
}

/** Runs `main`, always running its cleanups, and exits (children and sockets must not keep us alive). */
export async function runBench(main: (cleanup: (step: () => Promise<unknown>) => void) => Promise<void>): Promise<void> {
  const steps: (() => Promise<unknown>)[] = [];
  let code = 0;
  const stopAll = async () => {
    for (const step of steps.reverse()) await step().catch((error: unknown) => console.error('cleanup:', error));
    steps.length = 0;
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
  try {
    await main((step) => void steps.push(step));
  } catch (error) {
    console.error(error);
    code = 1;
  }
  await stopAll();
  if (finalLine) console.log(finalLine);
  process.exit(code);
}
