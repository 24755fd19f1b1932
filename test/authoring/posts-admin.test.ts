import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, uniqueDbName, watchingCommands, type DriverCommand, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contentAdmin, expectIssue } from '../content/content-helpers.js';
import { memberWith } from '../team/support.js';
import { postStore } from '../../src/posts/posts.model.js';
import { publishedForImport } from '../support/imported-posts.js';

// What the team app's authoring views need from the admin API: the posts list's search, state and group
// filters with each post's pending schedule, and the editor's live preview rendered by the server.
let node: HearthNode;
beforeAll(async () => {
  // A body may carry a whole post's markdown (500,000 characters): the field's bound is what is tested.
  node = await startTestNode({ env: { BODY_LIMIT_KB: '2048' } });
});
afterAll(async () => {
  await node.stop();
});

const list = async (ws: WorkspaceFixture, query: string, token = ws.token) => request(node.url, `/admin/workspaces/${ws.id}/posts?${query}`, { token });
const slugsOf = async (ws: WorkspaceFixture, query: string) => {
  const res = await list(ws, query);
  expect(res.status).toBe(200);
  return (res.body.items as { slug: string }[]).map((post) => post.slug);
};

test('q finds a literal part of the draft title or slug in any case; its bound is 200 characters', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  await admin.createPost({ slug: 'easter-menu', title: 'Our Easter (menu)*' });
  await admin.createPost({ slug: 'opening-hours', title: 'When we open' });
  await admin.createPost({ slug: 'rye', title: 'Rye bread EASTER special' });
  expect(await slugsOf(ws, 'q=easter')).toEqual(['rye', 'easter-menu']);
  expect(await slugsOf(ws, `q=${encodeURIComponent('(MENU)*')}`)).toEqual(['easter-menu']);
  expect(await slugsOf(ws, 'q=opening-h')).toEqual(['opening-hours']);
  expect(await slugsOf(ws, 'q=.*')).toEqual([]);
  expect((await list(ws, `q=${'x'.repeat(200)}`)).status).toBe(200);
  expectIssue(await list(ws, `q=${'x'.repeat(201)}`), 'q');
});

test('q follows renames: a new title or slug is found at once, the old one no more; two characters search too', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  const post = await admin.createPost({ slug: 'rye-loaf', title: 'Rye loaf' });
  await admin.createPost({ slug: 'spelt', title: 'Spelt' });
  const patch = async (body: Record<string, unknown>) => {
    const res = await request(node.url, `/admin/workspaces/${ws.id}/posts/${post.id as string}`, { method: 'PATCH', token: ws.token, body });
    expect(res.status).toBe(200);
  };
  await patch({ title: 'Sourdough Boule' });
  expect(await slugsOf(ws, 'q=boule')).toEqual(['rye-loaf']);
  expect(await slugsOf(ws, 'q=loaf')).toEqual(['rye-loaf']); // still its slug
  expect(await slugsOf(ws, 'q=Rye%20l')).toEqual([]);
  await patch({ slug: 'country-boule' });
  expect(await slugsOf(ws, 'q=loaf')).toEqual([]);
  expect(await slugsOf(ws, 'q=try-bo')).toEqual(['country-boule']);
  // A body-only save leaves the search as it was.
  await patch({ contentMarkdown: 'Flour, water, salt.' });
  expect(await slugsOf(ws, 'q=sourdough')).toEqual(['country-boule']);
  expect(await slugsOf(ws, 'q=sp')).toEqual(['spelt']);
  expect(await slugsOf(ws, 'q=e')).toEqual(['spelt', 'country-boule']);
});

