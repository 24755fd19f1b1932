import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { sha256Hex } from '../../src/shared/crypto.js';
import { redactQuery } from '../../src/http/request-log.js';
import { createAgent } from '../livechat/support.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

// Draft preview: owners mint a token for one post; with it (and the workspace key) the post's current
// draft is readable, never cached, until it expires or is revoked; anything else is the usual 404.
let node: HearthNode;
const clock = new ManualClock(new Date('2025-05-01T00:00:00Z'));
let ws: WorkspaceFixture;
let admin: ReturnType<typeof contentAdmin>;
beforeAll(async () => {
  node = await startTestNode({ clock });
  ws = await createWorkspace(node.url);
  admin = contentAdmin(node.url, ws);
});
afterAll(async () => {
  await node.stop();
});

const mint = (pid: string, body: Record<string, unknown> = {}, fixture = ws) =>
  request(node.url, `/admin/workspaces/${fixture.id}/posts/${pid}/preview-token`, { token: fixture.token, body });
const revoke = (pid: string) => request(node.url, `/admin/workspaces/${ws.id}/posts/${pid}/preview-token`, { token: ws.token, method: 'DELETE' });
const read = (slug: string, qs: string, apiKey = ws.apiKey) => request(node.url, `/external/posts/${encodeURIComponent(slug)}${qs}`, { apiKey });
const preview = (slug: string, token: string, extra = '', apiKey = ws.apiKey) => read(slug, `?preview=${encodeURIComponent(token)}${extra}`, apiKey);

let seq = 0;
const unique = (base: string) => `${base}-${(seq += 1)}`;

describe('reading a draft', () => {
  test('the current draft of a never-published post, not cached, with its body on include=content', async () => {
    const slug = unique('draft');
    const post = await admin.createPost({ slug, title: 'Draft title', contentMarkdown: 'draft *body*', tags: ['x'] });
    expect((await read(slug, '')).status).toBe(404);
    const minted = await mint(post.id);
    expect(minted.status).toBe(201);
    expect(minted.body).toEqual({ token: expect.stringMatching(/^pv_[\w-]{40,}$/), expiresAt: '2025-05-02T00:00:00.000Z', url: null });

    const res = await preview(slug, minted.body.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ postId: post.id, slug, title: 'Draft title', tags: ['x'], locale: 'en', type: 'blog', contentMarkdown: null, publishedAt: clock.now().toISOString(), translations: [] });
    const withBody = await preview(slug, minted.body.token, '&include=content');
    expect(withBody.body).toMatchObject({ contentMarkdown: 'draft *body*', contentHtml: expect.stringContaining('<em>body</em>') });
    // Still invisible to everyone else.
    expect((await read(slug, '')).status).toBe(404);
    const listed = await request(node.url, `/external/posts?preview=${encodeURIComponent(minted.body.token)}`, { apiKey: ws.apiKey });
    expect(listed.body.items.map((item: { slug: string }) => item.slug)).not.toContain(slug);
  });

  test('a published post with draft edits: the preview shows the draft, the public read the snapshot', async () => {
    const slug = unique('live');
    const post = await admin.published({ slug, title: 'Public', contentMarkdown: 'public body' });
    const token = (await mint(post.id)).body.token;
    clock.advance(60_000);
    await admin.patch(post.id, { title: 'Edited', contentMarkdown: 'edited body' });
    expect((await read(slug, '?include=content')).body).toMatchObject({ title: 'Public', contentMarkdown: 'public body' });
    const res = await preview(slug, token, '&include=content');
    expect(res.body).toMatchObject({ title: 'Edited', contentMarkdown: 'edited body', publishedAt: post.publishedAt, translations: [{ locale: 'en', slug, publishedAt: post.publishedAt }] });
    // The next edit shows at once: preview answers are never kept.
    await admin.patch(post.id, { title: 'Edited again' });
    expect((await preview(slug, token)).body.title).toBe('Edited again');
    expect((await read(slug, '')).body.title).toBe('Public');
  });

  test('preview answers never enter or come from the content cache', async () => {
    const slug = unique('uncached');
    const post = await admin.createPost({ slug, title: 'T' });
    const token = (await mint(post.id)).body.token;
    const before = node.deps.cache.content.stats();
    await preview(slug, token);
    await preview(slug, token);
    const after = node.deps.cache.content.stats();
    expect(after.hits).toBe(before.hits);
    expect(after.misses).toBe(before.misses);
    // An earlier test's republish may be built ahead meanwhile (a pre-warm keeps an entry with no lookup):
    // those are counted apart.
    expect(after.entries - after.prewarmed).toBe(before.entries - before.prewarmed);
  });

  test('a renamed draft is previewed under its new slug only; a locale must be its own', async () => {
    const slug = unique('old');
    const post = await admin.createPost({ slug, title: 'T' });
    const token = (await mint(post.id)).body.token;
    const renamed = unique('new');
    await admin.patch(post.id, { slug: renamed });
    expect((await preview(slug, token)).status).toBe(404);
    expect((await preview(renamed, token)).status).toBe(200);
    expect((await preview(renamed, token, '&locale=en')).status).toBe(200);
    expect((await preview(renamed, token, '&locale=de')).status).toBe(404);
  });

  test('the url names the site page when siteUrl is set', async () => {
    await admin.call('', { method: 'PATCH', body: { siteUrl: 'https://site.example/' } });
    const slug = unique('linked');
    const post = await admin.createPost({ slug, title: 'T' });
    const minted = (await mint(post.id)).body;
    expect(minted.url).toBe(`https://site.example/en/${slug}?preview=${minted.token}`);
    await admin.call('', { method: 'PATCH', body: { siteUrl: null } });
  });
});

