import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestNodeOptions } from './harness.js';

/**
 * A Hearth node in a child process (started as `startTestNode` starts one), for tests that must kill a
 * node outright (SIGKILL: no shutdown code runs, nothing in flight is finished or recorded) or stop it as
 * `npm start` stops on SIGTERM.
 */
export interface NodeProcess {
  url: string;
  /** Publishes `count` domain events built from `event` (`{i}` in its string values becomes the index), all at once. */
  publish(count: number, event: Record<string, unknown>): Promise<void>;
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: the node holds its sockets but answers nothing meanwhile (a node stuck under load). */
  pause(): void;
  resume(): void;
  /** SIGTERM, as a rolling deploy stops a node: its shutdown code runs; resolves once the process has exited. */
  stop(): Promise<void>;
}

export async function startNodeProcess(options: Pick<TestNodeOptions, 'dbName' | 'env' | 'redis'>): Promise<NodeProcess> {
  const child: ChildProcess = fork(join(dirname(fileURLToPath(import.meta.url)), 'node-process.child.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, HEARTH_NODE_PROCESS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url: string }) => resolve(message.url));
    child.once('exit', (code) => reject(new Error(`node process exited (${code}) before it was ready`)));
  });
  return {
    url,
    publish: (count, event) =>
      new Promise((resolve) => {
        child.once('message', () => resolve());
        child.send({ count, event });
      }),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
