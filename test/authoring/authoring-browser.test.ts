import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, launchChromium, openConsole, overflowsSideways } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';
import { memberWith, PASSWORD, type TestUser } from '../team/support.js';

/**
 * The team app's authoring views in a real Chromium against a real node: an editor writes a post and its
 * translation, previews the draft through its preview link on the workspace's site, and publishes it; two
 * editors save one post and the second settles the conflict; a draft survives a reload and a dropped
 * connection; an agent gets no Posts section.
 */

declare const document: any;

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;
let editor: TestUser;
let site: { url: string; server: Server };

/**
 * The bakery's own site, as a real one works: a preview link `/<locale>/<slug>?preview=<token>` is answered by
 * reading the draft from Hearth with the workspace key, and the page shows its title and HTML.
 */
async function startSite(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.test');
    const [, locale, slug] = url.pathname.split('/');
    const token = url.searchParams.get('preview') ?? '';
    void request(node.url, `/external/posts/${slug}?locale=${locale}&include=content&preview=${encodeURIComponent(token)}`, { apiKey: ws.apiKey }).then((answer) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.statusCode = answer.status;
      res.end(answer.status === 200 ? `<!doctype html><title>${answer.body.title}</title><h1 id="site-title">${answer.body.title}</h1>${answer.body.contentHtml}` : 'Not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

beforeAll(async () => {
  await buildConsole();
  node = await startTestNode();
  ws = await createWorkspace(node.url, { name: 'Authoring Bakery', locales: ['en', 'de'] });
  site = await startSite();
  expect((await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { siteUrl: site.url } })).status).toBe(200);
  editor = await memberWith(node.url, ws, 'editor', 'Eda Editor');
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await new Promise((resolve) => site?.server.close(resolve));
});

/** `context`: a context already signed in (a second tab of the same person). */
const openApp = (user: { email: string }, options: { width?: number; locale?: string; hash?: string; context?: BrowserContext } = {}) =>
  openConsole(browser, node.url, ws.id, { ...options, hash: options.hash ?? '#/posts', user: options.context ? undefined : { email: user.email, password: PASSWORD } });

const admin = (path: string, options: { method?: string; body?: unknown } = {}) => request(node.url, `/admin/workspaces/${ws.id}${path}`, { token: ws.token, ...options });
const savedState = (page: Page) => page.locator('#save-state[data-state=saved]').waitFor({ timeout: 10_000 });
const idInHash = (page: Page) => /#\/posts\/([0-9a-f]{24})$/.exec(page.url())?.[1];

async function createPost(slug: string, title: string, markdown = 'Hello') {
  const res = await admin('/posts', { body: { locale: 'en', slug, title, contentMarkdown: markdown } });
  expect(res.status).toBe(201);
  return res.body as { id: string; version: number };
}

test('an editor writes a post and its translation (keyboard only), previews it through its link and publishes both; /external serves them', async () => {
  const { context, page, errors } = await openApp(editor);
  await page.locator('#posts-title').waitFor();
  expect(await axeViolations(page)).toEqual([]);

  // Keyboard only: from the "New post" link through the form.
  await page.locator('#new-post').focus();
  await page.keyboard.press('Enter');
  await page.locator('#post-title').waitFor();
  await page.locator('#post-title').focus();
  await page.keyboard.type('Our Easter menu');
  await expect(page.locator('#post-slug').inputValue()).resolves.toBe('our-easter-menu');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(page.evaluate(() => document.activeElement.id)).resolves.toBe('post-locale-new');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Hot cross buns and more');
  await page.keyboard.press('Tab');
  await page.keyboard.type('# Hot cross buns\n\n**Fresh** every morning <script>alert(1)</script>');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  const englishId = await eventually(() => idInHash(page), 10_000);

  // The editor (its own chunk) shows the server's rendering: markdown as HTML, the script gone.
  await page.locator('#preview h1', { hasText: 'Hot cross buns' }).waitFor({ timeout: 10_000 });
  await expect(page.locator('#preview strong').textContent()).resolves.toBe('Fresh');
  await expect(page.locator('#preview script').count()).resolves.toBe(0);
  expect(await axeViolations(page)).toEqual([]);

  // A German translation: a copy in the other locale, then edited; autosaved with If-Match.
  await page.locator('.add-translation[data-locale=de]').focus();
  await page.keyboard.press('Enter');
  const germanId = await eventually(() => idInHash(page) !== englishId && idInHash(page), 10_000);
  await page.locator('#translations a', { hasText: 'en: Our Easter menu' }).waitFor();
  await page.locator('#post-title').fill('Unser Ostermenü');
  await page.locator('#post-slug').fill('unser-ostermenue');
  await page.locator('#post-contentMarkdown').fill('# Heiße Kreuzbrötchen\n\nJeden Morgen frisch.');
  await page.locator('#preview h1', { hasText: 'Heiße Kreuzbrötchen' }).waitFor({ timeout: 10_000 });
  await savedState(page);
  const german = (await admin(`/posts/${germanId}`)).body;
  expect(german).toMatchObject({ locale: 'de', title: 'Unser Ostermenü', slug: 'unser-ostermenue', state: 'DRAFT' });

  // The preview link opens the draft on the bakery's site, which reads it from Hearth with the token.
  await page.locator('#make-preview-link').click();
  const link = (await page.locator('#preview-link').getAttribute('href'))!;
  expect(link.startsWith(`${site.url}/de/unser-ostermenue?preview=`)).toBe(true);
  const preview = await context.newPage();
  await preview.goto(link);
  await expect(preview.locator('#site-title').textContent()).resolves.toBe('Unser Ostermenü');
  await preview.close();
  expect((await request(node.url, '/external/posts/unser-ostermenue?locale=de', { apiKey: ws.apiKey })).status).toBe(404);

  // Publish the German one, then the English one from its link in the translations.
  await page.locator('#publish').click();
  await page.locator('#publication-status', { hasText: 'Published.' }).waitFor({ timeout: 10_000 });
  await page.locator('#translations a', { hasText: 'en: Our Easter menu' }).click();
  await eventually(() => idInHash(page) === englishId);
  await page.locator('#publication-state', { hasText: 'Draft' }).waitFor();
  await page.locator('#publish').click();
  await page.locator('#publication-status', { hasText: 'Published.' }).waitFor({ timeout: 10_000 });

  const served = await request(node.url, '/external/posts/our-easter-menu?include=content', { apiKey: ws.apiKey });
  expect(served.status).toBe(200);
  expect(served.body.title).toBe('Our Easter menu');
  expect(served.body.contentHtml).toContain('<h1>Hot cross buns</h1>');
  expect(served.body.translations.map((variant: { locale: string; slug: string }) => [variant.locale, variant.slug])).toEqual([
    ['en', 'our-easter-menu'],
    ['de', 'unser-ostermenue'],
  ]);
  expect((await request(node.url, '/external/posts/unser-ostermenue?locale=de', { apiKey: ws.apiKey })).body.title).toBe('Unser Ostermenü');

  // The list shows both, published, and finds them by state and search.
  await page.locator('#back-to-posts').click();
  await page.locator('#post-state').selectOption('PUBLISHED');
  await page.locator(`#post-${germanId}`, { hasText: 'Published' }).waitFor();
  await page.locator('#post-search').fill('oster');
  await eventually(async () => (await page.locator('#posts li').count()) === 1);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);

test('two editors save one post: the second sees both versions, keeps theirs, and nothing is lost silently', async () => {
  const post = await createPost('rye-bread', 'Rye bread', 'Baked on Fridays.');
  const second = await memberWith(node.url, ws, 'editor', 'Sam Second');
  const first = await openApp(editor, { hash: `#/posts/${post.id}` });
  const other = await openApp(second, { hash: `#/posts/${post.id}` });
  for (const { page } of [first, other]) await page.locator('#post-title').waitFor();

  // The first changes the excerpt and the title; saved.
  await first.page.locator('#post-metaDescription').fill('Dark and sour');
  await first.page.locator('#post-title').fill('Rye bread (Fridays)');
  await savedState(first.page);
  const saved = (await admin(`/posts/${post.id}`)).body.version as number;
  // The second, still on the old version, changes the title: 412, so both titles are shown side by side.
  await other.page.locator('#post-title').fill('Sourdough rye');
  await other.page.locator('#conflict').waitFor({ timeout: 10_000 });
  await expect(other.page.locator('#theirs-title').textContent()).resolves.toBe('Rye bread (Fridays)');
  await expect(other.page.locator('#mine-title').textContent()).resolves.toBe('Sourdough rye');
  // Only the title clashed: the first's excerpt is already taken in.
  await expect(other.page.locator('#post-metaDescription').inputValue()).resolves.toBe('Dark and sour');
  expect(await axeViolations(other.page)).toEqual([]);
  expect((await admin(`/posts/${post.id}`)).body.title).toBe('Rye bread (Fridays)');

  // Keeping their own saves it over the new version (If-Match the new ETag).
  await other.page.locator('#keep-mine').focus();
  await other.page.keyboard.press('Enter');
  await savedState(other.page);
  const stored = (await admin(`/posts/${post.id}`)).body;
  expect({ title: stored.title, metaDescription: stored.metaDescription, version: stored.version }).toEqual({ title: 'Sourdough rye', metaDescription: 'Dark and sour', version: saved + 1 });

  // The first editor typing again is the one behind now: they take the other's version instead.
  await first.page.locator('#post-title').fill('Rye bread, Fridays only');
  await first.page.locator('#conflict').waitFor({ timeout: 10_000 });
  await first.page.locator('#keep-theirs').click();
  await savedState(first.page);
  await expect(first.page.locator('#post-title').inputValue()).resolves.toBe('Sourdough rye');
  expect((await admin(`/posts/${post.id}`)).body).toMatchObject({ title: 'Sourdough rye', metaDescription: 'Dark and sour', version: saved + 1 });
  expect([...first.errors, ...other.errors]).toEqual([]);
  await first.context.close();
  await other.context.close();
}, 120_000);

test('a draft survives a reload before it was saved and a dropped connection (German, 375 px)', async () => {
  const post = await createPost('spelt', 'Spelt', 'Old text');
  const { context, page, errors } = await openApp(editor, { hash: `#/posts/${post.id}`, width: 375, locale: 'de-DE' });
  await page.locator('#post-contentMarkdown').waitFor();
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);

  // Typed, then reloaded at once (before the autosave): the text is back and then saved.
  await page.locator('#post-contentMarkdown').fill('Typed before the reload');
  await page.reload();
  await page.locator('#post-contentMarkdown').waitFor();
  await expect(page.locator('#post-contentMarkdown').inputValue()).resolves.toBe('Typed before the reload');
  await savedState(page);
  expect((await admin(`/posts/${post.id}`)).body.contentMarkdown).toBe('Typed before the reload');

  // Offline: the change is kept in the browser and said so; back online it is saved.
  await context.setOffline(true);
  await page.locator('#post-contentMarkdown').fill('Typed while offline');
  await page.locator('#save-state[data-state=offline]').waitFor({ timeout: 10_000 });
  await page.reload().catch(() => undefined);
  await context.setOffline(false);
  await page.reload();
  await page.locator('#post-contentMarkdown').waitFor();
  await expect(page.locator('#post-contentMarkdown').inputValue()).resolves.toBe('Typed while offline');
  await savedState(page);
  expect((await admin(`/posts/${post.id}`)).body.contentMarkdown).toBe('Typed while offline');

  await page.locator('#back-to-posts').click();
  await page.locator('#posts li').first().waitFor();
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);
  expect(errors.filter((message) => !/fetch/i.test(message))).toEqual([]);
  await context.close();
}, 120_000);

test('an agent has no Posts section; the address says so and the server refuses writes', async () => {
  const agent = await memberWith(node.url, ws, 'agent', 'Ari Agent');
  const { context, page, errors } = await openApp(agent, { hash: '#/inbox' });
  await page.locator('#nav-inbox').waitFor();
  await eventually(async () => (await page.locator('#workspace option').count()) > 0);
  await expect(page.locator('#nav-posts').count()).resolves.toBe(0);
  await page.goto(`${node.url}/console#/posts`);
  await page.locator('text=Only editors and owners write posts.').waitFor();
  const refused = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: agent.token, body: { locale: 'en', slug: 'nope', title: 'Nope' } });
  expect(refused.status).toBe(403);
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);