test('q reads only the posts that hold a piece of it, not every post of the workspace bucket by bucket', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  // The one match is the oldest post, below two buckets of newer ones (`newest-first.ts`, 64 a bucket).
  await admin.createPost({ slug: 'apple-pie', title: 'Apple pie' });
  for (let first = 0; first < 130; first += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, i) => admin.createPost({ slug: `plum-cake-${first + i}`, title: `Plum cake ${first + i}` })));
  }
  const finds: DriverCommand['command'][] = [];
  const found = await watchingCommands(node, (event) => event.commandName === 'find' && event.command.find === 'posts' && finds.push(event.command), () => slugsOf(ws, 'q=PIE'));
  expect(found).toEqual(['apple-pie']);
  // Every read by the pattern narrowed by the gram: one of all matches (ids), then the page's posts within
  // their bucket only, not the newer buckets one by one.
  const byPattern = (finds.map((command) => command.filter) as Record<string, unknown>[]).filter((filter) => '$or' in filter);
  expect(byPattern.map((filter) => [filter.searchGrams, filter.listBucket])).toEqual([
    ['pie', undefined],
    ['pie', { $gte: 0, $lte: 0 }],
  ]);
  // A page across buckets, with matches of its edge buckets on the pages before and after it: the list's order.
  expect(await slugsOf(ws, 'q=plum&limit=50&page=2')).toEqual(await slugsOf(ws, 'limit=50&page=2'));
  expect((await list(ws, 'q=plum&limit=50&page=3')).body.pageInfo).toMatchObject({ total: 130, hasNext: false });
});

test('a search pages newest first with an exact total, in full and in summary, with the other filters', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  for (let i = 1; i <= 5; i += 1) await admin.createPost({ slug: `loaf-${i}`, title: `Loaf ${i}`, contentMarkdown: `# Loaf ${i}` });
  await admin.published({ slug: 'loaf-6', title: 'Loaf 6' });
  await admin.createPost({ slug: 'cake', title: 'Cake' });
  const page = async (query: string) => {
    const { items, pageInfo } = (await list(ws, query)).body as { items: { slug: string; contentMarkdown: string | null }[]; pageInfo: { total: number; hasNext: boolean } };
    return [items.map((post) => post.slug), pageInfo.total, pageInfo.hasNext];
  };
  expect(await page('q=loaf&limit=2')).toEqual([['loaf-6', 'loaf-5'], 6, true]);
  expect(await page('q=loaf&limit=2&page=3')).toEqual([['loaf-2', 'loaf-1'], 6, false]);
  expect(await page('q=loaf&limit=2&page=4')).toEqual([[], 6, false]);
  expect(await page('q=loaf&state=DRAFT&limit=4&page=2')).toEqual([['loaf-1'], 5, false]);
  expect((await list(ws, 'q=loaf&limit=1&page=2')).body.items[0].contentMarkdown).toBe('# Loaf 5');
  // Summary: counts up to one past the page, so hasNext is exact.
  expect(await page('view=summary&q=loaf&limit=3')).toEqual([['loaf-6', 'loaf-5', 'loaf-4'], 4, true]);
  expect(await page('view=summary&q=loaf&limit=3&page=2')).toEqual([['loaf-3', 'loaf-2', 'loaf-1'], 6, false]);
});

test('posts stored before search grams are found by q once the upgrade at the next start filed theirs', async () => {
  const dbName = uniqueDbName('grams');
  const first = await startTestNode({ dbName });
  let ws: WorkspaceFixture;
  try {
    ws = await createWorkspace(first.url);
    const admin = contentAdmin(first.url, ws);
    await admin.createPost({ slug: 'old-rye', title: 'Old rye' });
    await admin.published({ slug: 'old-spelt', title: 'Old spelt' });
    // More than one write command of many updates takes (FerretDB on PostgreSQL never answered one of 50).
    const blog = ((await request(first.url, `/admin/workspaces/${ws.id}/post-types`, { token: ws.token })).body.items as { id: string; slug: string }[]).find((type) => type.slug === 'blog')!;
    await postStore(first.deps.db).importPublished(
      ws.id,
      Array.from({ length: 60 }, (_, i) => publishedForImport({ postTypeId: blog.id, locale: 'en', slug: `barley-${i}`, title: `Barley ${i}`, markdown: 'Bread.', publishedAt: new Date() })),
    );
    // As an earlier version stored them, in a database that has not run today's upgrades.
    await first.deps.db.collection('posts').updateMany({}, { $unset: { searchGrams: '' } });
    await first.deps.db.collection<{ _id: string }>('once_claims').deleteMany({ _id: 'upgrade:post-search-grams' });
    expect((await request(first.url, `/admin/workspaces/${ws.id}/posts?q=old`, { token: ws.token })).body.items).toEqual([]);
  } finally {
    await first.stop();
  }
  const second = await startTestNode({ dbName });
  try {
    const res = await request(second.url, `/admin/workspaces/${ws.id}/posts?q=old`, { token: ws.token });
    expect((res.body.items as { slug: string }[]).map((post) => post.slug)).toEqual(['old-spelt', 'old-rye']);
    expect((await request(second.url, `/admin/workspaces/${ws.id}/posts?q=barley&view=summary&limit=100`, { token: ws.token })).body.items).toHaveLength(60);
  } finally {
    await second.stop();
  }
});

