import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { failure, newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { createPost, editDraft, type CreatePostInput } from '../../src/posts/posts.service.js';
import { publishPost, unpublishPost } from '../../src/posts/publication.service.js';
import { getPublicPost, listPublicCategories } from '../../src/posts/public-posts.service.js';
import { createCategory, deleteCategory, updateCategory } from '../../src/categories/categories.service.js';

// Translation groups, the slug lookup's locale fallback, public categories per locale, content HTML.
const clock = new ManualClock(new Date('2025-05-01T08:00:00Z'));
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices({ clock });
});
afterAll(async () => {
  await services.close();
});

function content(ws: Workspace) {
  const create = (input: CreatePostInput) => createPost(services.deps, ws, input);
  const publish = async (id: string) => (await publishPost(services.deps, ws, id)).post;
  return { create, publish, published: async (input: CreatePostInput) => publish((await create(input)).id) };
}

test('translations share canonicalSlug and list every published locale variant', async () => {
  const { workspace: ws } = await newWorkspace(services.deps, { locales: ['en', 'de', 'fr'], defaultLocale: 'en' });
  const posts = content(ws);
  const en = await posts.published({ locale: 'en', slug: 'bread-guide', title: 'Bread guide' });
  clock.advance(60_000);
  const de = await posts.create({ locale: 'de', slug: 'brot-ratgeber', title: 'Brotratgeber', translationOf: en.id });
  expect(de.draft.canonicalSlug).toBe('bread-guide');
  expect(de.translationGroupId).toBe(en.translationGroupId);
  await posts.publish(de.id);
  // A draft translation is not listed.
  await posts.create({ locale: 'fr', slug: 'guide-du-pain', title: 'Guide', translationOf: de.id });

  const found = await getPublicPost(services.deps, ws, 'brot-ratgeber', { locale: 'de' });
  expect(found).toMatchObject({ postId: de.id, slug: 'brot-ratgeber', canonicalSlug: 'bread-guide', locale: 'de' });
  expect(found.translations).toEqual([
    { locale: 'en', slug: 'bread-guide', publishedAt: en.publishedAt!.toISOString() },
    { locale: 'de', slug: 'brot-ratgeber', publishedAt: clock.now().toISOString() },
  ]);
  expect(found.contentHtml).toBeNull();

  // A second post of a locale in one group, or another canonicalSlug, is refused.
  await failure(posts.create({ locale: 'de', slug: 'zweites', title: 'Z', translationOf: en.id }), 'translation_exists');
  const solo = await posts.create({ locale: 'en', slug: 'solo', title: 'Solo' });
  const other = await failure(posts.create({ locale: 'fr', slug: 'autre', title: 'A', translationOf: solo.id, canonicalSlug: 'different' }), 'validation_failed');
  expect(other.issues?.map((issue) => issue.path)).toContain('canonicalSlug');
});

test('slug lookup: explicit locale only; otherwise default locale first, then workspace locale order', async () => {
  const { workspace: ws } = await newWorkspace(services.deps, { locales: ['de', 'en', 'fr'], defaultLocale: 'en' });
  const posts = content(ws);
  await posts.published({ locale: 'de', slug: 'shared', title: 'Geteilt (de)' });
  await posts.published({ locale: 'fr', slug: 'shared', title: 'Partagé (fr)' });
  await posts.published({ locale: 'en', slug: 'home', title: 'Home (en)' });
  await posts.published({ locale: 'de', slug: 'home', title: 'Home (de)' });
  await posts.published({ locale: 'fr', slug: 'only-fr', title: 'Seulement' });
  const get = (slug: string, locale?: string) => getPublicPost(services.deps, ws, slug, { locale });

  expect((await get('home')).title).toBe('Home (en)'); // default locale wins
  expect((await get('shared')).title).toBe('Geteilt (de)'); // then workspace order: de before fr
  expect((await get('only-fr')).title).toBe('Seulement');
  expect((await get('home', 'de')).title).toBe('Home (de)');
  await failure(get('only-fr', 'en'), 'published_post_not_found');
  await failure(get('nothing-here'), 'published_post_not_found');
});

test('categories: only those with a published post in the locale (default locale by default), `*` for all', async () => {
  const { workspace: ws } = await newWorkspace(services.deps, { locales: ['en', 'de'], defaultLocale: 'de' });
  const posts = content(ws);
  const category = (slug: string, name: string) => createCategory(services.deps, ws, { slug, name });
  const bread = await category('bread', 'Bread');
  const cakes = await category('cakes', 'Cakes');
  const empty = await category('empty', 'Empty');
  const drafts = await category('drafts', 'Drafts');
  await posts.published({ locale: 'en', slug: 'rye', title: 'Rye', categoryId: bread.id });
  await posts.published({ locale: 'de', slug: 'torte', title: 'Torte', categoryId: cakes.id });
  await posts.create({ locale: 'de', slug: 'entwurf', title: 'Entwurf', categoryId: drafts.id });
  const unpublished = await posts.published({ locale: 'de', slug: 'weg', title: 'Weg', categoryId: bread.id });
  await unpublishPost(services.deps, ws, unpublished.id);
  const list = (locale?: string) => listPublicCategories(services.deps, ws, locale);

  expect(await list()).toEqual([{ id: cakes.id, slug: 'cakes', name: 'Cakes' }]);
  expect(await list('en')).toEqual([{ id: bread.id, slug: 'bread', name: 'Bread' }]);
  expect((await list('*')).map((c) => c.id)).toEqual([bread.id, cakes.id, drafts.id, empty.id]);
  expect(await list('fr')).toEqual([]);

  // The post answer carries the category object; renaming shows at once; deleting leaves null.
  await updateCategory(services.deps, ws, cakes.id, { name: 'Cakes & Tarts' });
  expect((await getPublicPost(services.deps, ws, 'torte', {})).category).toEqual({ id: cakes.id, slug: 'cakes', name: 'Cakes & Tarts' });
  await failure(category('cakes', 'Again'), 'category_slug_taken');
  await deleteCategory(services.deps, ws, cakes.id);
  expect((await getPublicPost(services.deps, ws, 'torte', {})).category).toBeNull();
  expect(await list()).toEqual([]);
});

test('markdown renders to sanitized HTML; given HTML is sanitized too', async () => {
  const { workspace: ws } = await newWorkspace(services.deps);
  const posts = content(ws);
  const md = await posts.create({ locale: 'en', slug: 'md', title: 'MD', contentMarkdown: '## Title\n\n- one\n- two\n\n<img src=x onerror="alert(1)">' });
  expect(md.draft.contentHtml).toContain('<h2>Title</h2>');
  expect(md.draft.contentHtml).toContain('<li>one</li>');
  expect(md.draft.contentHtml).not.toContain('onerror');
  const html = await posts.create({ locale: 'en', slug: 'html', title: 'HTML', contentHtml: '<p onclick="x()">Hi<script>bad()</script></p><a href="javascript:bad()">l</a>' });
  expect(html.draft.contentHtml).toBe('<p>Hi</p><a>l</a>');
  const edited = await editDraft(services.deps, ws, md.id, { contentMarkdown: '*new*' });
  expect(edited.draft.contentHtml!.trim()).toBe('<p><em>new</em></p>');
});
