/**
 * `npm run bench:content`: 1,000 published posts in two locales on a private FerretDB, then autocannon
 * against the content reads, each beside a bare `node:http` server answering the same JSON from memory.
 * BENCH_DURATION (seconds, default 10) and BENCH_CONNECTIONS (default 2) tune the runs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { createNode, type NodeOptions } from '../src/app/node.js';
import { startEngine } from '../test/support/services.js';
import { userStore } from '../src/auth/auth.model.js';
import { createWorkspace } from '../src/workspaces/workspaces.service.js';
import { Types } from 'mongoose';
import { ensureBlogType } from '../src/posts/post-types.service.js';
import { contentHash } from '../src/posts/publication.service.js';
import { postStore, type PostContent } from '../src/posts/posts.model.js';
import { renderMarkdown } from '../src/posts/markdown.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 2);
const GROUPS = 500; // x 2 locales = 1,000 posts

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function cannon(url: string, headers: Record<string, string>): Promise<Figures> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION, timeout: 60 });
  return { rps: result.requests.total / DURATION, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors + result.timeouts };
}

function bareServer(body: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })));
}

async function main(): Promise<void> {
  const engine = await startEngine();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: engine.url,
    MONGODB_DB: 'bench_content',
    ADMIN_EMAIL: 'bench@bench.local',
    ADMIN_PASSWORD: 'bench-password',
    KEY_ENCRYPTION_SECRET: 'bench-secret-bench-secret-bench-secret-0',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'silent',
  });
  const node = await createNode({ config: config as NodeOptions['config'], logger: pino({ level: 'silent' }), jobsProcessEvery: 5_000 });
  try {
    const owner = (await userStore(node.deps.db).byEmailWithHash('bench@bench.local'))!;
    const { workspace, apiKey } = await createWorkspace(node.deps, owner, { slug: 'bench', name: 'Bench', locales: ['en', 'de'], defaultLocale: 'en' });

    const started = Date.now();
    // Bulk import (the per-post admin path is exercised by the tests); HTML rendered as the service would.
    const blog = await ensureBlogType(node.deps, workspace.id);
    const body = (i: number) => `## Part ${i}\n\n${'Lorem ipsum dolor sit amet, **consectetur** adipiscing elit. '.repeat(20)}\n\n- one\n- two`;
    const base = Date.parse('2025-01-01T00:00:00Z');
    const posts = Array.from({ length: GROUPS }, (_, i) => {
      const group = new Types.ObjectId().toHexString();
      return (['en', 'de'] as const).map((locale, j) => {
        const content: PostContent = {
          slug: locale === 'en' ? `post-${i}` : `beitrag-${i}`,
          canonicalSlug: `post-${i}`,
          title: locale === 'en' ? `Bread notes ${i}` : `Brotnotizen ${i}`,
          metaDescription: 'A benchmark post.',
          imageUrl: '',
          tags: ['bench'],
          categoryId: null,
          authorName: 'Bench',
          customConfig: {},
          contentMarkdown: body(i),
          contentHtml: renderMarkdown(body(i)),
          jsonLd: null,
        };
        return { type: blog.slug, postTypeId: blog.id, locale, translationGroupId: group, content, publishedAt: new Date(base + (2 * i + j) * 60_000), hash: contentHash(content) };
      });
    }).flat();
    for (let from = 0; from < posts.length; from += 250) await postStore(node.deps.db).importPublished(workspace.id, posts.slice(from, from + 250));
    console.log(`seeded ${GROUPS * 2} published posts in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const targets = [
      ['GET /external/posts?limit=50', '/external/posts?limit=50'],
      ['GET /external/posts?limit=50&include=content', '/external/posts?limit=50&include=content'],
      ['GET /external/posts?q=notes 12', '/external/posts?q=notes%2012'],
      ['GET /external/posts/:slug', '/external/posts/beitrag-250'],
    ] as const;
    const headers = { 'X-Api-Key': apiKey };
    const rows: string[] = [];
    for (const [label, path] of targets) {
      const t0 = performance.now();
      const sample = await fetch(node.url + path, { headers });
      if (sample.status !== 200) throw new Error(`${label}: ${sample.status}`);
      const json = await sample.text();
      console.log(`${label}: single cold request ${(performance.now() - t0).toFixed(0)} ms`);
      const hearth = await cannon(node.url + path, headers);
      const bare = await bareServer(json);
      const baseline = await cannon(bare.url, {});
      await new Promise((resolve) => bare.server.close(resolve));
      rows.push(
        [
          label.padEnd(46),
          `${(json.length / 1024).toFixed(1)} KB`.padStart(9),
          `${hearth.rps.toFixed(0)} req/s`.padStart(12),
          `p50 ${hearth.p50} ms`.padStart(11),
          `p99 ${hearth.p99} ms`.padStart(11),
          '|',
          `bare ${baseline.rps.toFixed(0)} req/s`.padStart(17),
          `p50 ${baseline.p50} ms`.padStart(11),
          `p99 ${baseline.p99} ms`.padStart(11),
          '|',
          `ratio ${(hearth.rps / baseline.rps).toFixed(3)}`,
          hearth.non2xx ? `(non-2xx: ${hearth.non2xx})` : '',
        ].join(' '),
      );
      console.log(rows[rows.length - 1]);
    }
    console.log(`\n${DURATION} s per run, ${CONNECTIONS} connections; ratio = Hearth req/s / bare node:http req/s (same JSON from memory).`);
  } finally {
    await node.stop();
    await engine.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
