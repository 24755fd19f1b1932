import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium, openConsole, overflowsSideways } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';
import { memberWith, PASSWORD, type TestUser } from '../team/support.js';

/**
 * The team app's menus and categories in a real Chromium against a real node: an editor arranges a
 * navigation's items with the keyboard alone (reorder, nest, a label per locale, hidden in one locale) and
 * /external serves the saved tree; categories are created, renamed and deleted, with the server's field-level
 * problem beside its field; a post gets a category and tags, and deleting it takes it off /external; an agent
 * gets no such section.
 */

declare const document: any;

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;
let editor: TestUser;

beforeAll(async () => {
  await buildConsole();
  node = await startTestNode();
  ws = await createWorkspace(node.url, { name: 'Structure Bakery', locales: ['en', 'de'] });
  editor = await memberWith(node.url, ws, 'editor', 'Eda Editor');
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

const openApp = (user: { email: string }, options: { width?: number; locale?: string; hash?: string } = {}) =>
  openConsole(browser, node.url, ws.id, { ...options, hash: options.hash ?? '#/structure', user: { email: user.email, password: PASSWORD } });

const admin = (path: string, options: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => request(node.url, `/admin/workspaces/${ws.id}${path}`, { token: ws.token, ...options });
/** The focus moves after the render the key press caused: wait for it to arrive. */
const focusOn = (page: Page, id: string) => page.waitForFunction((wanted) => document.activeElement?.id === wanted, id, { timeout: 5_000 });
/** Focus and Enter: how a keyboard user presses a button. */
async function press(page: Page, selector: string, key = 'Enter') {
  await page.locator(selector).focus();
  await page.keyboard.press(key);
}

interface PublicItem {
  id: string;
  parentId: string | null;
  position: number;
  type: string;
  labels: Record<string, string> | null;
  hiddenLocales: string[];
  post: { id: string; locales: { locale: string; title: string }[] } | null;
}

/**
 * What a site renders of a public navigation in one locale, as the endpoint documents it: an item hidden in
 * the locale is left out with its children; its label in that locale, else its post's title, else its first
 * label. `>` marks depth.
 */
function menuIn(items: PublicItem[], locale: string): string[] {
  const hidden = new Set<string>();
  const depth = new Map<string, number>();
  const shown: string[] = [];
  for (const item of items) {
    if (item.hiddenLocales.includes(locale) || (item.parentId && hidden.has(item.parentId))) {
      hidden.add(item.id);
      continue;
    }
    const level = item.parentId ? depth.get(item.parentId)! + 1 : 0;
    depth.set(item.id, level);
    const labels = item.labels ?? {};
    const title = item.post?.locales.find((variant) => variant.locale === locale)?.title ?? item.post?.locales[0]?.title;
    shown.push(`${'>'.repeat(level)}${labels[locale] ?? title ?? Object.values(labels)[0]}`);
  }
  return shown;
}

test('an editor reorders and nests navigation items with the keyboard only, labels and hides them per locale; /external serves the saved tree', async () => {
  const created = await admin('/navigations', { body: { key: 'header', name: 'Header' } });
  expect(created.status).toBe(201);
  const nid = created.body.id as string;
  const seeded = await admin(`/navigations/${nid}/items`, {
    method: 'PUT',
    body: {
      items: [
        { id: 'a', parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home' } },
        { id: 'b', parentId: null, position: 1, type: 'CUSTOM_URL', customUrl: '/shop', labels: { en: 'Shop', de: 'Laden' } },
        { id: 'c', parentId: null, position: 2, type: 'CUSTOM_URL', customUrl: '/contact', labels: { en: 'Contact', de: 'Kontakt' } },
      ],
    },
  });
  expect(seeded.status).toBe(200);
  const [home, shop, contact] = (seeded.body.items as PublicItem[]).map((item) => item.id);
  const about = await admin('/posts', { body: { locale: 'en', slug: 'about-us', title: 'About us', contentMarkdown: 'We bake.' } });
  expect(about.status).toBe(201);
  expect((await admin(`/posts/${about.body.id}/publish`, { body: {} })).status).toBe(200);

  const { context, page, errors } = await openApp(editor);
  await page.locator('#navigation-header').waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await press(page, '#navigation-header');
  await page.locator('#nav-tree').waitFor();
  expect(await axeViolations(page)).toEqual([]);

  // Contact up one: Home, Contact, Shop. The focus stays on the button pressed; the move is announced.
  await press(page, `#item-${contact}-up`);
  await focusOn(page, `item-${contact}-up`);
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('Contact: position 2 of 3, top level.');
  // Shop under Contact (the item above it).
  await press(page, `#item-${shop}-indent`);
  await focusOn(page, `item-${shop}-indent`);
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('Shop: position 1 of 1, under Contact.');
  // Home cannot go further up: said, nothing moves.
  await press(page, `#item-${home}-up`);
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('Home cannot move that way.');

  // A new link with a label per locale, typed and added from the keyboard.
  await page.locator('#nav-add-label-en').focus();
  await page.keyboard.type('News');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Neuigkeiten');
  await page.keyboard.press('Tab');
  await page.keyboard.type('/news');
  await page.keyboard.press('Enter');
  const added = (await page.locator('#nav-tree > li').last().getAttribute('id'))!.replace(/^item-/, '');
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('News added at the end.');
  // Into Contact's children (after Shop), then above Shop.
  await press(page, `#item-${added}-indent`);
  await press(page, `#item-${added}-up`);
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('News: position 1 of 2, under Contact.');
  // The same with Alt and the arrow keys on a focused button: out of Contact, back in (last), up again.
  await focusOn(page, `item-${added}-up`);
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('News: position 3 of 3, top level.');
  await focusOn(page, `item-${added}-outdent`);
  await page.keyboard.press('Alt+ArrowRight');
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('News: position 2 of 2, under Contact.');
  await focusOn(page, `item-${added}-indent`);
  await page.keyboard.press('Alt+ArrowUp');
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('News: position 1 of 2, under Contact.');
  // A link to a post (its label comes from the post's title on the site).
  await page.locator('#nav-add-type').selectOption('POST');
  await page.locator('#nav-add-post').selectOption(about.body.id);
  await press(page, '#nav-add-submit');
  await expect(page.locator('#nav-announce').textContent()).resolves.toBe('About us added at the end.');
  // Home is hidden in German: its edit panel opened and its box ticked from the keyboard.
  await press(page, `#item-${home}-edit`);
  await press(page, `#item-${home}-hide-de`, 'Space');
  await expect(page.locator(`#item-${home}-hide-de`).isChecked()).resolves.toBe(true);

  await press(page, '#nav-save');
  await page.locator('#nav-state[data-state=saved]').waitFor({ timeout: 10_000 });
  const served = await request(node.url, '/external/navigations/header', { apiKey: ws.apiKey });
  expect(served.status).toBe(200);
  const items = served.body.items as PublicItem[];
  expect(items.map((item) => [item.labels?.en ?? item.post?.locales[0].title, item.parentId === null ? null : items.find((parent) => parent.id === item.parentId)?.labels?.en, item.position])).toEqual([
    ['Home', null, 0],
    ['Contact', null, 1],
    ['News', 'Contact', 0],
    ['Shop', 'Contact', 1],
    ['About us', null, 2],
  ]);
  expect(items[4]).toMatchObject({ type: 'POST', labels: null, post: { id: about.body.id, canonicalSlug: 'about-us' } });
  expect(items[2].labels).toEqual({ en: 'News', de: 'Neuigkeiten' });
  expect(items[0].hiddenLocales).toEqual(['de']);
  expect(menuIn(items, 'en')).toEqual(['Home', 'Contact', '>News', '>Shop', 'About us']);
  expect(menuIn(items, 'de')).toEqual(['Kontakt', '>Neuigkeiten', '>Laden', 'About us']);

  // A heading without a label: the server's 400 shows beside that item's labels; what was arranged stays.
  await page.locator('#nav-add-type').selectOption('HEADING');
  await press(page, '#nav-add-submit');
  const heading = (await page.locator('#nav-tree > li').last().getAttribute('id'))!.replace(/^item-/, '');
  await press(page, '#nav-save');
  await page.locator(`#item-${heading}-labels-problem`).waitFor({ timeout: 10_000 });
  await expect(page.locator(`#item-${heading}-labels-problem`).textContent()).resolves.toContain('label');
  await expect(page.locator('#nav-state').getAttribute('data-state')).resolves.toBe('refused');
  expect(await axeViolations(page)).toEqual([]);
  await page.locator(`#item-${heading}-label-en`).focus();
  await page.keyboard.type('More');
  await expect(page.locator(`#item-${heading}-labels-problem`).count()).resolves.toBe(0);

  // Someone else saves meanwhile: 412, the arrangement here is kept and saved over theirs on request.
  const current = (await admin(`/navigations/${nid}`)).body;
  const theirs = await admin(`/navigations/${nid}/items`, { method: 'PUT', headers: { 'If-Match': `"${current.version}"` }, body: { items: [{ parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Only theirs' } }] } });
  expect(theirs.status).toBe(200);
  await press(page, '#nav-save');
  await page.locator('#nav-conflict').waitFor({ timeout: 10_000 });
  await expect(page.locator(`#item-${heading}-label-en`).inputValue()).resolves.toBe('More');
  await press(page, '#nav-save-mine');
  await page.locator('#nav-state[data-state=saved]').waitFor({ timeout: 10_000 });
  const final = (await request(node.url, '/external/navigations/header', { apiKey: ws.apiKey })).body.items as PublicItem[];
  expect(menuIn(final, 'en')).toEqual(['Home', 'Contact', '>News', '>Shop', 'About us', 'More']);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);

test('a menu item links any post, not only the newest 100: found by a search from the keyboard, and named again after a reload', async () => {
  const oldest = await admin('/posts', { body: { locale: 'en', slug: 'founding-story', title: 'Our founding story' } });
  expect(oldest.status).toBe(201);
  expect((await admin(`/posts/${oldest.body.id}/publish`, { body: {} })).status).toBe(200);
  for (let i = 0; i < 100; i += 1) expect((await admin('/posts', { body: { locale: 'en', slug: `newer-${i}`, title: `Newer ${i}` } })).status).toBe(201);
  await admin('/navigations', { body: { key: 'footer-links', name: 'Footer links' } });
  const { context, page, errors } = await openApp(editor);
  await press(page, '#navigation-footer-links');
  await page.locator('#nav-add').waitFor({ timeout: 10_000 });
  await page.locator('#nav-add-type').selectOption('POST');
  await eventually(async () => (await page.locator('#nav-add-post option', { hasText: 'Newer 0 (en)' }).count()) === 1);
  await expect(page.locator('#nav-add-post option', { hasText: 'Our founding story' }).count()).resolves.toBe(0);

  // Enter in the search finds it (and does not add the item); the list then holds what was found.
  await page.locator('#nav-add-post-search').fill('FOUNDING');
  await page.locator('#nav-add-post-search').press('Enter');
  await page.locator('#nav-add [role=status]', { hasText: '1 post found.' }).waitFor({ timeout: 10_000 });
  await expect(page.locator('#nav-tree li').count()).resolves.toBe(0);
  await page.locator('#nav-add-post').selectOption(oldest.body.id);
  await press(page, '#nav-add-submit');
  await page.locator('#nav-save').waitFor({ timeout: 10_000 });
  await press(page, '#nav-save');
  const served = await eventually(async () => {
    const answer = await request(node.url, '/external/navigations/footer-links', { apiKey: ws.apiKey });
    return answer.status === 200 && answer.body.items.length === 1 ? (answer.body.items as PublicItem[]) : undefined;
  }, 10_000);
  expect(menuIn(served, 'en')).toEqual(['Our founding story']);

  // After a reload the item still names its post, though it is not among the newest 100.
  await page.reload();
  await page.locator('#nav-tree li', { hasText: 'Our founding story' }).waitFor({ timeout: 10_000 });
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);

test('a navigation is created (its key refused beside the field first), renamed and deleted from the keyboard', async () => {
  const { context, page, errors } = await openApp(editor);
  await page.locator('#new-navigation').waitFor();
  await page.locator('#navigation-key').focus();
  await page.keyboard.type('Foot Er');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Footer');
  await page.keyboard.press('Enter');
  await page.locator('#navigation-key-problem').waitFor({ timeout: 10_000 });
  await focusOn(page, 'navigation-key');
  await expect(page.locator('#navigation-name').inputValue()).resolves.toBe('Footer');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('footer');
  await page.keyboard.press('Enter');
  await page.locator('#nav-tree, #nav-add').first().waitFor({ timeout: 10_000 });
  await page.locator('#navigation-title', { hasText: 'Footer (footer)' }).waitFor();
  expect((await request(node.url, '/external/navigations/footer', { apiKey: ws.apiKey })).body).toMatchObject({ key: 'footer', name: 'Footer', items: [] });

  await press(page, '#nav-settings-toggle');
  await page.locator('#nav-settings-name').focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Site footer');
  await page.keyboard.press('Enter');
  await page.locator('#nav-settings-status', { hasText: 'Name and key saved.' }).waitFor({ timeout: 10_000 });
  await page.locator('#navigation-title', { hasText: 'Site footer (footer)' }).waitFor();
  expect((await request(node.url, '/external/navigations/footer', { apiKey: ws.apiKey })).body.name).toBe('Site footer');
  expect(await axeViolations(page)).toEqual([]);

  await press(page, '#nav-delete');
  await focusOn(page, 'nav-delete-keep');
  await press(page, '#nav-delete-confirm');
  await page.locator('#navigations-title').waitFor({ timeout: 10_000 });
  await eventually(async () => (await request(node.url, '/external/navigations/footer', { apiKey: ws.apiKey })).status === 404);
  await expect(page.locator('#navigation-footer').count()).resolves.toBe(0);
  // Its old address says it is gone, with the way back.
  await page.goBack();
  await page.locator('#navigation-failed').waitFor({ timeout: 10_000 });
  await page.locator('a', { hasText: 'Back to menus and categories' }).waitFor();
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);

test('categories: create, a field-level 400 beside its field (typed text kept), rename and delete', async () => {
  const { context, page, errors } = await openApp(editor);
  await page.locator('#new-category').waitFor();

  await page.locator('#category-name').fill('Cakes');
  await page.locator('#category-slug').fill('bad slug');
  await press(page, '#new-category button[type=submit]');
  await page.locator('#category-slug-problem').waitFor({ timeout: 10_000 });
  await expect(page.locator('#category-slug').getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(page.locator('#category-slug').inputValue()).resolves.toBe('bad slug');
  await expect(page.locator('#category-name').inputValue()).resolves.toBe('Cakes');
  await focusOn(page, 'category-slug');
  expect(await axeViolations(page)).toEqual([]);

  await page.locator('#category-slug').fill('cakes');
  await page.keyboard.press('Enter');
  await page.locator('#categories li[data-slug=cakes]').waitFor({ timeout: 10_000 });
  const cakes = ((await admin('/categories')).body.items as { id: string; slug: string; name: string }[]).find((category) => category.slug === 'cakes')!;
  expect(cakes.name).toBe('Cakes');

  // A taken slug is refused beside the slug field too.
  await page.locator('#category-name').fill('More cakes');
  await page.locator('#category-slug').fill('cakes');
  await page.keyboard.press('Enter');
  await page.locator('#category-slug-problem').waitFor({ timeout: 10_000 });

  // Rename from the keyboard: the name field takes the focus.
  await press(page, `#category-${cakes.id}-rename`);
  await focusOn(page, `category-${cakes.id}-name`);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Cakes and tarts');
  await page.locator(`#category-${cakes.id}-slug`).fill('');
  await page.keyboard.press('Enter');
  await page.locator(`#category-${cakes.id}-slug-problem`).waitFor({ timeout: 10_000 });
  await expect(page.locator(`#category-${cakes.id}-name`).inputValue()).resolves.toBe('Cakes and tarts');
  await page.locator(`#category-${cakes.id}-slug`).fill('cakes-tarts');
  await page.keyboard.press('Enter');
  await page.locator('#categories li[data-slug=cakes-tarts]').waitFor({ timeout: 10_000 });
  expect((await admin('/categories')).body.items.find((category: { id: string }) => category.id === cakes.id)).toMatchObject({ name: 'Cakes and tarts', slug: 'cakes-tarts' });

  // Delete asks first; the focus starts on "keep it".
  await press(page, `#category-${cakes.id}-delete`);
  await focusOn(page, `category-${cakes.id}-keep`);
  expect(await axeViolations(page)).toEqual([]);
  await press(page, `#category-${cakes.id}-confirm`);
  await page.locator(`#category-${cakes.id}`).waitFor({ state: 'detached', timeout: 10_000 });
  expect((await admin('/categories')).body.items.some((category: { id: string }) => category.id === cakes.id)).toBe(false);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);

test('a post gets a category and tags in the editor; deleting it (confirmed) takes it off /external', async () => {
  const category = await admin('/categories', { body: { slug: 'bread', name: 'Bread' } });
  expect(category.status).toBe(201);
  const post = await admin('/posts', { body: { locale: 'en', slug: 'baguette', title: 'Baguette', contentMarkdown: 'Crisp.' } });
  expect(post.status).toBe(201);
  expect((await admin(`/posts/${post.body.id}/publish`, { body: {} })).status).toBe(200);
  expect((await request(node.url, '/external/posts/baguette', { apiKey: ws.apiKey })).status).toBe(200);

  const { context, page, errors } = await openApp(editor, { hash: `#/posts/${post.body.id}` });
  await page.locator('#post-category option', { hasText: 'Bread' }).waitFor({ state: 'attached', timeout: 10_000 });
  await page.locator('#post-category').selectOption(category.body.id);
  await page.locator('#post-tags').fill('french, crusty, french');
  await press(page, '#classification button[type=submit]');
  await page.locator('#classification-status', { hasText: 'Category and tags saved.' }).waitFor({ timeout: 10_000 });
  expect((await admin(`/posts/${post.body.id}`)).body).toMatchObject({ categoryId: category.body.id, tags: ['french', 'crusty'] });

  // Too long a tag: the server's problem beside the tags field, the text as typed.
  await page.locator('#post-tags').fill(`ok, ${'x'.repeat(101)}`);
  await press(page, '#classification button[type=submit]');
  await page.locator('#post-tags-problem').waitFor({ timeout: 10_000 });
  await expect(page.locator('#post-tags').inputValue()).resolves.toBe(`ok, ${'x'.repeat(101)}`);

  await press(page, '#delete-post');
  await focusOn(page, 'delete-post-keep');
  expect(await axeViolations(page)).toEqual([]);
  await page.keyboard.press('Enter');
  await focusOn(page, 'delete-post');
  expect((await admin(`/posts/${post.body.id}`)).status).toBe(200);
  await page.keyboard.press('Enter');
  // The question takes the focus once it is drawn: pressed before that, Enter would land on "keep it".
  await focusOn(page, 'delete-post-keep');
  await press(page, '#delete-post-confirm');
  await page.locator('#posts-title').waitFor({ timeout: 10_000 });
  expect((await admin(`/posts/${post.body.id}`)).status).toBe(404);
  await eventually(async () => (await request(node.url, '/external/posts/baguette', { apiKey: ws.apiKey })).status === 404);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);

test('at 375 px in German the menus and categories stay usable: nothing overflows, no axe violations', async () => {
  const { context, page, errors } = await openApp(editor, { width: 375, locale: 'de-DE' });
  await page.locator('#navigation-header').waitFor({ timeout: 10_000 });
  await page.locator('#categories-title').waitFor();
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);
  await press(page, '#navigation-header');
  await page.locator('#nav-tree').waitFor();
  await page.locator('#nav-help', { hasText: 'Ordnen Sie' }).waitFor();
  const first = (await page.locator('#nav-tree > li').first().getAttribute('id'))!;
  await press(page, `#${first}-edit`);
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);

  // An unsaved move survives a reload (kept in this browser); the saved tree can be taken back.
  const topLevel = () => page.locator('#nav-tree > li').evaluateAll((items) => items.map((li) => li.id));
  const saved = await topLevel();
  await press(page, `#${first}-down`);
  await page.locator('#nav-state[data-state=unsaved]').waitFor();
  const moved = await topLevel();
  expect(moved).toEqual([saved[1], saved[0], ...saved.slice(2)]);
  await page.reload();
  await page.locator('#nav-state[data-state=restored]').waitFor({ timeout: 10_000 });
  await expect(topLevel()).resolves.toEqual(moved);
  await press(page, '#nav-discard');
  await page.locator('#nav-state[data-state=saved]').waitFor({ timeout: 10_000 });
  await expect(topLevel()).resolves.toEqual(saved);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);

test('an agent has no menus and categories section; the address says so and the server refuses writes', async () => {
  const agent = await memberWith(node.url, ws, 'agent', 'Ari Agent');
  const { context, page, errors } = await openApp(agent, { hash: '#/inbox' });
  await page.locator('#nav-inbox').waitFor();
  await eventually(async () => (await page.locator('#workspace option').count()) > 0);
  await expect(page.locator('#nav-structure').count()).resolves.toBe(0);
  await page.goto(`${node.url}/console#/structure`);
  await page.locator('text=Only editors and owners change menus and categories.').waitFor();
  await expect(page.locator('#new-category').count()).resolves.toBe(0);
  const refused = await request(node.url, `/admin/workspaces/${ws.id}/categories`, { token: agent.token, body: { slug: 'nope', name: 'Nope' } });
  expect(refused.status).toBe(403);
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);