test('SCHEDULED lists posts with a scheduled publish waiting; every item carries its pending changes', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  const later = await admin.createPost({ slug: 'later', title: 'Later' });
  const now = await admin.published({ slug: 'now', title: 'Now' });
  // Real time: the scheduler's job waits for the real clock.
  const at = new Date(Date.now() + 3_600_000).toISOString();
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${later.id}/publish`, { token: ws.token, body: { at } })).status).toBe(202);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${now.id}/unpublish`, { token: ws.token, body: { at } })).status).toBe(202);

  expect(await slugsOf(ws, 'state=SCHEDULED')).toEqual(['later']);
  expect(await slugsOf(ws, 'state=PUBLISHED')).toEqual(['now']);
  const items = (await list(ws, '')).body.items as { slug: string; state: string; scheduled: { action: string; at: string }[] }[];
  expect(items.map(({ slug, state, scheduled }) => ({ slug, state, scheduled: scheduled.map((entry) => [entry.action, entry.at]) }))).toEqual([
    { slug: 'now', state: 'PUBLISHED', scheduled: [['unpublish', at]] },
    { slug: 'later', state: 'DRAFT', scheduled: [['publish', at]] },
  ]);
  expectIssue(await list(ws, 'state=LATER'), 'state');
});

test('translationGroupId lists the locale variants of one post', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  const original = await admin.createPost({ slug: 'bread', title: 'Bread' });
  await admin.createPost({ locale: 'de', slug: 'brot', title: 'Brot', translationOf: original.id });
  await admin.createPost({ slug: 'cake', title: 'Cake' });
  expect((await slugsOf(ws, `translationGroupId=${original.translationGroupId}`)).sort()).toEqual(['bread', 'brot']);
});

test('preview-render answers the HTML a save would store: the same renderer and sanitizer, nothing stored', async () => {
  const ws = await createWorkspace(node.url);
  const path = `/admin/workspaces/${ws.id}/posts/preview-render`;
  const markdown = '# Easter\n\n**Hot** cross buns <script>alert(1)</script> [x](javascript:alert(2)) <img src=x onerror=alert(3)>';
  const rendered = await request(node.url, path, { token: ws.token, body: { contentMarkdown: markdown } });
  expect(rendered.status).toBe(200);
  const saved = await contentAdmin(node.url, ws).createPost({ slug: 'same', title: 'Same', contentMarkdown: markdown });
  expect(rendered.body).toEqual({ contentHtml: saved.contentHtml });
  expect(rendered.body.contentHtml).toContain('<h1>Easter</h1>');
  expect(rendered.body.contentHtml).not.toMatch(/script|javascript:|onerror/);

  expect((await request(node.url, path, { token: ws.token, body: { contentMarkdown: 'x'.repeat(500_000) } })).status).toBe(200);
  expectIssue(await request(node.url, path, { token: ws.token, body: { contentMarkdown: 'x'.repeat(500_001) } }), 'contentMarkdown');
  expectIssue(await request(node.url, path, { token: ws.token, body: {} }), 'contentMarkdown');
});

test('an agent reads the list but may not render previews or write posts (403); an editor may', async () => {
  const ws = await createWorkspace(node.url);
  const agent = await memberWith(node.url, ws, 'agent');
  const editor = await memberWith(node.url, ws, 'editor');
  const render = (token: string) => request(node.url, `/admin/workspaces/${ws.id}/posts/preview-render`, { token, body: { contentMarkdown: 'Hi' } });
  expect((await render(agent.token)).status).toBe(403);
  expect((await render(editor.token)).body).toEqual({ contentHtml: '<p>Hi</p>\n' });
  expect((await list(ws, '', agent.token)).status).toBe(200);
  const write = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: agent.token, body: { locale: 'en', slug: 'no', title: 'No' } });
  expect([write.status, write.body.code]).toEqual([403, 'forbidden']);
  // Another workspace's member gets nothing.
  const other = await createWorkspace(node.url);
  expect((await request(node.url, `/admin/workspaces/${other.id}/posts/preview-render`, { token: editor.token, body: { contentMarkdown: 'Hi' } })).status).toBe(404);
});

