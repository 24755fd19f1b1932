/**
 * `npm run bench:webhooks`: 2,000 post.published events in a burst against one workspace whose webhook
 * points at a local receiver. Reports deliveries per second and publish-to-receipt latency percentiles.
 * BENCH_EVENTS and BENCH_PROCESS_EVERY (ms, Agenda polling; default the server's 1000) tune it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { createNode, type NodeOptions } from '../src/app/node.js';
import { workspaceStore } from '../src/workspaces/workspaces.model.js';
import { startEngine } from '../test/support/services.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const PROCESS_EVERY = process.env.BENCH_PROCESS_EVERY ? Number(process.env.BENCH_PROCESS_EVERY) : undefined;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const engine = await startEngine();
  const publishedAt = new Map<string, number>();
  const receivedAt = new Map<string, number>();
  let duplicates = 0;
  let done: () => void = () => undefined;
  const allReceived = new Promise<void>((resolve) => (done = resolve));

  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { postId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { postId: string };
      if (receivedAt.has(postId)) duplicates += 1;
      else receivedAt.set(postId, performance.now());
      res.writeHead(200).end();
      if (receivedAt.size === EVENTS) done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;

  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: engine.url,
    MONGODB_DB: `bench_webhooks_${Date.now().toString(36)}`,
    KEY_ENCRYPTION_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SEED_DEMO: 'false',
  });
  const node = await createNode({ config: config as NodeOptions['config'], logger: pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' }), jobsProcessEvery: PROCESS_EVERY });
  try {
    const workspace = (await workspaceStore(node.deps.db).create({ slug: 'bench', name: 'Bench', locales: ['en'], defaultLocale: 'en' }))!;
    await workspaceStore(node.deps.db).update(workspace.id, { webhookUrl: `http://127.0.0.1:${port}/hook?secret=bench` });

    const start = performance.now();
    await Promise.all(
      Array.from({ length: EVENTS }, (_, i) => {
        const postId = `post${i}`;
        publishedAt.set(postId, performance.now());
        return node.deps.events.publish({
          event: 'post.published',
          workspaceId: workspace.id,
          postId,
          slug: `post-${i}`,
          title: `Post ${i}`,
          publishedAt: new Date().toISOString(),
          at: new Date().toISOString(),
        });
      }),
    );
    const publishMs = performance.now() - start;
    console.error(`published ${EVENTS} events in ${Math.round(publishMs)} ms; waiting for deliveries`);
    const timeout = setTimeout(() => done(), 10 * 60_000);
    await allReceived;
    clearTimeout(timeout);
    const totalMs = performance.now() - start;

    const latencies = [...receivedAt.entries()].map(([id, at]) => at - publishedAt.get(id)!).sort((a, b) => a - b);
    const figures = {
      events: EVENTS,
      received: receivedAt.size,
      duplicates,
      processEveryMs: PROCESS_EVERY ?? 1000,
      publishBurstMs: Math.round(publishMs),
      publishPerSecond: Math.round((EVENTS / publishMs) * 1000),
      totalMs: Math.round(totalMs),
      deliveriesPerSecond: Math.round((receivedAt.size / totalMs) * 1000),
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p90: Math.round(percentile(latencies, 90)),
        p99: Math.round(percentile(latencies, 99)),
        max: Math.round(latencies[latencies.length - 1]),
      },
    };
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await node.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await engine.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
