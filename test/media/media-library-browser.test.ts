import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium, openConsole, overflowsSideways } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';
import { memberWith, PASSWORD, type TestUser } from '../team/support.js';
import { png, svgWithScript, upload } from './media-files.js';

/**
 * The team app's media library in a real Chromium against a real node: an editor, by keyboard, uploads an
 * image, sets its alt text in two languages and its focal point (a refused coordinate shows its problem beside
 * it), searches by name, is refused the delete while a published post shows the file (the post is named) and
 * deletes it once the post is unpublished; an agent has no Media section; at 375 px in German it is axe clean
 * and needs no sideways scrolling.
 */

declare const document: { activeElement: { id: string } | null };
declare const DataTransfer: new () => { items: { add(file: File): void } };

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;
let editor: TestUser;
let dataDir: string;
let built: { gzipped: number; lazy: string[] };

beforeAll(async () => {
  built = await buildConsole();
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-library-'));
  node = await startTestNode({ env: { DATA_DIR: dataDir } });
  ws = await createWorkspace(node.url, { name: 'Library Bakery', locales: ['en', 'de'], defaultLocale: 'en' });
  editor = await memberWith(node.url, ws, 'editor', 'Eda Editor');
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const admin = (path: string, options: { method?: string; body?: unknown } = {}) => request(node.url, `/admin/workspaces/${ws.id}${path}`, { token: ws.token, ...options });
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

const openApp = (user: { email: string }, options: { width?: number; locale?: string; hash?: string } = {}) =>
  openConsole(browser, node.url, ws.id, { ...options, hash: options.hash ?? '#/media', user: { email: user.email, password: PASSWORD } });

test('an editor uploads an image, sets its alt texts and focal point by keyboard, searches, and deletes it once no published post shows it', async () => {
  await upload(node.url, ws.id, ws.token, await png(300, 200), 'croissant.png');
  const { context, page, errors, requested } = await openApp(editor);
  await page.locator('#media-upload').waitFor({ timeout: 10_000 });
  expect(requested.filter((url) => url.includes('/media-view'))).toHaveLength(1);
  await page.locator('#media-items a', { hasText: 'croissant.png' }).waitFor();

  // A file the server refuses: its words beside the upload field, nothing listed.
  await page.locator('#media-upload').setInputFiles({ name: 'evil.svg', mimeType: 'image/svg+xml', buffer: svgWithScript });
  await page.locator('#media-upload-problem', { hasText: 'not a JPEG, PNG' }).waitFor();
  await expect(page.locator('#media-upload').getAttribute('aria-invalid')).resolves.toBe('true');

  // A file dropped on the upload area is uploaded too.
  const dropped = Array.from(await png(120, 90));
  const transfer = await page.evaluateHandle((bytes) => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
    return data;
  }, dropped);
  await page.dispatchEvent('.media-upload', 'drop', { dataTransfer: transfer });
  await page.locator('#media-status', { hasText: 'dropped.png uploaded.' }).waitFor();
  await page.locator('#media-items a', { hasText: 'dropped.png' }).waitFor();

  // Upload: listed first, with its facts; the editor opens with the focus on its heading.
  await page.locator('#media-upload').setInputFiles({ name: 'sourdough.png', mimeType: 'image/png', buffer: await png(800, 600) });
  await page.locator('#media-status', { hasText: 'sourdough.png uploaded.' }).waitFor();
  await expect(page.locator('#media-upload-problem').count()).resolves.toBe(0);
  const id = await eventually(async () => ((await admin('/media?q=sourdough')).body.items as { id: string }[])[0]?.id);
  const entry = page.locator(`#media-${id}`);
  await expect(entry.textContent()).resolves.toContain('sourdough.png');
  await expect(entry.textContent()).resolves.toContain('PNG');
  await expect(entry.textContent()).resolves.toContain('800 × 600 px');
  await expect(entry.locator('img').getAttribute('src')).resolves.toMatch(/[?&]w=160(&|$)/);
  await expect(page.locator('#media-items a').first().getAttribute('id')).resolves.toBe(`media-${id}`);
  await page.locator('#media-editor-title', { hasText: 'sourdough.png' }).waitFor();
  await eventually(async () => (await focused(page)) === 'media-editor-title');

  // Alt texts in both locales and a focal point, by keyboard: Tab from field to field, Enter saves.
  await page.locator('#media-alt-en').focus();
  await page.keyboard.type('A sourdough loaf');
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('media-alt-de');
  await page.keyboard.type('Ein Sauerteigbrot');
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('media-focal-x');
  await page.keyboard.type('1.5');
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('media-focal-y');
  await page.keyboard.type('0.7');
  await page.keyboard.press('Enter');
  // The server refuses x = 1.5: its problem beside the field, which takes the focus; nothing was saved.
  await page.locator('#media-focal-x-problem').waitFor();
  await eventually(async () => (await focused(page)) === 'media-focal-x');
  expect((await admin(`/media/${id}`)).body.alt).toEqual({});
  // Arrow keys step the number: 1.5 is typed over, then one step down from 0.26.
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0.26');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.locator('#media-saved', { hasText: 'Saved.' }).waitFor();
  await expect(page.locator('#media-focal-x-problem').count()).resolves.toBe(0);
  const saved = (await admin(`/media/${id}`)).body;
  expect(saved).toMatchObject({ alt: { en: 'A sourdough loaf', de: 'Ein Sauerteigbrot' }, focalPoint: { x: 0.25, y: 0.7 } });
  expect(await axeViolations(page)).toEqual([]);

  // Search by name.
  await page.locator('#media-search').focus();
  await page.keyboard.type('CROISS');
  await page.keyboard.press('Enter');
  await page.locator('#media-status', { hasText: '1 file found.' }).waitFor();
  await expect(page.locator('#media-items a').allTextContents()).resolves.toEqual([expect.stringContaining('croissant.png')]);
  await page.locator('#media-search').fill('');
  await page.keyboard.press('Enter');
  await page.locator('#media-status', { hasText: '3 files found.' }).waitFor();

  // A published post shows it: the delete is refused, the post is named, the file stays.
  const post = (await admin('/posts', { body: { locale: 'en', slug: 'our-loaf', title: 'Our loaf', imageMediaId: id } })).body;
  expect((await admin(`/posts/${post.id}/publish`, { method: 'POST', body: {} })).status).toBe(200);
  await page.locator('#media-delete').focus();
  await page.keyboard.press('Enter');
  await eventually(async () => (await focused(page)) === 'media-delete-keep');
  await page.keyboard.press('Shift+Tab');
  expect(await focused(page)).toBe('media-delete-confirm');
  await page.keyboard.press('Enter');
  await page.locator('#media-delete-problem', { hasText: 'Not deleted' }).waitFor();
  const use = page.locator(`#media-uses a[data-post-id="${post.id}"]`);
  await expect(use.textContent()).resolves.toContain('Our loaf');
  await expect(use.getAttribute('href')).resolves.toBe(`#/posts/${post.id}`);
  expect((await admin(`/media/${id}`)).status).toBe(200);
  await expect(page.locator(`#media-${id}`).count()).resolves.toBe(1);
  expect(await axeViolations(page)).toEqual([]);

  // Unpublished: the same confirmation deletes it; the focus returns to the library's heading.
  expect((await admin(`/posts/${post.id}/unpublish`, { method: 'POST', body: {} })).status).toBe(200);
  await page.locator('#media-delete-confirm').focus();
  await page.keyboard.press('Enter');
  await page.locator('#media-status', { hasText: 'sourdough.png deleted.' }).waitFor();
  expect((await admin(`/media/${id}`)).status).toBe(404);
  await expect(page.locator(`#media-${id}`).count()).resolves.toBe(0);
  await eventually(async () => (await focused(page)) === 'media-title');
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);

test('the media library is its own chunk, loaded on demand; the whole app stays under 150 KB gzipped', () => {
  expect(built.lazy.some((file) => file.startsWith('media-view'))).toBe(true);
  expect(built.gzipped).toBeLessThan(150 * 1024);
});

test('an agent has no Media section: no entry in the navigation, no library at its address, and its chunk is not loaded', async () => {
  const agent = await memberWith(node.url, ws, 'agent', 'Ada Agent');
  const { context, page, errors, requested } = await openApp(agent);
  await page.locator('#nav-inbox').waitFor({ timeout: 10_000 });
  await page.locator('text=Only editors and owners manage the media library.').waitFor();
  await expect(page.locator('#nav-media').count()).resolves.toBe(0);
  await expect(page.locator('#media-upload').count()).resolves.toBe(0);
  expect(requested.filter((url) => url.includes('/media-view'))).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);

test('at 375 px in German: the list and an open file fit without sideways scrolling and are axe clean', async () => {
  const long = await upload(node.url, ws.id, ws.token, await png(1600, 400), `a-very-long-file-name-without-any-spaces-${'x'.repeat(60)}.png`);
  const { context, page, errors } = await openApp(editor, { width: 375, locale: 'de-DE' });
  await page.locator('#nav-media', { hasText: 'Medien' }).waitFor({ timeout: 10_000 });
  await page.locator(`#media-${long.body.id}`).waitFor({ timeout: 10_000 });
  await page.locator('#media-count').waitFor();
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);

  // Opening a file shows it instead of the list; "back" returns to the list and to its entry.
  await page.locator(`#media-${long.body.id}`).focus();
  await page.keyboard.press('Enter');
  await page.locator('#media-alt-de').waitFor();
  await expect(page.locator('#media-items').isVisible()).resolves.toBe(false);
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);
  // A click on the preview sets the focal point's fields (the mouse's way; the fields are the keyboard's).
  const preview = page.locator('.focal-preview img');
  await preview.waitFor();
  const box = (await preview.boundingBox())!;
  await preview.click({ position: { x: box.width * 0.25, y: box.height * 0.75 } });
  expect(Number(await page.locator('#media-focal-x').inputValue())).toBeCloseTo(0.25, 1);
  expect(Number(await page.locator('#media-focal-y').inputValue())).toBeCloseTo(0.75, 1);
  await page.locator('.focal-marker').waitFor();
  await page.locator('.media-editor .back').focus();
  await page.keyboard.press('Enter');
  await eventually(async () => (await focused(page)) === `media-${long.body.id}`);
  expect(await overflowsSideways(page)).toBe(false);

  // A refused delete names the post that shows the file, and how, in German (the server's refusal is English);
  // the question naming a long file name wraps.
  const post = (
    await admin('/posts', { body: { locale: 'de', slug: 'unser-brot', title: 'Unser Brot', imageMediaId: long.body.id, contentMarkdown: `![Brot](media:${long.body.id})` } })
  ).body;
  expect((await admin(`/posts/${post.id}/publish`, { method: 'POST', body: {} })).status).toBe(200);
  await page.locator(`#media-${long.body.id}`).focus();
  await page.keyboard.press('Enter');
  await page.locator('#media-delete').waitFor();
  await page.locator('#media-delete').focus();
  await page.keyboard.press('Enter');
  await eventually(async () => (await focused(page)) === 'media-delete-keep');
  await page.locator('#media-delete-confirm').focus();
  await page.keyboard.press('Enter');
  await page.locator('#media-delete-problem', { hasText: 'Nicht gelöscht' }).waitFor();
  await expect(page.locator(`#media-uses a[data-post-id="${post.id}"]`).textContent()).resolves.toBe('Bild und Text des veröffentlichten Beitrags „Unser Brot“ (de)');
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);
