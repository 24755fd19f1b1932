import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, startCustomerSite, widgetPart as part, type CustomerSite } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { identityFor, putChatSettings } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildWidget } from '../../scripts/build-widget.mjs';

/**
 * What a site hands the widget reaches the server in a form the contract accepts: a page language the
 * server's BCP47 rule would refuse (`en_US`, cut mid-tag, garbage) never stops a visitor from chatting,
 * and the attributes given to `Hearth.identify` arrive with the conversation.
 */

// Browser globals used inside `evaluate` callbacks; the main tsconfig has no DOM lib.
 
declare const window: any;

let node: HearthNode;
let site: CustomerSite | undefined;
let browser: Browser;
let ws: WorkspaceFixture;
let publishableKey: string;

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** `?lang=` is put in `<html lang>` exactly as given (absent: no attribute), as a careless CMS would. */
function hostPage(url: URL): string {
  const lang = url.searchParams.get('lang');
  return `<!doctype html><html${lang === null ? '' : ` lang="${escapeAttribute(lang)}"`}><head><meta charset="utf-8"><title>Site</title></head>
<body><h1>Site</h1><script src="${node.url}/widget/widget.js" data-publishable-key="${publishableKey}" data-poll-min-ms="150" data-poll-max-ms="600" async></script></body></html>`;
}

beforeAll(async () => {
  await buildWidget();
  node = await startTestNode();
  ws = await createWorkspace(node.url, { slug: 'visitor-facts', name: 'Visitor Facts' });
  publishableKey = await putChatSettings(node.url, ws, {
    enabled: true,
    greeting: 'Hello',
    greetings: { de: 'Hallo', 'de-CH': 'Grüezi' },
    offlineMessage: null,
    forceOnline: true,
  });
  site = await startCustomerSite(hostPage);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await node?.stop();
});

async function withPage<T>(fn: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ locale: 'en-US' });
  try {
    return await fn(await context.newPage());
  } finally {
    await context.close();
  }
}

/** Opens the panel, sends `text` and waits until the visitor sees it in the thread. */
async function chat(page: Page, text: string): Promise<void> {
  await part(page, '.launcher').click();
  await part(page, 'textarea').fill(text);
  await part(page, 'textarea').press('Enter');
  await eventually(async () => (await part(page, '[role="log"] li').allTextContents()).some((li) => li.includes(text)), 10_000).catch(async (error) => {
    throw new Error(`the visitor's message never showed (notice: "${await part(page, '.notice').textContent()}"): ${error.message}`);
  });
}

/** The conversation (admin view) whose last message is `text`. */
async function conversationWith(text: string): Promise<{ locale: string | null; visitor: Record<string, unknown> }> {
  const id = await eventually(async () => {
    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=OPEN`, { token: ws.token });
    return (list.body.items as { id: string; lastMessage: { body: string } | null }[]).find((c) => c.lastMessage?.body === text)?.id;
  }, 10_000);
  const conversation = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${id}`, { token: ws.token });
  expect(conversation.status).toBe(200);
  return conversation.body;
}

// The long tag is valid in full but over 35 characters; cut at 35 it ends in `-`.
const LONG = 'en-US-abcdefgh-abcdefgh-abcdefgh-a-b';

test.each([
  ['en_US', 'en-US'],
  [' de_CH ', 'de-CH'],
  [LONG, LONG.slice(0, 34)],
  ['en-', 'en'],
  ['x', null],
  ['', 'en-US'],
])('a page with <html lang="%s"> starts a conversation; the server gets locale %p', async (lang, expected) => {
  await withPage(async (page) => {
    await page.goto(`${site!.url}?lang=${encodeURIComponent(lang)}`);
    const text = `hello from lang "${lang}" ${Date.now()}`;
    await chat(page, text);
    await expect(part(page, '.notice').textContent()).resolves.toBe('');
    await expect(conversationWith(text)).resolves.toMatchObject({ locale: expected });
  });
}, 30_000);

test('a page with <html lang="de_CH"> gets the greeting the workspace wrote for de-CH', async () => {
  await withPage(async (page) => {
    await page.goto(`${site!.url}?lang=de_CH`);
    await part(page, '.launcher').click();
    await expect(part(page, '.intro').textContent()).resolves.toBe('Grüezi');
  });
}, 30_000);

test('attributes given to Hearth.identify reach the conversation', async () => {
  const externalId = `member-${Date.now()}`;
  const attributes = { plan: 'gold', ['k'.repeat(40)]: 'v'.repeat(100) };
  await withPage(async (page) => {
    await page.goto(`${site!.url}?lang=en`);
    await page.waitForFunction(() => Boolean(window.Hearth?.version));
    await page.evaluate((visitor) => window.Hearth.identify(visitor), identityFor(ws.apiKey, externalId, { name: 'Ada', attributes }));
    const text = `hello with attributes ${Date.now()}`;
    await chat(page, text);
    const conversation = await conversationWith(text);
    expect(conversation.visitor).toMatchObject({ verified: true, externalId, name: 'Ada', attributes });
  });
}, 30_000);

test('attributes queued by a stub before the script loaded reach the conversation too', async () => {
  const externalId = `queued-${Date.now()}`;
  const attributes = { company: 'Acme', seats: '12' };
  await withPage(async (page) => {
    await page.addInitScript((visitor) => {
      window.Hearth = { q: [['identify', visitor]] };
    }, identityFor(ws.apiKey, externalId, { attributes }));
    await page.goto(`${site!.url}?lang=en`);
    const text = `queued attributes ${Date.now()}`;
    await chat(page, text);
    const conversation = await conversationWith(text);
    expect(conversation.visitor).toMatchObject({ verified: true, externalId, attributes });
  });
}, 30_000);
