import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import sharp from 'sharp';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { startS3Server, type RunningS3 } from '../support/services.js';
import { freePort } from '../../src/db/embedded-engine.js';
import type { HearthNode } from '../../src/app/node.js';
import { fetchBytes, onNode, pdfOfSize, photo, upload } from './media-files.js';

/** `GET /media/:workspace/:id/:name`: originals and bounded variants, on both stores. */
let s3: RunningS3;
let dataDir: string;
const nodes: Record<'disk' | 's3', HearthNode | undefined> = { disk: undefined, s3: undefined };

beforeAll(async () => {
  s3 = await startS3Server();
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-media-data-'));
  nodes.disk = await startTestNode({ env: { DATA_DIR: dataDir } });
  nodes.s3 = await startTestNode({ env: { DATA_DIR: dataDir, ...s3.env } });
}, 90_000);

afterAll(async () => {
  await nodes.disk?.stop();
  await nodes.s3?.stop();
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const FOREVER = 'public, max-age=31536000, immutable';

describe.each(['disk', 's3'] as const)('on the %s store', (kind) => {
  let node: HearthNode;
  let ws: WorkspaceFixture;
  let image: { id: string; url: string };
  let url: string;

  beforeAll(async () => {
    node = nodes[kind]!;
    ws = await createWorkspace(node.url);
    // Left half red, right half blue: where a crop was taken shows in its colours.
    const left = await photo(400, 300).png().toBuffer();
    const bytes = await sharp({ create: { width: 800, height: 300, channels: 3, background: '#0000ff' } })
      .composite([{ input: await sharp(left).tint('#ff0000').toBuffer(), left: 0, top: 0 }])
      .jpeg()
      .toBuffer();
    const res = await upload(node.url, ws.id, ws.token, bytes, 'loaf photo.jpg');
    expect(res.status).toBe(201);
    image = res.body;
    url = onNode(node.url, image.url);
  });

  test('the original, versioned: cached forever with an ETag; 304 on If-None-Match; without the version five minutes', async () => {
    const original = await fetchBytes(url);
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('image/jpeg');
    expect(original.headers.get('cache-control')).toBe(FOREVER);
    expect(original.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = original.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect((await fetchBytes(url, { 'If-None-Match': etag })).status).toBe(304);
    const unversioned = await fetchBytes(url.replace(/\?v=.*/, ''));
    expect(unversioned.headers.get('cache-control')).toBe('public, max-age=300');
  });

  test('a 320 px WebP variant: resized, kept in the store and in memory, same bytes every time', async () => {
    const first = await fetchBytes(`${url}&w=320&fm=webp`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/webp');
    expect(first.headers.get('cache-control')).toBe(FOREVER);
    const meta = await sharp(first.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 320, 120]);
    const key = [...node.deps.mediaVariants.keys()].find((k) => k.includes(image.id) && k.includes('320xauto'))!;
    expect(key).toBeDefined();
    expect(await node.deps.storage.get(key)).not.toBeNull();
    // Dropped from memory: served from the store, the same bytes.
    node.deps.mediaVariants.delete(key);
    const again = await fetchBytes(`${url}&w=320&fm=webp`);
    expect(Buffer.compare(again.bytes, first.bytes)).toBe(0);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await fetchBytes(`${url}&w=320&fm=webp`, { 'If-None-Match': first.headers.get('etag')! })).status).toBe(304);
  });

  test('concurrent first requests of one variant render it once and all get the same bytes', async () => {
    const storage = node.deps.storage;
    const put = storage.put.bind(storage);
    const variantPuts: string[] = [];
    // Counting what reaches the real store (no stand-in: each call still writes).
    storage.put = (key, body, bytes) => {
      if (key.includes('/variants/')) variantPuts.push(key);
      return put(key, body, bytes);
    };
    try {
      const answers = await Promise.all(Array.from({ length: 6 }, () => fetchBytes(`${url}&w=640&fm=webp`)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(new Set(answers.map((answer) => answer.bytes.toString('base64'))).size).toBe(1);
      expect(variantPuts).toHaveLength(1);
    } finally {
      storage.put = put;
    }
  });

  test('AVIF and JPEG variants; a box never enlarges the image; `contain` letterboxes', async () => {
    const avif = await fetchBytes(`${url}&w=160&fm=avif`);
    expect(avif.headers.get('content-type')).toBe('image/avif');
    expect((await sharp(avif.bytes).metadata()).width).toBe(160);
    const big = await fetchBytes(`${url}&w=1920`);
    expect(big.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(big.bytes).metadata()).width).toBe(800);
    const contained = await sharp((await fetchBytes(`${url}&w=320&h=320&fit=contain&fm=webp`)).bytes).metadata();
    expect([contained.width, contained.height]).toEqual([320, 320]);
  });

  test('`cover` crops around the focal point', async () => {
    const path = `/admin/workspaces/${ws.id}/media/${image.id}`;
    const colourAtCentre = async (versioned: string) => {
      const crop = await fetchBytes(`${onNode(node.url, versioned)}&w=160&h=160&fit=cover&fm=webp`);
      const { data } = await sharp(crop.bytes).raw().toBuffer({ resolveWithObject: true });
      const middle = (80 * 160 + 80) * 3;
      return data[middle] > data[middle + 2] ? 'red' : 'blue';
    };
    const onLeft = await request(node.url, path, { token: ws.token, method: 'PATCH', body: { focalPoint: { x: 0.1, y: 0.5 } } });
    expect(await colourAtCentre(onLeft.body.url)).toBe('red');
    const onRight = await request(node.url, path, { token: ws.token, method: 'PATCH', body: { focalPoint: { x: 0.9, y: 0.5 } } });
    expect(await colourAtCentre(onRight.body.url)).toBe('blue');
    // The old version's URL now shows the new crop, so it is no longer cached forever.
    expect((await fetchBytes(onNode(node.url, onLeft.body.url))).headers.get('cache-control')).toBe('public, max-age=300');
  });

  test('only the fixed sizes, fits and formats (400 otherwise)', async () => {
    for (const query of ['w=333', 'h=10000', 'w=0', 'w=abc', 'fit=fill&w=320', 'fm=gif', 'fm=png']) {
      const res = await request(node.url, `/media/${new URL(image.url).pathname.split('/')[2]}/${image.id}/x?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  test('a PDF is a download (attachment, nosniff) and has no variants', async () => {
    const pdf = (await upload(node.url, ws.id, ws.token, pdfOfSize(2000), 'allergens list.pdf')).body;
    const res = await fetchBytes(onNode(node.url, pdf.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="allergens list.pdf"/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.bytes.length).toBe(2000);
    const variant = await request(node.url, `${new URL(pdf.url).pathname}?w=320`);
    expect(variant.status).toBe(400);
    expect(variant.body.code).toBe('not_an_image');
    // Remembered for delivery by now: a delete still takes it away at once.
    expect((await request(node.url, `/admin/workspaces/${ws.id}/media/${pdf.id}`, { token: ws.token, method: 'DELETE' })).status).toBe(204);
    expect((await fetchBytes(onNode(node.url, pdf.url))).status).toBe(404);
  });

  test("another workspace's slug, an unknown slug or id: 404", async () => {
    const other = await createWorkspace(node.url);
    const otherSlug = (await request(node.url, `/admin/workspaces/${other.id}`, { token: other.token })).body.slug as string;
    expect(otherSlug).toMatch(/^ws-/);
    const [, , slug] = new URL(image.url).pathname.split('/');
    expect((await request(node.url, `/media/${otherSlug}/${image.id}/x`)).status).toBe(404);
    expect((await request(node.url, `/media/no-such-workspace/${image.id}/x`)).status).toBe(404);
    expect((await request(node.url, `/media/${slug}/0123456789abcdef01234567/x`)).status).toBe(404);
    expect((await request(node.url, `/media/${slug}/not-an-id/x`)).status).toBe(404);
  });
});

test('an S3 store that is down: an upload answers 503 with Retry-After, and nothing is recorded', async () => {
  const port = await freePort();
  const node = await startTestNode({ env: { ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${port}` } });
  try {
    const ws = await createWorkspace(node.url);
    const res = await upload(node.url, ws.id, ws.token, await photo().png().toBuffer(), 'down.png');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('storage_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await request(node.url, `/admin/workspaces/${ws.id}/media`, { token: ws.token })).body.items).toEqual([]);
  } finally {
    await node.stop();
  }
});