describe('what a token does not open', () => {
  let slug: string;
  let postId: string;
  beforeEach(async () => {
    slug = unique('guarded');
    postId = (await admin.createPost({ slug, title: 'Guarded' })).id;
  });

  test('a wrong token, or one of another post, is 404 as if the draft did not exist', async () => {
    const token = (await mint(postId)).body.token;
    const missing = await preview(slug, `${token}x`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual((await read(slug, '')).body);
    const otherSlug = unique('other');
    await admin.createPost({ slug: otherSlug, title: 'Other' });
    expect((await preview(otherSlug, token)).status).toBe(404);
  });

  test('expiry: valid until the last millisecond, 404 from expiresAt on', async () => {
    const minted = (await mint(postId, { expiresInMinutes: 10 })).body;
    expect(minted.expiresAt).toBe(new Date(clock.now().getTime() + 600_000).toISOString());
    clock.advance(600_000 - 1);
    expect((await preview(slug, minted.token)).status).toBe(200);
    clock.advance(1);
    expect((await preview(slug, minted.token)).status).toBe(404);
  });

  test('the default lifetime is 24 hours', async () => {
    const token = (await mint(postId)).body.token;
    clock.advance(24 * 3_600_000 - 1);
    expect((await preview(slug, token)).status).toBe(200);
    clock.advance(1);
    expect((await preview(slug, token)).status).toBe(404);
  });

  test('revoking ends it at once; minting again replaces the previous token', async () => {
    const first = (await mint(postId)).body.token;
    const second = (await mint(postId)).body.token;
    expect(second).not.toBe(first);
    expect((await preview(slug, first)).status).toBe(404);
    expect((await preview(slug, second)).status).toBe(200);
    expect((await revoke(postId)).status).toBe(204);
    expect((await preview(slug, second)).status).toBe(404);
    expect((await revoke(postId)).status).toBe(204);
  });

  test("another workspace's key with this workspace's token is 404", async () => {
    const token = (await mint(postId)).body.token;
    const other = await createWorkspace(node.url);
    const otherAdmin = contentAdmin(node.url, other);
    await otherAdmin.createPost({ slug, title: 'Same slug elsewhere' });
    expect((await preview(slug, token, '', other.apiKey)).status).toBe(404);
  });

  test('a deleted post is gone for its token too', async () => {
    const token = (await mint(postId)).body.token;
    await admin.remove(postId);
    expect((await preview(slug, token)).status).toBe(404);
  });

  test('only the hash is stored', async () => {
    const token = (await mint(postId)).body.token;
    const docs = await node.deps.db.collection('post_preview_tokens').find({ postId }).toArray();
    expect(docs.map((doc) => doc._id)).toEqual([sha256Hex(token)]);
    expect(JSON.stringify(docs)).not.toContain(token);
  });
});

describe('minting rules', () => {
  test('expiresInMinutes 1 to 10080: the bounds pass, 0 and 10081 are 400', async () => {
    const post = await admin.createPost({ slug: unique('bounds'), title: 'T' });
    expect((await mint(post.id, { expiresInMinutes: 10080 })).body.expiresAt).toBe(new Date(clock.now().getTime() + 10080 * 60_000).toISOString());
    expect((await mint(post.id, { expiresInMinutes: 1 })).status).toBe(201);
    expectIssue(await mint(post.id, { expiresInMinutes: 10081 }), 'expiresInMinutes');
    expectIssue(await mint(post.id, { expiresInMinutes: 0 }), 'expiresInMinutes');
    expectIssue(await mint(post.id, { expiresInMinutes: 1.5 }), 'expiresInMinutes');
  });

  test('an unknown post is 404 for mint and revoke; agents may not mint (403)', async () => {
    expect((await mint('0123456789abcdef01234567')).status).toBe(404);
    expect((await revoke('0123456789abcdef01234567')).status).toBe(404);
    const post = await admin.createPost({ slug: unique('agent'), title: 'T' });
    const agent = await createAgent(node.url, ws);
    expect((await mint(post.id, {}, { ...ws, token: agent })).status).toBe(403);
  });

  test('an empty preview value is 400; the preview value never reaches a log line', async () => {
    expectIssue(await read('x', '?preview='), 'preview');
    expect(redactQuery('?locale=en&preview=pv_secret&include=content')).toBe('?locale=en&preview=[redacted]&include=content');
    expect(redactQuery('?Preview=pv_secret')).toBe('?Preview=[redacted]');
  });
});
