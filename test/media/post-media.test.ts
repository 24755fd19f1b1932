import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contentAdmin, expectIssue } from '../content/content-helpers.js';
import { fetchBytes, onNode, pdfOfSize, png, upload } from './media-files.js';

/**
 * Posts that refer to media items of the library: the post's image (`imageMediaId`) and body images
 * (`![alt](media:<id>)`): validation, what `/external` answers (and keeps in its cache), and the delete guard.
 */
const PUBLIC_URL = 'https://cms.example.test';
let node: HearthNode;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-post-media-'));
  node = await startTestNode({ env: { DATA_DIR: dataDir, PUBLIC_URL } });
});

afterAll(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function uploaded(ws: WorkspaceFixture, width = 1000, height = 600, name = 'photo.png') {
  const res = await upload(node.url, ws.id, ws.token, await png(width, height), name);
  expect(res.status).toBe(201);
  return res.body as { id: string; url: string; width: number; height: number };
}

const setAlt = (ws: WorkspaceFixture, mid: string, alt: Record<string, string>) =>
  request(node.url, `/admin/workspaces/${ws.id}/media/${mid}`, { method: 'PATCH', token: ws.token, body: { alt } });
const deleteMedia = (ws: WorkspaceFixture, mid: string) => request(node.url, `/admin/workspaces/${ws.id}/media/${mid}`, { method: 'DELETE', token: ws.token });
const external = (ws: WorkspaceFixture, path: string) => request(node.url, `/external${path}`, { apiKey: ws.apiKey });
const adminPost = (ws: WorkspaceFixture, body: Record<string, unknown>) => request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'en', ...body } });
const patchPost = (ws: WorkspaceFixture, pid: string, body: Record<string, unknown>) => request(node.url, `/admin/workspaces/${ws.id}/posts/${pid}`, { method: 'PATCH', token: ws.token, body });

describe('validation of media references (field-level 400)', () => {
  let ws: WorkspaceFixture;
  let other: WorkspaceFixture;
  beforeAll(async () => {
    ws = await createWorkspace(node.url);
    other = await createWorkspace(node.url);
  });

  test('an image of the workspace is accepted on create and patch, and null clears it', async () => {
    const image = await uploaded(ws);
    const created = await adminPost(ws, { slug: 'ok', title: 'OK', imageMediaId: image.id });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ imageMediaId: image.id, imageUrl: '', bodyMediaIds: [] });
    const cleared = await patchPost(ws, created.body.id, { imageMediaId: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.imageMediaId).toBeNull();
    const set = await patchPost(ws, created.body.id, { imageMediaId: image.id });
    expect(set.body.imageMediaId).toBe(image.id);
  });

  test('an unknown media id is 400 on imageMediaId (create and patch)', async () => {
    expectIssue(await adminPost(ws, { slug: 'unknown', title: 'U', imageMediaId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }), 'imageMediaId');
    expectIssue(await adminPost(ws, { slug: 'malformed', title: 'M', imageMediaId: 'nope' }), 'imageMediaId');
    const post = (await adminPost(ws, { slug: 'later', title: 'L' })).body;
    expectIssue(await patchPost(ws, post.id, { imageMediaId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }), 'imageMediaId');
  });

  test("another workspace's media is 400, as if it did not exist", async () => {
    const theirs = await uploaded(other);
    const res = await adminPost(ws, { slug: 'theirs', title: 'T', imageMediaId: theirs.id });
    expectIssue(res, 'imageMediaId');
    expect(res.body.issues[0].message).toMatch(/no such media/);
  });

  test('a PDF is not an image: 400', async () => {
    const pdf = await upload(node.url, ws.id, ws.token, pdfOfSize(500), 'doc.pdf');
    expect(pdf.status).toBe(201);
    const res = await adminPost(ws, { slug: 'pdf', title: 'P', imageMediaId: pdf.body.id });
    expectIssue(res, 'imageMediaId');
    expect(res.body.issues[0].message).toMatch(/must be an image/);
    expectIssue(await adminPost(ws, { slug: 'pdf-body', title: 'P', contentMarkdown: `![doc](media:${pdf.body.id})` }), 'contentMarkdown');
  });

  test('body references are checked too: unknown or foreign ids are 400 on the body field', async () => {
    const theirs = await uploaded(other);
    expectIssue(await adminPost(ws, { slug: 'body-unknown', title: 'B', contentMarkdown: '![x](media:bbbbbbbbbbbbbbbbbbbbbbbb)' }), 'contentMarkdown');
    expectIssue(await adminPost(ws, { slug: 'body-theirs', title: 'B', contentHtml: `<p><img src="media:${theirs.id}"></p>` }), 'contentHtml');
    const post = (await adminPost(ws, { slug: 'body-later', title: 'B' })).body;
    expectIssue(await patchPost(ws, post.id, { contentMarkdown: `![x](media:${theirs.id})` }), 'contentMarkdown');
  });

  test('a plain imageUrl keeps working as before', async () => {
    const res = await adminPost(ws, { slug: 'plain', title: 'Plain', imageUrl: 'https://img.example.com/a.jpg' });
    expect(res.status).toBe(201);
    const admin = contentAdmin(node.url, ws);
    await admin.publish(res.body.id);
    const single = await external(ws, '/posts/plain');
    expect(single.body).toMatchObject({ imageUrl: 'https://img.example.com/a.jpg', image: null, images: [] });
  });
});