test('view=summary leaves the bodies out and counts nothing; hasNext is exact at the page boundary', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  await admin.published({ slug: 'one', title: 'One', contentMarkdown: '# One' });
  await admin.createPost({ slug: 'two', title: 'Two', contentMarkdown: '# Two' });
  const full = (await list(ws, 'limit=2')).body;
  const summary = (await list(ws, 'view=summary&limit=2')).body;
  expect(summary.items.map((post: { id: string }) => post.id)).toEqual(full.items.map((post: { id: string }) => post.id));
  for (const post of summary.items) expect([post.contentMarkdown, post.contentHtml, post.published?.contentHtml ?? null, post.hasUnpublishedChanges]).toEqual([null, null, null, null]);
  expect(full.items[1]).toMatchObject({ contentMarkdown: '# One', hasUnpublishedChanges: false });
  // Exactly a page: no next one. One more post: a next page, holding it alone.
  expect(summary.pageInfo).toMatchObject({ page: 1, limit: 2, hasNext: false });
  await admin.createPost({ slug: 'three', title: 'Three' });
  expect((await list(ws, 'view=summary&limit=2')).body.pageInfo).toMatchObject({ page: 1, hasNext: true });
  const second = (await list(ws, 'view=summary&limit=2&page=2')).body;
  expect([second.items.map((post: { slug: string }) => post.slug), second.pageInfo.hasNext, second.pageInfo.hasPrev]).toEqual([['one'], false, true]);
  expectIssue(await list(ws, 'view=full'), 'view');
});

test("an editor's save and republish read the post and each of its bodies once, and answer the post as stored", async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  const { id } = await admin.published({ slug: 'rye', title: 'Rye', contentMarkdown: 'Old body' });
  const POST_READS = new Set(['posts', 'post_draft_bodies', 'post_published_bodies']);
  const readsOf = async (work: () => Promise<Record<string, unknown>>) => {
    const reads: string[] = [];
    const slugCommands: string[] = [];
    const answer = await watchingCommands(
      node,
      (event) => {
        const collection = String(event.command[event.commandName]);
        if (event.commandName === 'find' && POST_READS.has(collection)) reads.push(collection);
        if (collection === 'post_slugs') slugCommands.push(event.commandName);
      },
      work,
    );
    return { answer, reads: reads.sort(), slugCommands };
  };
  const stored = async () => (await request(node.url, `/admin/workspaces/${ws.id}/posts/${id}`, { token: ws.token })).body as Record<string, unknown>;

  const saved = await readsOf(() => admin.patch(id, { contentMarkdown: 'New body' }));
  expect(saved.reads).toEqual(['post_draft_bodies', 'post_published_bodies', 'posts']);
  expect(saved.answer).toMatchObject({ contentMarkdown: 'New body', published: { contentMarkdown: 'Old body' } });
  expect(saved.answer).toEqual(await stored());

  // Published under the same slug: it holds the slug's entry already.
  const published = await readsOf(() => admin.publish(id));
  expect(published.reads).toEqual(['post_draft_bodies', 'post_published_bodies', 'posts']);
  expect(published.slugCommands).toEqual([]);
  expect(published.answer).toMatchObject({ contentMarkdown: 'New body', published: { contentMarkdown: 'New body' } });
  expect(published.answer).toEqual(await stored());

  // Under a new slug the publish claims it, and the old one is free for another post.
  await admin.patch(id, { slug: 'rye-bread' });
  const moved = await readsOf(() => admin.publish(id));
  expect(moved.slugCommands).toContain('insert');
  expect(moved.answer).toMatchObject({ slug: 'rye-bread', published: { slug: 'rye-bread' } });
  const other = await admin.createPost({ slug: 'rye', title: 'Another rye' });
  expect(await admin.publish(other.id)).toMatchObject({ state: 'PUBLISHED', published: { slug: 'rye' } });
});
