import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole, buildDocs, buildWidget, CONSOLE_OUTFILE, DOCS_OUTFILE, WIDGET_OUTFILE } from '../../scripts/build-widget.mjs';

/**
 * Static assets (widget, console, Swagger UI): precompressed brotli and gzip variants picked by
 * `Accept-Encoding`, content-hashed names cached for a year, the stable `/widget/widget.js` cached briefly.
 * Requests go through node:http, not fetch, so nothing is decompressed or negotiated on our behalf.
 */

let node: HearthNode;
const hashed: Record<'widget' | 'console' | 'bundle' | 'css', string> = { widget: '', console: '', bundle: '', css: '' };
const manifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;

beforeAll(async () => {
  await Promise.all([buildWidget(), buildConsole(), buildDocs()]);
  hashed.widget = `/widget/${manifest(WIDGET_OUTFILE)['widget.js']}`;
  hashed.console = `/console/${manifest(CONSOLE_OUTFILE)['console.js']}`;
  hashed.bundle = `/docs/assets/${manifest(DOCS_OUTFILE)['swagger-ui-bundle.js']}`;
  hashed.css = `/docs/assets/${manifest(DOCS_OUTFILE)['swagger-ui.css']}`;
  node = await startTestNode();
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function raw(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    get(`${node.url}${path}`, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** The bytes the build wrote for a served path (`/docs/assets/x` is public/docs/x). */
function builtBytes(path: string): Buffer {
  const [, group, ...rest] = path.split('/');
  return readFileSync(join(dirname(WIDGET_OUTFILE), '..', group, rest.at(-1)!));
}

const decode = { br: brotliDecompressSync, gzip: gunzipSync, identity: (b: Buffer) => b } as const;

describe('Accept-Encoding negotiation', () => {
  const cases: [string | undefined, keyof typeof decode][] = [
    ['gzip, deflate, br', 'br'],
    ['br', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['identity', 'identity'],
    [undefined, 'identity'],
  ];
  test.each(cases)('Accept-Encoding %p gets %s, byte-identical once decoded, on every asset group', async (accept, encoding) => {
    for (const path of ['/widget/widget.js', hashed.widget, hashed.console, hashed.bundle, hashed.css]) {
      const res = await raw(path, accept === undefined ? {} : { 'Accept-Encoding': accept });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers['content-encoding']).toBe(encoding === 'identity' ? undefined : encoding);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.headers['content-type']).toBe(path.endsWith('.css') ? 'text/css; charset=utf-8' : 'application/javascript; charset=utf-8');
      const expected = builtBytes(path === '/widget/widget.js' ? hashed.widget : path);
      expect(decode[encoding](res.body).equals(expected)).toBe(true);
      if (encoding !== 'identity') expect(res.body.length).toBeLessThan(expected.length / 2);
    }
  });

  test('brotli is smaller than gzip, which is smaller than the raw bundle', async () => {
    const sizes = async (path: string) =>
      Promise.all(['br', 'gzip', 'identity'].map(async (accept) => (await raw(path, { 'Accept-Encoding': accept })).body.length));
    for (const path of [hashed.widget, hashed.console, hashed.bundle]) {
      const [br, gzip, identity] = await sizes(path);
      expect(br).toBeLessThan(gzip);
      expect(gzip).toBeLessThan(identity);
    }
  });
});

describe('caching', () => {
  test('hashed names are immutable for a year; the stable widget entry is cached five minutes, with CORS', async () => {
    for (const path of [hashed.widget, hashed.console, hashed.bundle, hashed.css]) {
      const res = await raw(path, { 'Accept-Encoding': 'br' });
      expect({ path, cache: res.headers['cache-control'] }).toEqual({ path, cache: 'public, max-age=31536000, immutable' });
    }
    const stable = await raw('/widget/widget.js', { 'Accept-Encoding': 'br' });
    expect(stable.headers['cache-control']).toBe('public, max-age=300');
    expect(stable.headers['access-control-allow-origin']).toBe('*');
    expect((await raw(hashed.widget)).headers['access-control-allow-origin']).toBe('*');
  });

  test('each variant has its own ETag; If-None-Match with it answers a bodiless 304, with another variant\'s 200', async () => {
    for (const path of ['/widget/widget.js', hashed.console, hashed.css]) {
      const tags = await Promise.all(['br', 'gzip', 'identity'].map(async (accept) => (await raw(path, { 'Accept-Encoding': accept })).headers.etag as string));
      expect(new Set(tags).size).toBe(3);
      const notModified = await raw(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': tags[1], 'Cache-Control': 'no-cache' });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect(notModified.headers.etag).toBe(tags[1]);
      expect(notModified.headers.vary).toMatch(/Accept-Encoding/);
      const otherVariant = await raw(path, { 'Accept-Encoding': 'br', 'If-None-Match': tags[1] });
      expect(otherVariant.status).toBe(200);
      expect(otherVariant.headers['content-encoding']).toBe('br');
    }
  });

  test('the stable entry and the hashed widget are the same bytes under the same ETags', async () => {
    const [stable, versioned] = await Promise.all([raw('/widget/widget.js', { 'Accept-Encoding': 'br' }), raw(hashed.widget, { 'Accept-Encoding': 'br' })]);
    expect(stable.body.equals(versioned.body)).toBe(true);
    expect(stable.headers.etag).toBe(versioned.headers.etag);
  });
});

describe('pages name hashed files', () => {
  test('/console and /docs reference the current hashed names and are cached briefly', async () => {
    const consolePage = await raw('/console');
    expect(consolePage.body.toString()).toContain(`<script type="module" src="${hashed.console}"></script>`);
    expect(consolePage.headers['cache-control']).toBe('public, max-age=300');
    const docs = await raw('/docs');
    expect(docs.body.toString()).toContain(`<script src="${hashed.bundle}"></script>`);
    expect(docs.body.toString()).toContain(`<link rel="stylesheet" href="${hashed.css}">`);
    expect(docs.headers['cache-control']).toBe('public, max-age=300');
  });

  test('an unknown hashed name, or a name that is not hashed, is the JSON 404 of any unknown route', async () => {
    const unknownHash = hashed.widget.replace(/\.[0-9a-f]{16}\./, '.0123456789abcdef.');
    for (const path of [unknownHash, '/console/console.0123456789abcdef.js', '/docs/assets/swagger-ui.0123456789abcdef.css', '/docs/assets/swagger-ui.css', '/widget/manifest.json', '/docs/assets/index.html']) {
      const res = await raw(path, { 'Accept-Encoding': 'br, gzip' });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'route_not_found' });
    }
  });
});
