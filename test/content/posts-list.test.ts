import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

let node: HearthNode;
const clock = new ManualClock(new Date('2025-01-01T00:00:00Z'));
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

/** Publishes `count` blog posts one minute apart, so the newest is the last created. */
async function seedPosts(ws: WorkspaceFixture, count: number, locale = 'en', prefix = 'post') {
  const admin = contentAdmin(node.url, ws);
  const ids: string[] = [];
  for (let i = 1; i <= count; i += 1) {
    clock.advance(60_000);
    const post = await admin.published({ locale, slug: `${prefix}-${i}`, title: `${prefix} ${i}` });
    ids.push(post.id);
  }
  return ids;
}

const list = (ws: WorkspaceFixture, qs = '') => request(node.url, `/external/posts${qs}`, { apiKey: ws.apiKey });

describe('pagination', () => {
  let ws: WorkspaceFixture;
  beforeAll(async () => {
    ws = await createWorkspace(node.url);
    await seedPosts(ws, 5);
  });

  test('newest first with the page info of the spec', async () => {
    const res = await list(ws, '?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.items.map((p: { slug: string }) => p.slug)).toEqual(['post-5', 'post-4']);
    expect(res.body.pageInfo).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: false });
  });

  test('the last page is partial and has no next', async () => {
    const res = await list(ws, '?limit=2&page=3');
    expect(res.body.items.map((p: { slug: string }) => p.slug)).toEqual(['post-1']);
    expect(res.body.pageInfo).toEqual({ page: 3, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true });
  });

  test('a page past the end is empty, not an error', async () => {
    const res = await list(ws, '?limit=2&page=9');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
    expect(res.body.pageInfo).toEqual({ page: 9, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true });
  });

  test('defaults: page 1, limit 50', async () => {
    const res = await list(ws);
    expect(res.body.pageInfo).toEqual({ page: 1, limit: 50, total: 5, totalPages: 1, hasNext: false, hasPrev: false });
  });

  test('limit 50 passes, 51 is clamped to 50', async () => {
    expect((await list(ws, '?limit=50')).body.pageInfo.limit).toBe(50);
    const res = await list(ws, '?limit=51');
    expect(res.status).toBe(200);
    expect(res.body.pageInfo.limit).toBe(50);
  });

  test('force_limit lifts the cap up to 1000 and replaces limit; 1001 is clamped to 1000', async () => {
    expect((await list(ws, '?force_limit=1000&limit=2')).body.pageInfo).toMatchObject({ limit: 1000, totalPages: 1 });
    expect((await list(ws, '?force_limit=1001')).body.pageInfo.limit).toBe(1000);
    expect((await list(ws, '?force_limit=3')).body.items).toHaveLength(3);
  });

  test('page, limit and force_limit must be positive integers', async () => {
    expectIssue(await list(ws, '?limit=0'), 'limit');
    expectIssue(await list(ws, '?limit=-1'), 'limit');
    expectIssue(await list(ws, '?page=0'), 'page');
    expectIssue(await list(ws, '?page=1.5'), 'page');
    expectIssue(await list(ws, '?force_limit=abc'), 'force_limit');
    expectIssue(await list(ws, '?force_limit=0'), 'force_limit');
  });

  test('an unknown include value is rejected', async () => {
    expectIssue(await list(ws, '?include=everything'), 'include');
  });
});

test('order is stable across pages when publishedAt ties (postId descending)', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  clock.advance(60_000);
  const ids: string[] = [];
  for (let i = 1; i <= 4; i += 1) ids.push((await admin.published({ slug: `same-${i}`, title: `Same ${i}` })).id);
  const pages = [await list(ws, '?limit=2&page=1'), await list(ws, '?limit=2&page=2')];
  const seen = pages.flatMap((page) => page.body.items.map((p: { postId: string }) => p.postId));
  expect(seen).toEqual([...ids].sort().reverse());
});

