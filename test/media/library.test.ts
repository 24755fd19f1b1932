import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import sharp from 'sharp';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { memberWith } from '../team/support.js';
import { htmlPage, jpegWithGpsAndOrientation, list, onNode, pdfOfSize, pixelBombPng, png, svgWithScript, upload } from './media-files.js';

/** The media library over HTTP on the disk store: upload rules, hostile files, the size bound, roles and tenants. */
const LIMIT = 4096;
let node: HearthNode;
let dataDir: string;
let ws: WorkspaceFixture;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-media-data-'));
  node = await startTestNode({ env: { DATA_DIR: dataDir, MEDIA_MAX_BYTES: String(LIMIT) } });
  ws = await createWorkspace(node.url);
});

afterAll(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const uploadDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('hearth-upload-'));
const storedFiles = (wid: string) => {
  try {
    return readdirSync(join(dataDir, 'media', 'media', wid));
  } catch {
    return [];
  }
};

describe('upload', () => {
  test('a JPEG is stored upright without its EXIF or GPS block, with its size in pixels', async () => {
    const bytes = await jpegWithGpsAndOrientation();
    expect((await sharp(bytes).metadata()).exif).toBeDefined();
    const res = await upload(node.url, ws.id, ws.token, bytes, 'bread.png', 'image/png');
    expect(res.status).toBe(201);
    // The bytes decide the type, not the name or the Content-Type the client sent.
    expect(res.body).toMatchObject({ name: 'bread.png', contentType: 'image/jpeg', width: 20, height: 40, alt: {}, focalPoint: null });
    const stored = Buffer.from(await (await fetch(onNode(node.url, res.body.url))).arrayBuffer());
    const meta = await sharp(stored).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([20, 40]);
    expect(stored.includes('secret-photographer')).toBe(false);
    expect(res.body.size).toBe(stored.length);
  });

  test('a polyglot (a JPEG carrying an HTML page after its image data) is stored without the page', async () => {
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).jpeg().toBuffer();
    const res = await upload(node.url, ws.id, ws.token, Buffer.concat([jpeg, htmlPage]), 'poly.jpg');
    expect(res.status).toBe(201);
    const stored = Buffer.from(await (await fetch(onNode(node.url, res.body.url))).arrayBuffer());
    expect(stored.includes('<script')).toBe(false);
  });

  test.each([
    ['an HTML page named .png', htmlPage, 'evil.png'],
    ['an SVG with a script', svgWithScript, 'logo.svg'],
    ['plain text', Buffer.from('just words'), 'notes.txt'],
  ])('%s is refused as an unsupported type (415) and nothing is kept', async (_what, bytes, name) => {
    const before = storedFiles(ws.id).length;
    const res = await upload(node.url, ws.id, ws.token, bytes, name, 'image/png');
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    expect(storedFiles(ws.id).length).toBe(before);
  });

  test('a truncated JPEG is corrupt (400), a GIF header in front of HTML too', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#123456' } }).jpeg().toBuffer();
    const truncated = await upload(node.url, ws.id, ws.token, jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'cut.jpg');
    expect(truncated.status).toBe(400);
    expect(truncated.body.code).toBe('corrupt_media');
    const gifar = await upload(node.url, ws.id, ws.token, Buffer.concat([Buffer.from('GIF89a'), htmlPage]), 'x.gif');
    expect(gifar.status).toBe(400);
  });

  test.each([
    [50_000, 50_000],
    // Under sharp's own default bound (268 megapixels), over Hearth's 40: refused by Hearth's limit.
    [8_000, 6_000],
  ])('a PNG claiming %i x %i pixels is refused before it is decoded', async (width, height) => {
    const bomb = pixelBombPng(width, height);
    expect(bomb.length).toBeLessThan(LIMIT);
    const rss = process.memoryUsage().rss;
    const res = await upload(node.url, ws.id, ws.token, bomb, 'bomb.png');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('image_too_large');
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
  });

  test(`the size limit: exactly ${LIMIT} bytes is stored, one byte more is 413 and nothing is kept`, async () => {
    const exact = await upload(node.url, ws.id, ws.token, pdfOfSize(LIMIT), 'exact.pdf');
    expect(exact.status).toBe(201);
    expect(exact.body).toMatchObject({ contentType: 'application/pdf', size: LIMIT, width: null, height: null });
    const before = storedFiles(ws.id).length;
    const over = await upload(node.url, ws.id, ws.token, pdfOfSize(LIMIT + 1), 'over.pdf');
    expect(over.status).toBe(413);
    expect(over.body.code).toBe('payload_too_large');
    const far = await upload(node.url, ws.id, ws.token, pdfOfSize(LIMIT * 256), 'far.pdf');
    expect(far.status).toBe(413);
    expect(storedFiles(ws.id).length).toBe(before);
    expect((await list(node.url, ws.id, ws.token, '?q=over')).body.items).toEqual([]);
  });

  test('an upload the client drops midway leaves nothing behind (no record, no stored file, no temporary file)', async () => {
    const own = await createWorkspace(node.url);
    const before = new Set(uploadDirs());
    const boundary = 'hearthboundary';
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${node.url}/admin/workspaces/${own.id}/media`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${own.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': '4000' },
      });
      req.on('error', () => resolve());
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n${'a'.repeat(1000)}`);
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
    await eventually(() => uploadDirs().every((dir) => before.has(dir)));
    expect((await list(node.url, own.id, own.token)).body.items).toEqual([]);
    expect(storedFiles(own.id)).toEqual([]);
  });

  test('a request without a `file` part is 400; a JSON body too', async () => {
    const form = new FormData();
    form.append('other', 'x');
    const res = await fetch(`${node.url}/admin/workspaces/${ws.id}/media`, { method: 'POST', headers: { Authorization: `Bearer ${ws.token}` }, body: form });
    expect(res.status).toBe(400);
    const json = await request(node.url, `/admin/workspaces/${ws.id}/media`, { token: ws.token, body: { file: 'x' } });
    expect(json.status).toBe(400);
    expect(json.body.code).toBe('media_upload_missing');
  });
});

