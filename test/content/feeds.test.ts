import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

// RSS/Atom feeds and the sitemap: real XML (parsed back), absolute links from the admin-only siteUrl,
// hreflang alternates, cached bytes that keep their content type, ETag/304, invalidation on publish.
let node: HearthNode;
const clock = new ManualClock(new Date('2025-06-01T00:00:00Z'));
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

const SITE = 'https://www.example.org/blog';
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => ['item', 'entry', 'url', 'xhtml:link', 'category'].includes(name) });
const get = (ws: WorkspaceFixture, path: string, headers: Record<string, string> = {}) => request(node.url, path, { apiKey: ws.apiKey, headers });
function parse(text: string) {
  expect(XMLValidator.validate(text)).toBe(true);
  return parser.parse(text);
}
const setSiteUrl = (ws: WorkspaceFixture, siteUrl: unknown) => request(node.url, `/admin/workspaces/${ws.id}`, { token: ws.token, method: 'PATCH', body: { siteUrl } });

describe('siteUrl', () => {
  test('an absolute http(s) URL without query or fragment; trailing slash dropped; null clears it', async () => {
    const ws = await createWorkspace(node.url);
    const res = await setSiteUrl(ws, `${SITE}/`);
    expect(res.status).toBe(200);
    expect(res.body.siteUrl).toBe(SITE);
    expect((await request(node.url, `/admin/workspaces/${ws.id}`, { token: ws.token })).body.siteUrl).toBe(SITE);
    for (const bad of ['ftp://example.org', '/relative', 'example.org', 'https://example.org/?a=1', 'https://example.org/#top', `https://e.org/${'x'.repeat(2000)}`, 42]) {
      expectIssue(await setSiteUrl(ws, bad), 'siteUrl');
    }
    expect((await setSiteUrl(ws, 'http://localhost:4321')).body.siteUrl).toBe('http://localhost:4321');
    expect((await setSiteUrl(ws, null)).body.siteUrl).toBeNull();
  });

  test('it stays admin-only: GET /external/workspace never shows it', async () => {
    const ws = await createWorkspace(node.url);
    await setSiteUrl(ws, SITE);
    const res = await get(ws, '/external/workspace');
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('siteUrl');
    expect(Object.keys(res.body)).toEqual(['id', 'slug', 'name', 'locales', 'defaultLocale', 'customConfig', 'schemaOrg']);
  });

  test('without it, feed and sitemap answer 404 site_url_not_set', async () => {
    const ws = await createWorkspace(node.url);
    await contentAdmin(node.url, ws).published({ slug: 'p', title: 'P' });
    for (const path of ['/external/feed.xml', '/external/sitemap.xml']) {
      const res = await get(ws, path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('site_url_not_set');
    }
  });
});

describe('feed.xml', () => {
  let ws: WorkspaceFixture;
  let admin: ReturnType<typeof contentAdmin>;
  beforeAll(async () => {
    ws = await createWorkspace(node.url, { name: 'Café & <Friends>' });
    admin = contentAdmin(node.url, ws);
    await setSiteUrl(ws, SITE);
    const news = await admin.category('news', 'News & Views');
    clock.advance(60_000);
    await admin.published({ slug: 'first', title: 'First', metaDescription: 'One', authorName: 'Ann' });
    clock.advance(60_000);
    await admin.published({ slug: 'cafe-creme', title: 'Tags <b> & "quotes"', categoryId: news.id });
    clock.advance(60_000);
    await admin.published({ slug: 'zweiter', title: 'Zweiter', locale: 'de' });
    await admin.createPost({ slug: 'draft', title: 'Draft' });
  });

  test('RSS 2.0 of the default locale, newest first, absolute links, escaped text', async () => {
    const res = await get(ws, '/external/feed.xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const { rss } = parse(res.text);
    expect(rss['@version']).toBe('2.0');
    expect(rss.channel.title).toBe('Café & <Friends>');
    expect(rss.channel.link).toBe(`${SITE}/en`);
    expect(rss.channel.language).toBe('en');
    const items = rss.channel.item;
    expect(items.map((item: { title: string }) => item.title)).toEqual(['Tags <b> & "quotes"', 'First']);
    expect(items[0].link).toBe(`${SITE}/en/cafe-creme`);
    expect(items[0].guid['#text'] ?? items[0].guid).toBe(items[0].link);
    expect(items[0].category.map((c: { '#text'?: string } | string) => (typeof c === 'string' ? c : c['#text']))).toEqual(['News & Views']);
    expect(new Date(items[1].pubDate).toISOString()).toBe('2025-06-01T00:01:00.000Z');
    expect(items[1].description).toBe('One');
    expect(res.text).not.toContain('Draft');
  });

  test('titles with "]]>" (any number) and characters XML cannot carry still give a readable feed, in both formats', async () => {
    const own = await createWorkspace(node.url, { name: 'Bell\u0007 & co' });
    await setSiteUrl(own, SITE);
    const title = 'a]]>b]]><evil/>c]]>d\u0001\u001F';
    await contentAdmin(node.url, own).published({ slug: 'cdata', title, metaDescription: 'x]]>y]]>z\u000B', authorName: 'Ann\u0008' });
    const rss = parse((await get(own, '/external/feed.xml')).text).rss;
    expect(rss.channel.title).toBe('Bell & co');
    expect([rss.channel.item[0].title, rss.channel.item[0].description]).toEqual(['a]]>b]]><evil/>c]]>d', 'x]]>y]]>z']);
    const atom = parse((await get(own, '/external/feed.xml?format=atom')).text).feed;
    const text = (value: { '#text': string } | string) => (typeof value === 'string' ? value : value['#text']);
    expect([text(atom.entry[0].title), text(atom.entry[0].summary), atom.entry[0].author.name]).toEqual(['a]]>b]]><evil/>c]]>d', 'x]]>y]]>z', 'Ann']);
    expect(atom.entry[0]).not.toHaveProperty('evil');
  });

  test('Atom 1.0 with format=atom', async () => {
    const res = await get(ws, '/external/feed.xml?format=atom');
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const { feed } = parse(res.text);
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.updated).toBe('2025-06-01T00:02:00.000Z');
    expect(feed.entry.map((entry: { title: { '#text': string } | string }) => (typeof entry.title === 'string' ? entry.title : entry.title['#text']))).toEqual(['Tags <b> & "quotes"', 'First']);
    expect(feed.entry[1].link['@href']).toBe(`${SITE}/en/first`);
    expect(feed.entry[1].author.name).toBe('Ann');
  });

  test('locale, type and category narrow the feed', async () => {
    const titles = async (qs: string) => {
      const { rss } = parse((await get(ws, `/external/feed.xml${qs}`)).text);
      return (rss.channel.item ?? []).map((item: { title: string }) => item.title);
    };
    expect(await titles('?locale=de')).toEqual(['Zweiter']);
    expect(await titles('?locale=fr')).toEqual([]);
    expect(await titles('?category=news')).toEqual(['Tags <b> & "quotes"']);
    expect(await titles('?category=none')).toEqual([]);
    expect(await titles('?type=page')).toEqual([]);
    expect(await titles('?type=*')).toHaveLength(2);
  });

  test('bad values are 400 with issues', async () => {
    expectIssue(await get(ws, '/external/feed.xml?format=json'), 'format');
    expectIssue(await get(ws, '/external/feed.xml?locale=not_a_locale'), 'locale');
    expectIssue(await get(ws, '/external/feed.xml?category=Bad%20Slug'), 'category');
    expectIssue(await get(ws, '/external/feed.xml?type=Bad%20Type'), 'type');
    expect((await request(node.url, '/external/feed.xml')).status).toBe(401);
  });

  test('cached bytes keep their content type; ETag answers 304; a publish shows at once', async () => {
    const first = await get(ws, '/external/feed.xml?format=atom&locale=en');
    const hits = node.deps.cache.content.stats().hits;
    const second = await get(ws, '/external/feed.xml?format=atom&locale=en');
    expect(node.deps.cache.content.stats().hits).toBe(hits + 1);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const etag = second.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    expect(second.headers.get('cache-control')).toBe('no-cache');
    const notModified = await get(ws, '/external/feed.xml?format=atom&locale=en', { 'If-None-Match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');

    clock.advance(60_000);
    await admin.published({ slug: 'newest', title: 'Newest' });
    const after = await get(ws, '/external/feed.xml?format=atom&locale=en', { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(parse(after.text).feed.entry[0].link['@href']).toBe(`${SITE}/en/newest`);
    // A siteUrl change is a workspace write: the links follow it.
    await setSiteUrl(ws, 'https://moved.example');
    expect(parse((await get(ws, '/external/feed.xml?format=atom&locale=en')).text).feed.entry[0].link['@href']).toBe('https://moved.example/en/newest');
    await setSiteUrl(ws, SITE);
  });

  test('at most the newest 50 posts', async () => {
    const big = await createWorkspace(node.url);
    await setSiteUrl(big, SITE);
    const bigAdmin = contentAdmin(node.url, big);
    for (let i = 1; i <= 51; i += 1) {
      clock.advance(1_000);
      await bigAdmin.published({ slug: `p-${i}`, title: `P ${i}` });
    }
    const items = parse((await get(big, '/external/feed.xml')).text).rss.channel.item;
    expect(items).toHaveLength(50);
    expect(items[0].title).toBe('P 51');
    expect(items[49].title).toBe('P 2');
  }, 60_000);
});

describe('sitemap.xml', () => {
  let ws: WorkspaceFixture;
  let admin: ReturnType<typeof contentAdmin>;
  const posts: Record<string, { id: string; publishedAt: string }> = {};
  beforeAll(async () => {
    ws = await createWorkspace(node.url, { locales: ['en', 'de', 'fr'], defaultLocale: 'en' });
    admin = contentAdmin(node.url, ws);
    await setSiteUrl(ws, SITE);
    clock.advance(60_000);
    posts.hello = await admin.published({ slug: 'hello', title: 'Hello' });
    clock.advance(60_000);
    posts.hallo = await admin.published({ slug: 'hallo', title: 'Hallo', locale: 'de', translationOf: posts.hello.id });
    const draftFr = await admin.createPost({ slug: 'bonjour', title: 'Bonjour', locale: 'fr', translationOf: posts.hello.id });
    posts.solo = await admin.published({ slug: 'solo', title: 'Solo' });
    const gone = await admin.published({ slug: 'gone', title: 'Gone' });
    await admin.unpublish(gone.id);
    expect(draftFr.state).toBe('DRAFT');
  });

  const urls = async () => {
    const res = await get(ws, '/external/sitemap.xml');
    expect(res.status).toBe(200);
    return { res, set: parse(res.text).urlset };
  };

  test('every published post per locale, lastmod, hreflang alternates between published translations', async () => {
    const { res, set } = await urls();
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(set['@xmlns']).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    expect(set['@xmlns:xhtml']).toBe('http://www.w3.org/1999/xhtml');
    const locs = set.url.map((entry: { loc: string }) => entry.loc);
    expect(locs).toEqual([`${SITE}/en/hello`, `${SITE}/en/solo`, `${SITE}/de/hallo`]);
    const [hello, solo, hallo] = set.url;
    expect(new Date(hello.lastmod).toISOString()).toBe(posts.hello.publishedAt);
    expect(new Date(hallo.lastmod).toISOString()).toBe(posts.hallo.publishedAt);
    const alternates = [{ '@rel': 'alternate', '@hreflang': 'en', '@href': `${SITE}/en/hello` }, { '@rel': 'alternate', '@hreflang': 'de', '@href': `${SITE}/de/hallo` }];
    expect(hello['xhtml:link']).toEqual(alternates);
    expect(hallo['xhtml:link']).toEqual(alternates);
    expect(solo['xhtml:link']).toBeUndefined();
    expect(res.text).not.toContain('gone');
    expect(res.text).not.toContain('bonjour');
  });

  test('publishing a translation adds it and its alternates; the answer is cached until then', async () => {
    const before = await get(ws, '/external/sitemap.xml');
    const hits = node.deps.cache.content.stats().hits;
    const again = await get(ws, '/external/sitemap.xml', { 'If-None-Match': before.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(node.deps.cache.content.stats().hits).toBe(hits + 1);
    const cached = await get(ws, '/external/sitemap.xml');
    expect(cached.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(cached.text).toBe(before.text);

    const fr = (await admin.call(`/posts?locale=fr`)).items[0];
    clock.advance(60_000);
    await admin.publish(fr.id);
    const { set } = await urls();
    const byLoc = new Map(set.url.map((entry: { loc: string }) => [entry.loc, entry]));
    expect([...byLoc.keys()]).toEqual([`${SITE}/en/hello`, `${SITE}/en/solo`, `${SITE}/de/hallo`, `${SITE}/fr/bonjour`]);
    const hello = byLoc.get(`${SITE}/en/hello`) as { 'xhtml:link': { '@hreflang': string }[] };
    expect(hello['xhtml:link'].map((link) => link['@hreflang'])).toEqual(['en', 'de', 'fr']);
  });

  test('an empty workspace with a siteUrl has a valid, empty urlset', async () => {
    const empty = await createWorkspace(node.url);
    await setSiteUrl(empty, SITE);
    const res = await get(empty, '/external/sitemap.xml');
    expect(res.status).toBe(200);
    const { urlset } = parse(res.text);
    expect(urlset.url).toBeUndefined();
  });
});
