import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

let node: HearthNode;
const clock = new ManualClock(new Date('2025-05-01T08:00:00Z'));
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

test('translations share canonicalSlug and list every published locale variant', async () => {
  const ws = await createWorkspace(node.url, { locales: ['en', 'de', 'fr'], defaultLocale: 'en' });
  const admin = contentAdmin(node.url, ws);
  const en = await admin.published({ locale: 'en', slug: 'bread-guide', title: 'Bread guide' });
  clock.advance(60_000);
  const de = await admin.createPost({ locale: 'de', slug: 'brot-ratgeber', title: 'Brotratgeber', translationOf: en.id });
  expect(de.canonicalSlug).toBe('bread-guide');
  expect(de.translationGroupId).toBe(en.translationGroupId);
  await admin.publish(de.id);
  // A draft translation is not listed.
  await admin.createPost({ locale: 'fr', slug: 'guide-du-pain', title: 'Guide', translationOf: de.id });

  const res = await request(node.url, '/external/posts/brot-ratgeber?locale=de', { apiKey: ws.apiKey });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ postId: de.id, slug: 'brot-ratgeber', canonicalSlug: 'bread-guide', locale: 'de' });
  expect(res.body.translations).toEqual([
    { locale: 'en', slug: 'bread-guide', publishedAt: en.publishedAt },
    { locale: 'de', slug: 'brot-ratgeber', publishedAt: clock.now().toISOString() },
  ]);
  expect(res.body.contentHtml).toBeNull();

  // A second post of a locale in one group, or another canonicalSlug, is refused.
  const dup = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'de', slug: 'zweites', title: 'Z', translationOf: en.id } });
  expect(dup.status).toBe(409);
  const solo = await admin.createPost({ locale: 'en', slug: 'solo', title: 'Solo' });
  const other = await request(node.url, `/admin/workspaces/${ws.id}/posts`, {
    token: ws.token,
    body: { locale: 'fr', slug: 'autre', title: 'A', translationOf: solo.id, canonicalSlug: 'different' },
  });
  expectIssue(other, 'canonicalSlug');
});

test('slug lookup: explicit locale only; otherwise default locale first, then workspace locale order', async () => {
  const ws = await createWorkspace(node.url, { locales: ['de', 'en', 'fr'], defaultLocale: 'en' });
  const admin = contentAdmin(node.url, ws);
  await admin.published({ locale: 'de', slug: 'shared', title: 'Geteilt (de)' });
  await admin.published({ locale: 'fr', slug: 'shared', title: 'Partagé (fr)' });
  await admin.published({ locale: 'en', slug: 'home', title: 'Home (en)' });
  await admin.published({ locale: 'de', slug: 'home', title: 'Home (de)' });
  await admin.published({ locale: 'fr', slug: 'only-fr', title: 'Seulement' });
  const get = (path: string) => request(node.url, `/external/posts/${path}`, { apiKey: ws.apiKey });

  expect((await get('home')).body.title).toBe('Home (en)'); // default locale wins
  expect((await get('shared')).body.title).toBe('Geteilt (de)'); // then workspace order: de before fr
  expect((await get('only-fr')).body.title).toBe('Seulement');
  expect((await get('home?locale=de')).body.title).toBe('Home (de)');
  const missing = await get('only-fr?locale=en');
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe('post_not_found');
  expect((await get('nothing-here')).status).toBe(404);
  expectIssue(await get('home?locale=not_a_locale!'), 'locale');
  const full = await get('home?include=content');
  expect(full.status).toBe(200);
});

test('categories: only those with a published post in the locale (default locale by default), `*` for all', async () => {
  const ws = await createWorkspace(node.url, { locales: ['en', 'de'], defaultLocale: 'de' });
  const admin = contentAdmin(node.url, ws);
  const bread = await admin.category('bread', 'Bread');
  const cakes = await admin.category('cakes', 'Cakes');
  const empty = await admin.category('empty', 'Empty');
  const drafts = await admin.category('drafts', 'Drafts');
  await admin.published({ locale: 'en', slug: 'rye', title: 'Rye', categoryId: bread.id });
  await admin.published({ locale: 'de', slug: 'torte', title: 'Torte', categoryId: cakes.id });
  await admin.createPost({ locale: 'de', slug: 'entwurf', title: 'Entwurf', categoryId: drafts.id });
  const unpublished = await admin.published({ locale: 'de', slug: 'weg', title: 'Weg', categoryId: bread.id });
  await admin.unpublish(unpublished.id);
  const get = (qs = '') => request(node.url, `/external/categories${qs}`, { apiKey: ws.apiKey });

  expect((await get()).body.items).toEqual([{ id: cakes.id, slug: 'cakes', name: 'Cakes' }]);
  expect((await get('?locale=en')).body.items).toEqual([{ id: bread.id, slug: 'bread', name: 'Bread' }]);
  expect((await get('?locale=*')).body.items.map((c: { id: string }) => c.id)).toEqual([bread.id, cakes.id, drafts.id, empty.id]);
  expect((await get('?locale=fr')).body.items).toEqual([]);

  // The post answer carries the category object; renaming shows at once; deleting leaves null.
  await admin.call(`/categories/${cakes.id}`, { method: 'PATCH', body: { name: 'Cakes & Tarts' } });
  const torte = await request(node.url, '/external/posts/torte', { apiKey: ws.apiKey });
  expect(torte.body.category).toEqual({ id: cakes.id, slug: 'cakes', name: 'Cakes & Tarts' });
  const clash = await request(node.url, `/admin/workspaces/${ws.id}/categories`, { token: ws.token, body: { slug: 'cakes', name: 'Again' } });
  expect(clash.status).toBe(409);
  await admin.call(`/categories/${cakes.id}`, { method: 'DELETE' });
  expect((await request(node.url, '/external/posts/torte', { apiKey: ws.apiKey })).body.category).toBeNull();
  expect((await get()).body.items).toEqual([]);
});

test('markdown renders to sanitized HTML; given HTML is sanitized too', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  const md = await admin.createPost({ slug: 'md', title: 'MD', contentMarkdown: '## Title\n\n- one\n- two\n\n<img src=x onerror="alert(1)">' });
  expect(md.contentHtml).toContain('<h2>Title</h2>');
  expect(md.contentHtml).toContain('<li>one</li>');
  expect(md.contentHtml).not.toContain('onerror');
  const html = await admin.createPost({ slug: 'html', title: 'HTML', contentHtml: '<p onclick="x()">Hi<script>bad()</script></p><a href="javascript:bad()">l</a>' });
  expect(html.contentHtml).toBe('<p>Hi</p><a>l</a>');
  const edited = await admin.patch(md.id, { contentMarkdown: '*new*' });
  expect(edited.contentHtml.trim()).toBe('<p><em>new</em></p>');
});