describe('/external answers', () => {
  let ws: WorkspaceFixture;
  let hero: Awaited<ReturnType<typeof uploaded>>;
  let inBody: Awaited<ReturnType<typeof uploaded>>;
  let postId: string;
  beforeAll(async () => {
    ws = await createWorkspace(node.url, { locales: ['en', 'de'], defaultLocale: 'en' });
    hero = await uploaded(ws, 1000, 600, 'hero.png');
    inBody = await uploaded(ws, 300, 200, 'small.png');
    expect((await setAlt(ws, hero.id, { en: 'A loaf', de: 'Ein Laib' })).status).toBe(200);
    expect((await setAlt(ws, inBody.id, { en: 'Crumb' })).status).toBe(200);
    const admin = contentAdmin(node.url, ws);
    const created = await admin.createPost({ slug: 'bread', title: 'Bread', imageMediaId: hero.id, contentMarkdown: `Look: ![](media:${inBody.id})` });
    expect(created.bodyMediaIds).toEqual([inBody.id]);
    expect(created.contentHtml).toContain(`src="media:${inBody.id}"`);
    postId = (await admin.publish(created.id)).id;
    const de = await admin.createPost({ locale: 'de', translationOf: postId, slug: 'brot', title: 'Brot', imageMediaId: hero.id });
    await admin.publish(de.id);
  });

  test('the single post: imageUrl is the absolute file URL, image and images in full', async () => {
    const res = await external(ws, '/posts/bread');
    expect(res.status).toBe(200);
    expect(res.body.imageUrl).toBe(hero.url);
    expect(res.body.imageUrl.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    expect(res.body.image).toEqual({
      id: hero.id,
      url: hero.url,
      width: 1000,
      height: 600,
      alt: 'A loaf',
      srcset: [160, 320, 640, 960].map((width) => ({ width, url: `${hero.url}&w=${width}` })),
    });
    expect(res.body.images).toEqual([{ id: inBody.id, url: inBody.url, width: 300, height: 200, alt: 'Crumb', srcset: [{ width: 160, url: `${inBody.url}&w=160` }] }]);
    // The srcset URLs are real variants.
    const variant = await fetchBytes(onNode(node.url, res.body.image.srcset[1].url));
    expect(variant.status).toBe(200);
  });

  test("alt in the post's locale; a locale without one falls back to the default locale", async () => {
    const de = await external(ws, '/posts/brot?locale=de');
    expect(de.body.image.alt).toBe('Ein Laib');
    await setAlt(ws, hero.id, { en: 'A loaf' });
    expect((await external(ws, '/posts/brot?locale=de')).body.image.alt).toBe('A loaf');
    await setAlt(ws, hero.id, { en: 'A loaf', de: 'Ein Laib' });
  });

  test('include=content: body images resolved to the file URL with srcset, size and the media alt', async () => {
    const res = await external(ws, '/posts/bread?include=content');
    expect(res.body.contentHtml).not.toContain('media:');
    expect(res.body.contentHtml).toContain(`src="${inBody.url.replace(/&/g, '&amp;')}"`);
    expect(res.body.contentHtml).toContain('alt="Crumb"');
    expect(res.body.contentHtml).toContain('width="300" height="200"');
    expect(res.body.contentHtml).toContain(' 160w');
    expect(res.body.contentMarkdown).toBe(`Look: ![](${inBody.url})`);
  });

  test('list items keep exactly the spec fields; imageUrl is the file URL', async () => {
    const res = await external(ws, '/posts?locale=en&include=content');
    expect(res.status).toBe(200);
    const [item] = res.body.items;
    expect(Object.keys(item)).toEqual([
      'postId', 'slug', 'canonicalSlug', 'title', 'metaDescription', 'imageUrl', 'tags', 'category',
      'authorName', 'customConfig', 'publishedAt', 'contentHtml', 'contentMarkdown', 'jsonLd',
    ]);
    expect(item.imageUrl).toBe(hero.url);
    expect(item.contentHtml).not.toContain('media:');
  });

  test('an alt text change reaches a cached answer at once', async () => {
    const first = await external(ws, '/posts/bread');
    const hitsBefore = node.deps.cache.content.stats().hits;
    const again = await external(ws, '/posts/bread');
    expect(again.text).toBe(first.text);
    expect(node.deps.cache.content.stats().hits).toBeGreaterThan(hitsBefore); // served from the cache
    expect((await setAlt(ws, hero.id, { en: 'A fresh loaf', de: 'Ein Laib' })).status).toBe(200);
    const after = await external(ws, '/posts/bread');
    expect(after.body.image.alt).toBe('A fresh loaf');
    // The body image's alt too (the list answer, which shows the body with include=content, likewise).
    await external(ws, '/posts?locale=en&include=content');
    await setAlt(ws, inBody.id, { en: 'Open crumb' });
    expect((await external(ws, '/posts/bread')).body.images[0].alt).toBe('Open crumb');
    expect((await external(ws, '/posts?locale=en&include=content')).body.items[0].contentHtml).toContain('alt="Open crumb"');
  });

  test('a new focal point (a new file version) reaches cached lists and single posts', async () => {
    await external(ws, '/posts?locale=en');
    await external(ws, '/posts/bread');
    const moved = await request(node.url, `/admin/workspaces/${ws.id}/media/${hero.id}`, { method: 'PATCH', token: ws.token, body: { focalPoint: { x: 0.2, y: 0.3 } } });
    expect(moved.status).toBe(200);
    expect(moved.body.url).not.toBe(hero.url);
    expect((await external(ws, '/posts?locale=en')).body.items[0].imageUrl).toBe(moved.body.url);
    expect((await external(ws, '/posts/bread')).body.image.url).toBe(moved.body.url);
    hero = moved.body;
  });

  test('the live preview (preview-render) shows media images as /external will, the saved draft keeps the reference', async () => {
    const res = await request(node.url, `/admin/workspaces/${ws.id}/posts/preview-render`, { token: ws.token, body: { contentMarkdown: `![](media:${inBody.id})`, locale: 'en' } });
    expect(res.status).toBe(200);
    expect(res.body.contentHtml).toContain(`src="${inBody.url.replace(/&/g, '&amp;')}"`);
    const { alt } = (await request(node.url, `/admin/workspaces/${ws.id}/media/${inBody.id}`, { token: ws.token })).body;
    expect(res.body.contentHtml).toContain(`alt="${alt.en}"`);
    expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${postId}`, { token: ws.token })).body.contentHtml).toContain(`src="media:${inBody.id}"`);
  });

  test('a draft edit of the image changes nothing public until publish, and counts as an unpublished change', async () => {
    const other = await uploaded(ws, 200, 200, 'other.png');
    const patched = await patchPost(ws, postId, { imageMediaId: other.id });
    expect(patched.body.hasUnpublishedChanges).toBe(true);
    expect(patched.body.published.imageMediaId).toBe(hero.id);
    expect((await external(ws, '/posts/bread')).body.image.id).toBe(hero.id);
    const back = await patchPost(ws, postId, { imageMediaId: hero.id });
    expect(back.body.hasUnpublishedChanges).toBe(false);
  });
});

describe('deleting media a post uses', () => {
  let ws: WorkspaceFixture;
  beforeAll(async () => {
    ws = await createWorkspace(node.url);
  });

  test('used as the image of a published post: 409 media_in_use naming the post; after unpublish it deletes', async () => {
    const image = await uploaded(ws);
    const admin = contentAdmin(node.url, ws);
    const post = await admin.published({ slug: 'cover', title: 'With a cover', imageMediaId: image.id });
    const refused = await deleteMedia(ws, image.id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('media_in_use');
    expect(refused.body.message).toContain('"With a cover"');
    expect(refused.body.issues).toEqual([{ path: `posts.${post.id}.image`, message: expect.stringContaining('image of the published post "With a cover"') }]);
    // Still there, and still served.
    expect((await request(node.url, `/admin/workspaces/${ws.id}/media/${image.id}`, { token: ws.token })).status).toBe(200);
    expect((await external(ws, '/posts/cover')).body.image.id).toBe(image.id);

    await admin.unpublish(post.id);
    expect((await deleteMedia(ws, image.id)).status).toBe(204);
    expect((await fetchBytes(onNode(node.url, image.url))).status).toBe(404);
    // The draft still names it: publishing is refused until it is changed.
    const republish = await request(node.url, `/admin/workspaces/${ws.id}/posts/${post.id}/publish`, { method: 'POST', token: ws.token, body: {} });
    expectIssue(republish, 'imageMediaId');
    await admin.patch(post.id, { imageMediaId: null });
    await admin.publish(post.id);
    expect((await external(ws, '/posts/cover')).body.image).toBeNull();
  });

  test('used in the body of a published post: 409', async () => {
    const image = await uploaded(ws);
    const admin = contentAdmin(node.url, ws);
    const post = await admin.published({ slug: 'inline', title: 'Inline', contentMarkdown: `![a](media:${image.id})` });
    const refused = await deleteMedia(ws, image.id);
    expect(refused.status).toBe(409);
    expect(refused.body.issues[0]).toEqual({ path: `posts.${post.id}.body`, message: expect.stringContaining('body of the published post "Inline"') });
  });

  test('used only by a draft (or by the unpublished draft of a published post): deletes', async () => {
    const admin = contentAdmin(node.url, ws);
    const draftOnly = await uploaded(ws);
    await admin.createPost({ slug: 'draft-only', title: 'Draft', imageMediaId: draftOnly.id });
    expect((await deleteMedia(ws, draftOnly.id)).status).toBe(204);

    const pending = await uploaded(ws);
    const live = await admin.published({ slug: 'live', title: 'Live' });
    await admin.patch(live.id, { imageMediaId: pending.id });
    expect((await deleteMedia(ws, pending.id)).status).toBe(204);
  });

  test('a publish and a delete of its image at once: either the file stays and shows, or it is gone and the publish is refused', async () => {
    const admin = contentAdmin(node.url, ws);
    for (let round = 0; round < 4; round += 1) {
      const image = await uploaded(ws);
      const post = await admin.createPost({ slug: `race-${round}`, title: `Race ${round}`, imageMediaId: image.id });
      const [published, deleted] = await Promise.all([
        request(node.url, `/admin/workspaces/${ws.id}/posts/${post.id}/publish`, { method: 'POST', token: ws.token, body: {} }),
        deleteMedia(ws, image.id),
      ]);
      if (deleted.status === 204) {
        expect(published.status).toBe(400);
        expect((await external(ws, `/posts/race-${round}`)).status).toBe(404);
      } else {
        expect([deleted.status, published.status]).toEqual([409, 200]);
        expect((await external(ws, `/posts/race-${round}`)).body.image.id).toBe(image.id);
      }
    }
  });

  test('unused: deletes; unknown: 404', async () => {
    const image = await uploaded(ws);
    expect((await deleteMedia(ws, image.id)).status).toBe(204);
    expect((await deleteMedia(ws, image.id)).status).toBe(404);
  });
});

describe('two nodes on one Redis', () => {
  let a: HearthNode;
  let b: HearthNode;
  beforeAll(async () => {
    const dbName = uniqueDbName('media2');
    const env = { DATA_DIR: dataDir, PUBLIC_URL };
    a = await startTestNode({ redis: true, dbName, env });
    b = await startTestNode({ redis: true, dbName, env });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test("an alt text change on one node drops the other node's cached post answer", async () => {
    const ws = await createWorkspace(a.url);
    const res = await upload(a.url, ws.id, ws.token, await png(200, 100), 'two.png');
    await request(a.url, `/admin/workspaces/${ws.id}/media/${res.body.id}`, { method: 'PATCH', token: ws.token, body: { alt: { en: 'Before' } } });
    await contentAdmin(a.url, ws).published({ slug: 'two-nodes', title: 'Two nodes', imageMediaId: res.body.id });
    const onB = () => request(b.url, '/external/posts/two-nodes', { apiKey: ws.apiKey });
    expect((await onB()).body.image.alt).toBe('Before');
    const hits = b.deps.cache.content.stats().hits;
    expect((await onB()).body.image.alt).toBe('Before');
    expect(b.deps.cache.content.stats().hits).toBeGreaterThan(hits);
    await request(a.url, `/admin/workspaces/${ws.id}/media/${res.body.id}`, { method: 'PATCH', token: ws.token, body: { alt: { en: 'After' } } });
    await eventually(async () => (await onB()).body.image.alt === 'After');
  });
});
