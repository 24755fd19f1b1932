import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { OPERATOR, createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { putChatSettings } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildWidget, WIDGET_OUTFILE } from '../../scripts/build-widget.mjs';

/**
 * decisions.md: bodies and visitor names are text, kept as sent, and every client shows them as text.
 * In a real Chromium: the widget (on the node's /demo page) and the agent console (/console) show
 * markup literally and never turn it into elements.
 */

// Browser globals used inside `page.evaluate` callbacks; the main tsconfig has no DOM lib (module-scoped).
 
declare const window: any;

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;
let publishableKey: string;

/** A bundle older than any widget source would test yesterday's widget. */
function bundleIsStale(): boolean {
  if (!existsSync(WIDGET_OUTFILE)) return true;
  const built = statSync(WIDGET_OUTFILE).mtimeMs;
  const sources = join(process.cwd(), 'widget', 'src');
  return readdirSync(sources).some((file) => statSync(join(sources, file)).mtimeMs > built);
}

beforeAll(async () => {
  if (bundleIsStale()) await buildWidget();
  node = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  // Slug `demo`: the node's /demo page embeds this workspace's widget.
  ws = await createWorkspace(node.url, { slug: 'demo', name: 'Verbatim Bakery' });
  publishableKey = await putChatSettings(node.url, ws, { enabled: true, greeting: 'Hello', offlineMessage: null, forceOnline: true });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

async function withPage<T>(fn: (page: Page, context: BrowserContext) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    const result = await fn(page, context);
    expect(errors).toEqual([]);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    return result;
  } finally {
    await context.close();
  }
}

/** The newest conversation of the workspace whose last message is `text`. */
async function conversationWith(text: string): Promise<string> {
  return eventually(async () => {
    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=OPEN`, { token: ws.token });
    return (list.body.items as { id: string; lastMessage: { body: string } | null }[]).find((c) => c.lastMessage?.body === text)?.id;
  });
}

const storedBodies = async (cid: string) =>
  ((await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token })).body.messages as { body: string }[]).map((m) => m.body);

test('the widget shows `<b>hi</b>` literally: sent and received bodies stay text, no element is made of them', async () => {
  await withPage(async (page) => {
    await page.goto(`${node.url}/demo`);
    const launcher = page.locator('[data-hearth-widget] >> .launcher');
    await launcher.waitFor({ state: 'visible' });
    await launcher.click();
    const input = page.locator('[data-hearth-widget] >> textarea');
    await input.waitFor({ state: 'visible' });
    const items = page.locator('[data-hearth-widget] >> [role="log"] li');

    const mine = ['<b>hi</b>', '  a<b and c>d  '];
    for (const [i, text] of mine.entries()) {
      await input.fill(text);
      await page.keyboard.press('Enter');
      await eventually(async () => (await items.count()) === i + 1, 10_000);
    }
    const cid = await conversationWith(mine[1]);
    const theirs = '<i>agent</i> &amp; <img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script> 🍞';
    const replied = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body: theirs } });
    expect(replied.status).toBe(201);
    await eventually(async () => (await items.count()) === 3, 10_000);

    // The last child of each item is the body's text node (the first is the visually hidden sender label).
    const shown = await items.evaluateAll((els) => els.map((el) => ({ text: el.lastChild?.textContent, node: el.lastChild?.nodeType, tags: el.querySelectorAll('b, i, img, script').length })));
    expect(shown).toEqual([...mine, theirs].map((text) => ({ text, node: 3, tags: 0 })));
    expect(await storedBodies(cid)).toEqual([...mine, theirs]);
  });
}, 60_000);

test('the agent console shows visitor names and bodies literally, and sends the reply as typed', async () => {
  const name = '<b>Ann</b> & "Co"';
  const start = await request(node.url, '/external/live-chat/conversations', { publishableKey, body: { visitorSessionId: 'console-sess' } });
  const { conversationToken: token, conversationId: cid } = start.body;
  const first = await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: '<b>hi</b>', visitorName: name } });
  expect(first.status).toBe(201);

  await withPage(async (page) => {
    await page.goto(`${node.url}/console#/chats`);
    await page.locator('#email').fill(OPERATOR.email);
    await page.locator('#password').fill(OPERATOR.password);
    await page.locator('#login button[type="submit"]').click();
    const entry = page.locator('#conversations button', { hasText: '<b>Ann</b>' });
    await entry.waitFor({ state: 'visible', timeout: 10_000 });
    await expect(entry.textContent()).resolves.toBe(`${name} (1) · <b>hi</b>`);
    await entry.click();

    await expect(page.locator('#title').textContent()).resolves.toBe(name);
    const messages = page.locator('#messages > li');
    await eventually(async () => (await messages.count()) === 1);

    const reply = '  <u>agent</u> a<b and c>d &lt;';
    await page.locator('#body').fill(reply);
    await page.keyboard.press('Enter');
    await eventually(async () => (await messages.count()) === 2);
    await expect(messages.evaluateAll((els) => els.map((el) => el.textContent))).resolves.toEqual(['<b>hi</b>', reply]);
    // Nothing the visitor or the agent wrote became an element anywhere on the page.
    await expect(page.locator('main b, main u, main i').count()).resolves.toBe(0);
  });
  expect(await storedBodies(cid)).toEqual(['<b>hi</b>', '  <u>agent</u> a<b and c>d &lt;']);
}, 60_000);