test('type, locale and include filters', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  await admin.call('/post-types', { body: { slug: 'recipe', name: 'Recipes', defaultConfig: { servings: 2 } } });
  clock.advance(60_000);
  await admin.published({ slug: 'blog-en', title: 'Blog EN', contentMarkdown: '# Hello\n\n**bold** [x](javascript:alert(1))\n\n<script>alert(1)</script>' });
  clock.advance(60_000);
  await admin.published({ locale: 'de', slug: 'blog-de', title: 'Blog DE' });
  clock.advance(60_000);
  await admin.published({ type: 'recipe', slug: 'bread', title: 'Bread' });

  const blog = await list(ws);
  expect(blog.body.items.map((p: { slug: string }) => p.slug)).toEqual(['blog-de', 'blog-en']);
  const all = await list(ws, '?type=*');
  expect(all.body.items.map((p: { slug: string }) => p.slug)).toEqual(['bread', 'blog-de', 'blog-en']);
  expect(all.body.items[0].customConfig).toEqual({ servings: 2 });
  expect((await list(ws, '?type=recipe')).body.items).toHaveLength(1);
  expect((await list(ws, '?type=unknown-type')).body).toMatchObject({ items: [], pageInfo: { total: 0, totalPages: 0 } });
  expect((await list(ws, '?locale=de')).body.items.map((p: { slug: string }) => p.slug)).toEqual(['blog-de']);
  expect((await list(ws, '?type=*&locale=en')).body.items).toHaveLength(2);

  const plain = (await list(ws, '?locale=en')).body.items[0];
  expect(plain.contentHtml).toBeNull();
  expect(plain.contentMarkdown).toBeNull();
  const full = (await list(ws, '?locale=en&include=content')).body.items[0];
  expect(full.contentMarkdown).toContain('**bold**');
  expect(full.contentHtml).toContain('<h1>Hello</h1>');
  expect(full.contentHtml).toContain('<strong>bold</strong>');
  expect(full.contentHtml).not.toContain('<script');
  expect(full.contentHtml).not.toContain('javascript:');
  expect(full).toMatchObject({
    title: 'Blog EN',
    canonicalSlug: 'blog-en',
    metaDescription: '',
    imageUrl: '',
    tags: [],
    category: null,
    authorName: '',
    customConfig: {},
  });
  expect(full.jsonLd).toMatchObject({ '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'Blog EN', inLanguage: 'en' });
  // A custom type without a jsonLdType has no structured data.
  expect((await list(ws, '?type=recipe')).body.items[0].jsonLd).toBeNull();
});

test('q is a case-insensitive literal substring of title or slug; regex metacharacters match themselves', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  await admin.published({ slug: 'plain-bread', title: 'Sourdough (Basics) $5 a.k.a. [classic]' });
  await admin.published({ slug: 'rye-loaf', title: 'Rye Loaf' });
  await admin.published({ slug: 'axkxa', title: 'Nothing special' });
  const slugs = async (q: string) => (await list(ws, `?q=${encodeURIComponent(q)}`)).body.items.map((p: { slug: string }) => p.slug).sort();

  expect(await slugs('SOURDOUGH')).toEqual(['plain-bread']);
  expect(await slugs('rye-')).toEqual(['rye-loaf']);
  expect(await slugs('(basics)')).toEqual(['plain-bread']);
  expect(await slugs('$5')).toEqual(['plain-bread']);
  expect(await slugs('[classic]')).toEqual(['plain-bread']);
  // As a pattern, `a.k.a` would also match the slug "axkxa"; as literal text it must not.
  expect(await slugs('a.k.a')).toEqual(['plain-bread']);
  expect(await slugs('.*')).toEqual([]);
  expect(await slugs(')(')).toEqual([]);
  expect(await slugs('\\')).toEqual([]);
  const res = await list(ws, `?q=${encodeURIComponent('.*')}`);
  expect(res.status).toBe(200);
  expect(res.body.pageInfo.total).toBe(0);
});

test('drafts and unpublished posts never appear in the list', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  await admin.createPost({ slug: 'only-draft', title: 'Draft' });
  const gone = await admin.published({ slug: 'gone', title: 'Gone' });
  await admin.unpublish(gone.id);
  const res = await list(ws);
  expect(res.body.items).toEqual([]);
  expect(res.body.pageInfo.total).toBe(0);
});

test('the publishable key and missing keys are refused', async () => {
  expect((await request(node.url, '/external/posts')).status).toBe(401);
  const res = await request(node.url, '/external/posts', { headers: { 'X-Api-Key': 'pk_' + 'a'.repeat(40) } });
  expect(res.status).toBe(401);
  expect(res.body.code).toBe('wrong_credential_kind');
});