describe('the library', () => {
  test('lists newest first in pages, searches by name in any case, sets alt texts per locale and a focal point, deletes', async () => {
    const own = await createWorkspace(node.url, { locales: ['en', 'de'] });
    const names = ['Sourdough.png', 'rye.png', 'SOURDOUGH-close.png'];
    const ids: string[] = [];
    for (const name of names) ids.push((await upload(node.url, own.id, own.token, await png(), name)).body.id as string);
    const page1 = await list(node.url, own.id, own.token, '?limit=2');
    expect(page1.body.items.map((m: { name: string }) => m.name)).toEqual(['SOURDOUGH-close.png', 'rye.png']);
    expect(page1.body.pageInfo).toMatchObject({ page: 1, limit: 2, total: 3, hasNext: true });
    const found = await list(node.url, own.id, own.token, '?q=sourDOUGH');
    expect(found.body.items.map((m: { name: string }) => m.name).sort()).toEqual(['SOURDOUGH-close.png', 'Sourdough.png']);
    expect((await list(node.url, own.id, own.token, '?q=.*')).body.items).toEqual([]);
    expect((await list(node.url, own.id, own.token, '?limit=101')).status).toBe(400);

    const path = `/admin/workspaces/${own.id}/media/${ids[1]}`;
    const before = (await request(node.url, path, { token: own.token })).body;
    const patched = await request(node.url, path, { token: own.token, method: 'PATCH', body: { alt: { en: 'A rye loaf', de: 'Ein Roggenbrot' }, focalPoint: { x: 0.25, y: 0.75 }, name: 'rye-loaf.png' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'rye-loaf.png', alt: { en: 'A rye loaf', de: 'Ein Roggenbrot' }, focalPoint: { x: 0.25, y: 0.75 } });
    // The focal point changes what a cover crop shows: a new version in the URL.
    expect(patched.body.url).not.toBe(before.url);

    const badLocale = await request(node.url, path, { token: own.token, method: 'PATCH', body: { alt: { fr: 'Pain' } } });
    expect(badLocale.status).toBe(400);
    expect(badLocale.body.issues).toEqual([expect.objectContaining({ path: 'alt.fr' })]);
    const badPoint = await request(node.url, path, { token: own.token, method: 'PATCH', body: { focalPoint: { x: 1.01, y: 0 } } });
    expect(badPoint.status).toBe(400);
    expect(badPoint.body.issues[0].path).toBe('focalPoint.x');
    const nul = await request(node.url, path, { token: own.token, method: 'PATCH', body: { alt: { en: 'a\u0000b' } } });
    expect(nul.status).toBe(400);

    expect(storedFiles(own.id)).toContain(ids[1]);
    expect((await request(node.url, path, { token: own.token, method: 'DELETE' })).status).toBe(204);
    expect((await request(node.url, path, { token: own.token })).status).toBe(404);
    expect((await fetch(onNode(node.url, patched.body.url))).status).toBe(404);
    expect(storedFiles(own.id)).not.toContain(ids[1]);
    expect((await request(node.url, path, { token: own.token, method: 'DELETE' })).status).toBe(404);
  });

  test('agents read the library but may not change it; another workspace sees nothing of it', async () => {
    const own = await createWorkspace(node.url);
    const other = await createWorkspace(node.url);
    const stored = (await upload(node.url, own.id, own.token, await png(), 'team.png')).body;
    const agent = await memberWith(node.url, own, 'agent');
    const editor = await memberWith(node.url, own, 'editor');
    expect((await list(node.url, own.id, agent.token)).body.items).toHaveLength(1);
    expect((await upload(node.url, own.id, agent.token, await png(), 'no.png')).status).toBe(403);
    expect((await request(node.url, `/admin/workspaces/${own.id}/media/${stored.id}`, { token: agent.token, method: 'DELETE' })).status).toBe(403);
    expect((await upload(node.url, own.id, editor.token, await png(), 'yes.png')).status).toBe(201);

    const outsider = await memberWith(node.url, other, 'owner');
    expect((await list(node.url, own.id, outsider.token)).status).toBe(404);
    // The other workspace's own routes with this file's id: as if it did not exist.
    const cross = `/admin/workspaces/${other.id}/media/${stored.id}`;
    expect((await request(node.url, cross, { token: other.token })).status).toBe(404);
    expect((await request(node.url, cross, { token: other.token, method: 'PATCH', body: { name: 'mine.png' } })).status).toBe(404);
    expect((await request(node.url, cross, { token: other.token, method: 'DELETE' })).status).toBe(404);
    expect((await request(node.url, `/admin/workspaces/${own.id}/media/${stored.id}`, { token: own.token })).status).toBe(200);
  });
});
