import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

// Post queries on GET /external/posts: category, tag (all must match), author, sort, sparse fieldsets,
// updatedSince; each bad value is a 400 with issues, and every answer goes through the content cache.
let node: HearthNode;
const clock = new ManualClock(new Date('2025-02-01T00:00:00Z'));
let ws: WorkspaceFixture;
let admin: ReturnType<typeof contentAdmin>;
/** Slug -> post id, and the instant each was published. */
const ids = new Map<string, string>();
const publishedAt = new Map<string, string>();

beforeAll(async () => {
  node = await startTestNode({ clock });
  ws = await createWorkspace(node.url);
  admin = contentAdmin(node.url, ws);
  const news = await admin.category('news');
  await admin.category('empty');
  // Published one minute apart in this order; `bravo` and `charlie` share one instant (ties by id).
  const posts = [
    { slug: 'alpha', title: 'Zulu title', tags: ['a', 'b'], authorName: 'Ann', categoryId: news.id },
    { slug: 'bravo', title: 'Mike title', tags: ['a'], authorName: 'Bob' },
    { slug: 'charlie', title: 'Mike title', tags: ['b', 'c'], authorName: 'Ann', categoryId: news.id, sameInstant: true },
    { slug: 'delta', title: 'Alpha title', tags: ['a', 'b', 'c'], authorName: 'ann' },
  ];
  for (const { sameInstant, ...post } of posts) {
    if (!sameInstant) clock.advance(60_000);
    const created = await admin.published({ ...post, contentMarkdown: `body of ${post.slug}` });
    ids.set(post.slug, created.id);
    publishedAt.set(post.slug, created.publishedAt);
  }
});
afterAll(async () => {
  await node.stop();
});

const list = (qs: string) => request(node.url, `/external/posts${qs}`, { apiKey: ws.apiKey });
const slugs = async (qs: string) => {
  const res = await list(qs);
  expect(res.status).toBe(200);
  return res.body.items.map((item: { slug: string }) => item.slug);
};
/** bravo and charlie share a publishedAt: the higher id comes first when descending. */
const tiedDesc = () => (ids.get('charlie')! > ids.get('bravo')! ? ['charlie', 'bravo'] : ['bravo', 'charlie']);

