/**
 * One Hearth node in a process of its own, configured from the environment as the real entry is
 * (`loadConfig(process.env)` + `createNode`), running the JavaScript `npm start` runs: the build in
 * `dist/` (`startNode` builds it), not `src/` under tsx, whose transform adds work of its own to every
 * closure a hot path creates. The orchestrator asks it, over IPC only (no HTTP route is
 * added), for the driver commands it has sent (`commandStarted`, counted when the URI turns on
 * `monitorCommands`; the job queue's apart) and the CPU time it has used, its heap after a full GC or its memory as it is, its Socket.IO connections, or to publish domain events.
 */
import type { NodeOptions } from '../../src/app/node.js';
import { BUILT_SERVER, now, serve } from './children.js';
import { traceChat } from './chat-trace.js';

const { loadConfig } = (await import(`${BUILT_SERVER}/config/config.js`)) as typeof import('../../src/config/config.js');
const { createNode } = (await import(`${BUILT_SERVER}/app/node.js`)) as typeof import('../../src/app/node.js');
const { shippedLogger } = (await import(`${BUILT_SERVER}/app/shipped-logger.js`)) as typeof import('../../src/app/shipped-logger.js');

const config = loadConfig(process.env);
const node = await createNode({
  config: config as NodeOptions['config'],
  logger: shippedLogger(config.LOG_LEVEL),
  jobsProcessEvery: process.env.BENCH_JOBS_PROCESS_EVERY ? Number(process.env.BENCH_JOBS_PROCESS_EVERY) : undefined,
});

// The job queue's own polling (collection `jobs`) is counted apart: it runs on a timer, not per request.
let commands = 0;
let jobCommands = 0;
node.deps.db.getClient().on('commandStarted', (event) => {
  if (event.command[event.commandName] === 'jobs') jobCommands += 1;
  else commands += 1;
});

// BENCH_SLOW_COMMANDS_MS: each driver command slower than that, on stderr (what a slow phase spends the engine on).
const slowMs = Number(process.env.BENCH_SLOW_COMMANDS_MS ?? 0);
if (slowMs > 0) {
  const started = new Map<number, string>();
  const client = node.deps.db.getClient();
  client.on('commandStarted', (event) => {
    const { [event.commandName]: collection, filter, query, pipeline } = event.command as Record<string, unknown>;
    started.set(event.requestId, `${event.commandName} ${String(collection)} ${JSON.stringify(filter ?? query ?? pipeline ?? '').slice(0, 300)}`);
  });
  const finished = (event: { requestId: number; duration: number }) => {
    const what = started.get(event.requestId);
    started.delete(event.requestId);
    if (event.duration >= slowMs) process.stderr.write(`slow command ${event.duration} ms: ${what}\n`);
  };
  client.on('commandSucceeded', finished);
  client.on('commandFailed', finished);
}

const chatTrace = process.env.BENCH_TRACE ? traceChat(node) : () => ({});

const gc = (globalThis as { gc?: () => void }).gc;

serve({
  ops: () => {
    const { user, system } = process.cpuUsage();
    return { commands, jobCommands, cpuMicros: user + system };
  },
  heap: () => {
    if (!gc) throw new Error('run with --expose-gc');
    gc();
    gc();
    return { heapUsed: process.memoryUsage().heapUsed };
  },
  /** The process's memory as it is (no collection first): where the RSS goes during a burst. */
  memory: () => ({ ...process.memoryUsage() }),
  trace: () => ({ trace: chatTrace() }),
  sockets: () => ({ widget: node.deps.realtime.io.of('/widget').sockets.size }),
  /**
   * `count` post.published events for one workspace (posts `<prefix>0`...), all at once; answers with each
   * one's publish time, by index (an array: the answer is serialized on this node's thread, during the burst).
   */
  publish: async (message) => {
    const publishedAt: number[] = [];
    await Promise.all(
      Array.from({ length: message.count as number }, (_, i) => {
        publishedAt[i] = now();
        const at = new Date().toISOString();
        return node.deps.events.publish({ event: 'post.published', workspaceId: message.workspaceId, postId: `${message.prefix}${i}`, slug: `post-${i}`, title: `Post ${i}`, publishedAt: at, at });
      }),
    );
    return { publishedAt };
  },
});

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void node.stop().finally(() => process.exit(0));
});

process.send!({ type: 'ready', url: node.url });
