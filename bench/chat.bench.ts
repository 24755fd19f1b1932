/**
 * Live-chat benchmark: N visitors hold Socket.IO connections to two nodes sharing Redis; agents reply at
 * a fixed rate through either node; we measure connections held, server memory per connection and the
 * latency from the agent's POST to the visitor's receipt.
 *
 *   npm run bench:chat                      (1,000 visitors, 10 replies/s for 10 s)
 *   BENCH_VISITORS=2000 BENCH_RATE=100 BENCH_SECONDS=20 npm run bench:chat
 *
 * The visitor clients run in a forked child process so that the parent's memory figures are the two
 * server nodes' only. Times are taken as performance.timeOrigin + performance.now() in both processes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { io as connectClient, type Socket } from 'socket.io-client';

const now = () => performance.timeOrigin + performance.now();

// A full GC before each memory reading (the npm script cannot pass --expose-gc).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type ToChild = { type: 'connect'; urls: string[]; tokens: string[] } | { type: 'stop' };
type FromChild = { type: 'connected'; count: number; failed: number } | { type: 'received'; body: string; at: number };

// ---------------------------------------------------------------------------------------------
// Child: the visitors
// ---------------------------------------------------------------------------------------------

async function runClients(): Promise<void> {
  const sockets: Socket[] = [];
  const send = (message: FromChild) => process.send!(message);
  process.on('message', async (message: ToChild) => {
    if (message.type === 'stop') {
      for (const socket of sockets) socket.close();
      process.exit(0);
    }
    let failed = 0;
    // Connect in slices so the handshake storm does not starve the servers.
    for (let i = 0; i < message.tokens.length; i += 50) {
      await Promise.all(
        message.tokens.slice(i, i + 50).map(
          (token, j) =>
            new Promise<void>((resolve) => {
              const socket = connectClient(`${message.urls[(i + j) % message.urls.length]}/widget`, {
                auth: { conversationToken: token },
                transports: ['websocket'],
                reconnection: false,
                forceNew: true,
              });
              socket.on('message.created', (payload: { message: { body: string } }) => send({ type: 'received', body: payload.message.body, at: now() }));
              socket.once('connect', () => (sockets.push(socket), resolve()));
              socket.once('connect_error', () => (failed++, resolve()));
            }),
        ),
      );
    }
    send({ type: 'connected', count: sockets.length, failed });
  });
}

// ---------------------------------------------------------------------------------------------
// Parent: servers, agents, measurement
// ---------------------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function pool<T>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index], index);
      }
    }),
  );
}

async function runParent(): Promise<void> {
  const visitors = Number(process.env.BENCH_VISITORS ?? 1000);
  const rate = Number(process.env.BENCH_RATE ?? 10);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);

  const { startEngine, startRedis } = await import('../test/support/services.js');
  const { loadConfig } = await import('../src/config/config.js');
  const { createNode } = await import('../src/app/node.js');
  const { request, createWorkspace } = await import('../test/support/harness.js');
  type NodeOptions = import('../src/app/node.js').NodeOptions;
  type HearthNode = import('../src/app/node.js').HearthNode;

  console.log(`live-chat bench: ${visitors} visitors on 2 nodes + Redis, agents replying at ${rate}/s for ${seconds}s`);
  const engine = await startEngine();
  const redis = await startRedis();
  const logger = pino({ level: 'error' });
  const env = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: engine.url,
    MONGODB_DB: `bench_chat_${Date.now().toString(36)}`,
    REDIS_URL: redis.url,
    ADMIN_EMAIL: 'operator@test.local',
    ADMIN_PASSWORD: 'operator-password',
    KEY_ENCRYPTION_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'error',
  };
  const nodes: HearthNode[] = [];
  for (let i = 0; i < 2; i += 1) {
    nodes.push(await createNode({ config: loadConfig(env) as NodeOptions['config'], logger, jobsProcessEvery: 5_000 }));
  }
  const [a, b] = nodes;
  let child: ChildProcess | undefined;
  try {
    const ws = await createWorkspace(a.url);
    const put = await request(a.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { enabled: true, greeting: 'Hi' } });
    const publishableKey = put.body.publishableKey as string;

    const conversations: { id: string; token: string }[] = new Array(visitors);
    const startedAt = now();
    await pool(Array.from({ length: visitors }), 20, async (_, i) => {
      const res = await request(nodes[i % 2].url, '/external/live-chat/conversations', { publishableKey, body: { visitorSessionId: `bench-${i}` } });
      if (res.status !== 201) throw new Error(`start failed: ${res.status} ${res.text}`);
      conversations[i] = { id: res.body.conversationId, token: res.body.conversationToken };
    });
    console.log(`  ${visitors} conversations started in ${((now() - startedAt) / 1000).toFixed(1)} s`);

    gc();
    const before = process.memoryUsage();
    child = fork(process.argv[1], ['--clients'], { execArgv: process.execArgv, stdio: 'inherit' });
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const connected = new Promise<{ count: number; failed: number }>((resolve) => {
      child!.on('message', (message: FromChild) => {
        if (message.type === 'connected') resolve(message);
        else {
          const start = sentAt.get(message.body);
          if (start !== undefined) {
            latencies.push(message.at - start);
            sentAt.delete(message.body);
          }
        }
      });
    });
    const connectStart = now();
    child.send({ type: 'connect', urls: [a.url, b.url], tokens: conversations.map((c) => c.token) } satisfies ToChild);
    const { count, failed } = await connected;
    const connectSeconds = (now() - connectStart) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 500));
    gc();
    const after = process.memoryUsage();
    const held = nodes.map((node) => node.deps.realtime.io.of('/widget').sockets.size);

    // Agents reply at a fixed rate to random conversations, alternating nodes.
    const total = Math.round(rate * seconds);
    const interval = 1000 / rate;
    const posts: Promise<void>[] = [];
    let postErrors = 0;
    const loopStart = now();
    for (let i = 0; i < total; i += 1) {
      const due = loopStart + i * interval;
      const wait = due - now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const conversation = conversations[Math.floor(Math.random() * conversations.length)];
      const body = `r${i}`;
      sentAt.set(body, now());
      posts.push(
        request(nodes[i % 2].url, `/admin/workspaces/${ws.id}/conversations/${conversation.id}/messages`, { token: ws.token, body: { body } }).then((res) => {
          if (res.status !== 201) postErrors++;
        }),
      );
    }
    await Promise.all(posts);
    const deadline = now() + 5_000;
    while (sentAt.size > 0 && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

    latencies.sort((x, y) => x - y);
    const heapPerConn = (after.heapUsed - before.heapUsed) / Math.max(1, count);
    const rssPerConn = (after.rss - before.rss) / Math.max(1, count);
    const result = {
      visitors,
      connectionsHeld: { total: held[0] + held[1], nodeA: held[0], nodeB: held[1], clientFailures: failed, connectSeconds: Number(connectSeconds.toFixed(2)) },
      memoryPerConnection: { heapKiB: Number((heapPerConn / 1024).toFixed(1)), rssKiB: Number((rssPerConn / 1024).toFixed(1)), note: 'both server nodes (one process), clients excluded' },
      replies: { sent: total, received: latencies.length, lost: sentAt.size, postErrors, ratePerSecond: rate },
      latencyMs: {
        p50: Number(percentile(latencies, 50).toFixed(1)),
        p90: Number(percentile(latencies, 90).toFixed(1)),
        p99: Number(percentile(latencies, 99).toFixed(1)),
        max: Number((latencies.at(-1) ?? NaN).toFixed(1)),
      },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    child?.send({ type: 'stop' } satisfies ToChild);
    await Promise.all(nodes.map((node) => node.stop()));
    await redis.stop();
    await engine.stop();
  }
}

if (process.argv.includes('--clients')) await runClients();
else
  await runParent().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