describe('filters', () => {
  test('category by slug; an unknown or empty category gives an empty list', async () => {
    expect(await slugs('?category=news')).toEqual(['charlie', 'alpha']);
    expect(await slugs('?category=empty')).toEqual([]);
    const unknown = await list('?category=nope');
    expect(unknown.body).toEqual({ items: [], pageInfo: { page: 1, limit: 50, total: 0, totalPages: 0, hasNext: false, hasPrev: false } });
    expectIssue(await list('?category=Not%20A%20Slug'), 'category');
  });

  test('one tag, and repeated tags that must ALL match', async () => {
    expect(await slugs('?tag=c')).toEqual(['delta', 'charlie']);
    expect(await slugs('?tag=a&tag=b')).toEqual(['delta', 'alpha']);
    expect(await slugs('?tag=a&tag=b&tag=c')).toEqual(['delta']);
    expect(await slugs('?tag=b&tag=a')).toEqual(['delta', 'alpha']);
    expect(await slugs('?tag=zzz')).toEqual([]);
  });

  test('at most 10 tags: 10 pass, 11 are 400; an empty or too long tag is 400', async () => {
    const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag=${i === 0 ? 'a' : `t${i}`}`).join('&');
    expect((await list(`?${tags(10)}`)).status).toBe(200);
    expectIssue(await list(`?${tags(11)}`), 'tag');
    expectIssue(await list('?tag='), 'tag');
    expect((await list(`?tag=${'x'.repeat(100)}`)).status).toBe(200);
    expectIssue(await list(`?tag=${'x'.repeat(101)}`), 'tag');
  });

  test('author is an exact, case-sensitive match', async () => {
    expect(await slugs('?author=Ann')).toEqual(['charlie', 'alpha']);
    expect(await slugs('?author=ann')).toEqual(['delta']);
    expect(await slugs('?author=An')).toEqual([]);
    expectIssue(await list('?author='), 'author');
    expect((await list(`?author=${'x'.repeat(200)}`)).status).toBe(200);
    expectIssue(await list(`?author=${'x'.repeat(201)}`), 'author');
  });

  test('filters combine with each other and with paging', async () => {
    expect(await slugs('?author=Ann&tag=a')).toEqual(['alpha']);
    const res = await list('?tag=b&limit=1&page=2');
    expect(res.body.items.map((p: { slug: string }) => p.slug)).toEqual(['charlie']);
    expect(res.body.pageInfo).toEqual({ page: 2, limit: 1, total: 3, totalPages: 3, hasNext: true, hasPrev: true });
  });

  test('updatedSince: posts published at or after the instant; a malformed date is 400', async () => {
    expect(await slugs(`?updatedSince=${publishedAt.get('delta')}`)).toEqual(['delta']);
    expect(await slugs(`?updatedSince=${encodeURIComponent(publishedAt.get('bravo')!)}`)).toEqual(['delta', ...tiedDesc()]);
    const later = new Date(Date.parse(publishedAt.get('delta')!) + 1).toISOString();
    expect(await slugs(`?updatedSince=${later}`)).toEqual([]);
    // The same instant with an offset.
    const withOffset = new Date(Date.parse(publishedAt.get('delta')!)).toISOString().replace('Z', '+00:00');
    expect(await slugs(`?updatedSince=${encodeURIComponent(withOffset)}`)).toEqual(['delta']);
    expectIssue(await list('?updatedSince=yesterday'), 'updatedSince');
    expectIssue(await list('?updatedSince=2025-02-30'), 'updatedSince');
  });

  test('a republish with changed content moves the post into updatedSince', async () => {
    const cutoff = (await list('?fields=publishedAt&limit=1')).body.items[0].publishedAt;
    clock.advance(60_000);
    await admin.patch(ids.get('alpha')!, { metaDescription: 'changed' });
    expect(await slugs(`?updatedSince=${clock.now().toISOString()}`)).toEqual([]);
    await admin.publish(ids.get('alpha')!);
    expect(await slugs(`?updatedSince=${clock.now().toISOString()}`)).toEqual(['alpha']);
    expect(Date.parse(cutoff)).toBeLessThan(clock.now().getTime());
    // Restore the order the other tests expect.
    publishedAt.set('alpha', clock.now().toISOString());
  });
});

describe('sort', () => {
  test('default and -publishedAt are the spec order; publishedAt reverses it, ties included', async () => {
    const newestFirst = await slugs('');
    expect(await slugs('?sort=-publishedAt')).toEqual(newestFirst);
    expect(await slugs('?sort=publishedAt')).toEqual([...newestFirst].reverse());
    expect(newestFirst.slice(-2)).toEqual(tiedDesc());
  });

  test('updatedAt follows the public snapshot, not draft edits', async () => {
    const before = await slugs('?sort=-updatedAt');
    clock.advance(60_000);
    await admin.patch(ids.get('delta')!, { title: 'Draft only' });
    expect(await slugs('?sort=-updatedAt')).toEqual(before);
    expect(await slugs('?sort=updatedAt')).toEqual([...before].reverse());
  });

  test('title and -title, ties by post id in the same direction', async () => {
    const tiedAsc = [...tiedDesc()].reverse();
    expect(await slugs('?sort=title')).toEqual(['delta', ...tiedAsc, 'alpha']);
    expect(await slugs('?sort=-title')).toEqual(['alpha', ...tiedDesc(), 'delta']);
  });

  test('pages of a title sort are stable and cover every post once', async () => {
    const pages = [];
    for (let page = 1; page <= 4; page += 1) pages.push(...(await slugs(`?sort=title&limit=1&page=${page}`)));
    expect(pages).toEqual(await slugs('?sort=title'));
  });

  test('an unknown or repeated sort is 400', async () => {
    expectIssue(await list('?sort=random'), 'sort');
    expectIssue(await list('?sort=+title'), 'sort');
    expectIssue(await list('?sort=title&sort=-title'), 'sort');
  });
});

describe('sparse fieldsets', () => {
  test('only the named fields, in item order; pageInfo unchanged', async () => {
    const full = await list('?limit=2');
    const res = await list('?limit=2&fields=title,slug');
    expect(res.status).toBe(200);
    expect(res.body.pageInfo).toEqual(full.body.pageInfo);
    expect(res.body.items).toEqual(full.body.items.map((item: { slug: string; title: string }) => ({ slug: item.slug, title: item.title })));
    expect(Object.keys(res.body.items[0])).toEqual(['slug', 'title']);
  });

  test('bodies still need include=content', async () => {
    expect((await list('?limit=1&fields=contentMarkdown')).body.items).toEqual([{ contentMarkdown: null }]);
    const withBody = await list('?limit=1&fields=contentMarkdown&include=content&sort=title');
    expect(withBody.body.items).toEqual([{ contentMarkdown: 'body of delta' }]);
  });

  test('every list-item field may be named', async () => {
    const all = 'postId,slug,canonicalSlug,title,metaDescription,imageUrl,tags,category,authorName,customConfig,publishedAt,contentHtml,contentMarkdown,jsonLd';
    expect((await list(`?fields=${all}`)).body).toEqual((await list('')).body);
  });

  test('an unknown, empty or repeated field list is 400 with issues', async () => {
    expectIssue(await list('?fields=slug,nope'), 'fields');
    expectIssue(await list('?fields='), 'fields');
    expectIssue(await list('?fields=slug,'), 'fields');
    expectIssue(await list('?fields=locale'), 'fields');
    expectIssue(await list('?fields=slug&fields=title'), 'fields');
  });
});

describe('cache and compatibility', () => {
  test('new queries are answered from the content cache and invalidated by a publish', async () => {
    const qs = '?tag=a&fields=slug';
    const first = await list(qs);
    const hitsBefore = node.deps.cache.content.stats().hits;
    const second = await list(qs);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(node.deps.cache.content.stats().hits).toBe(hitsBefore + 1);

    clock.advance(60_000);
    await admin.published({ slug: 'echo', title: 'Echo', tags: ['a'] });
    expect((await list(qs)).body.items[0]).toEqual({ slug: 'echo' });
    await admin.unpublish((await list('?fields=postId&limit=1')).body.items[0].postId);
    expect((await list(qs)).body.items.map((p: { slug: string }) => p.slug)).not.toContain('echo');
  });

  test('unknown parameters are still ignored and the spec parameters keep their bounds', async () => {
    expect(await slugs('?whatever=1&sort=title')).toEqual(await slugs('?sort=title'));
    expect((await list('?limit=51&tag=a')).body.pageInfo.limit).toBe(50);
    expect((await list('?force_limit=1001&sort=title')).body.pageInfo.limit).toBe(1000);
    expectIssue(await list('?limit=0&sort=title'), 'limit');
  });
});
