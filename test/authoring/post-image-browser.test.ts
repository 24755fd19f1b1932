import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { axeViolations, launchChromium, openConsole } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';
import { memberWith, PASSWORD, type TestUser } from '../team/support.js';
import { png, upload } from '../media/media-files.js';

/**
 * The post editor's image picker in a real Chromium: an editor, by keyboard only, searches the media library,
 * picks an image (saved as the draft's `imageMediaId`), uploads another one and uses it, then removes it.
 */

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;
let editor: TestUser;
let dataDir: string;

beforeAll(async () => {
  await buildConsole();
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-picker-'));
  node = await startTestNode({ env: { DATA_DIR: dataDir } });
  ws = await createWorkspace(node.url, { name: 'Picker Bakery', locales: ['en'], defaultLocale: 'en' });
  editor = await memberWith(node.url, ws, 'editor', 'Eda Editor');
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const admin = (path: string, options: { method?: string; body?: unknown } = {}) => request(node.url, `/admin/workspaces/${ws.id}${path}`, { token: ws.token, ...options });

test('choose, upload and remove the post image by keyboard', async () => {
  const rye = await upload(node.url, ws.id, ws.token, await png(400, 300), 'rye-loaf.png');
  await upload(node.url, ws.id, ws.token, await png(400, 300), 'croissant.png');
  const post = (await admin('/posts', { body: { locale: 'en', slug: 'pictured', title: 'Pictured' } })).body;

  const { context, page, errors } = await openConsole(browser, node.url, ws.id, { hash: `#/posts/${post.id}`, user: { email: editor.email, password: PASSWORD } });
  await page.locator('#post-image-choose').waitFor({ timeout: 10_000 });
  await expect(page.locator('#post-image-none').textContent()).resolves.toContain('No image');

  // Open the picker: focus moves to the search field; search by name, by Enter.
  await page.locator('#post-image-choose').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#post-image-choose').getAttribute('aria-expanded')).resolves.toBe('true');
  await eventually(() => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id === 'post-image-search'));
  await page.keyboard.type('rye');
  await page.keyboard.press('Enter');
  await page.locator('#post-image-status', { hasText: '1 image found.' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);

  // The result is a button named by the file: Tab to it, Enter picks it.
  const choice = page.getByRole('button', { name: 'Use rye-loaf.png' });
  await choice.focus();
  await page.keyboard.press('Enter');
  await page.locator('#post-image-status', { hasText: 'rye-loaf.png is the post image.' }).waitFor();
  await eventually(async () => (await admin(`/posts/${post.id}`)).body.imageMediaId === rye.body.id);
  await page.locator('#post-image-current figcaption', { hasText: 'rye-loaf.png' }).waitFor();
  // Focus comes back to the button that opened the picker.
  await eventually(() => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id === 'post-image-choose'));

  // Insert another library image into the text: written as media:<id>, previewed as the file, saved with the text.
  await page.keyboard.press('Enter');
  await page.locator('#post-image-search').fill('');
  await page.keyboard.press('Enter');
  await page.locator('#post-image-status', { hasText: '2 images found.' }).waitFor();
  await page.getByRole('button', { name: 'Insert croissant.png into the text' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#post-contentMarkdown').inputValue()).resolves.toMatch(/^!\[\]\(media:[0-9a-f]{24}\)\n$/);
  await page.locator('#preview img[src*="/media/"][src*="croissant.png"]').waitFor({ timeout: 10_000 });
  await eventually(async () => (await admin(`/posts/${post.id}`)).body.bodyMediaIds.length === 1, 10_000);

  // Upload a new one through the labelled file field: it becomes the image.
  await page.locator('#post-image-search').focus();
  await page.getByLabel('Alt text of the new image (en)').fill('A long baguette');
  await page.getByLabel('Or upload a new image').setInputFiles({ name: 'baguette.png', mimeType: 'image/png', buffer: await png(320, 200) });
  await page.locator('#post-image-status', { hasText: 'baguette.png is the post image.' }).waitFor();
  const uploaded = await eventually(async () => {
    const current = (await admin(`/posts/${post.id}`)).body.imageMediaId;
    return current && current !== rye.body.id ? current : undefined;
  });
  expect((await admin(`/media/${uploaded}`)).body).toMatchObject({ name: 'baguette.png', alt: { en: 'A long baguette' } });
  await page.locator('#post-image-current img[alt="A long baguette"]').waitFor();

  // Remove it.
  await page.locator('#post-image-remove').focus();
  await page.keyboard.press('Enter');
  await page.locator('#post-image-status', { hasText: 'Image removed.' }).waitFor();
  await eventually(async () => (await admin(`/posts/${post.id}`)).body.imageMediaId === null);
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);
