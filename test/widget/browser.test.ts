import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, startCustomerSite, type CustomerSite } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { putChatSettings } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { NAMESPACES, rooms, type MessageCreated } from '../../src/realtime/events.js';
import { buildWidget, WIDGET_OUTFILE } from '../../scripts/build-widget.mjs';

/**
 * The widget in a real Chromium against a real node: the page that embeds it is served from another
 * origin (like a customer's site) with hostile global styles, and the agent answers through the admin API.
 */

// Browser globals used inside `page.evaluate` callbacks; the main tsconfig has no DOM lib (module-scoped).
 
declare const document: any;
declare const window: any;
declare const localStorage: any;
declare function getComputedStyle(element: unknown): any;

const ARTIFACTS = join(process.cwd(), 'test', 'artifacts');
const GREETING = 'Welcome to the test bakery!';
const GERMAN_GREETING = 'Willkommen in der Testbäckerei!';

let node: HearthNode;
let site: CustomerSite | undefined;
let siteUrl: string;
let browser: Browser;
let ws: WorkspaceFixture;
let publishableKey: string;

/** The customer's page; `?pk=` picks another workspace, `?queue=` (JSON) pre-queues JS API calls as a stub would. */
function hostPage(url: URL): string {
  const key = url.searchParams.get('pk') ?? publishableKey;
  const queue = url.searchParams.get('queue');
  const stub = queue ? `<script>window.Hearth = { q: ${JSON.stringify(JSON.parse(queue)).replace(/</g, '\\u003c')} };</script>` : '';
  // Timings are shortened through data attributes so the fallback paths run in a second, not minutes.
  // `?lang=` sets the page's language (empty: none, so the widget follows the browser's).
  const lang = (url.searchParams.get('lang') ?? 'en').replace(/[^A-Za-z-]/g, '');
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Customer site</title>
<style>* { color: rgb(255, 0, 0) !important; font-family: serif !important; } button { display: none !important; }</style></head>
<body><h1>Customer site</h1>${stub}
<script src="${node.url}/widget/widget.js" data-publishable-key="${key}" data-poll-min-ms="150" data-poll-max-ms="600"
  data-socket-grace-ms="400" data-reconnect-max-ms="500" async></script></body></html>`;
}

beforeAll(async () => {
  if (!existsSync(WIDGET_OUTFILE)) await buildWidget();
  mkdirSync(ARTIFACTS, { recursive: true });
  node = await startTestNode();
  // Slug `demo`: the node's /demo page embeds this workspace's widget.
  ws = await createWorkspace(node.url, { slug: 'demo', name: 'Demo Bakery' });
  publishableKey = await putChatSettings(node.url, ws, { enabled: true, greeting: GREETING, greetings: { de: GERMAN_GREETING }, offlineMessage: null, forceOnline: true, theme: { '--hearth-accent': 'rgb(10, 120, 60)' } });
  site = await startCustomerSite(hostPage);
  siteUrl = site.url;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await node?.stop();
});

const launcher = (page: Page) => page.locator('[data-hearth-widget] >> .launcher');
const items = (page: Page) => page.locator('[data-hearth-widget] >> [role="log"] li');
const transport = (page: Page) => page.locator('[data-hearth-widget]').getAttribute('data-transport');

async function openWidget(page: Page): Promise<void> {
  await launcher(page).waitFor({ state: 'visible' });
  await launcher(page).focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-hearth-widget] >> textarea').waitFor({ state: 'visible' });
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('[data-hearth-widget] >> textarea').fill(text);
  await page.keyboard.press('Enter');
}

/** The newest conversation of the workspace whose last message is `text` (each test uses unique texts). */
async function conversationWith(text: string): Promise<string> {
  return eventually(async () => {
    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=OPEN`, { token: ws.token });
    return (list.body.items as { id: string; lastMessage: { body: string } | null }[]).find((c) => c.lastMessage?.body === text)?.id;
  });
}

async function reply(conversationId: string, body: string) {
  const res = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${conversationId}/messages`, { token: ws.token, body: { body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; body: string };
}

async function withContext<T>(fn: (context: BrowserContext, page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ locale: 'en-US' });
  try {
    return await fn(context, await context.newPage());
  } finally {
    await context.close();
  }
}

test('the demo page served by the node embeds a working widget', async () => {
  await withContext(async (_context, page) => {
    await page.goto(`${node.url}/demo`);
    await openWidget(page);
    await expect(page.locator('[data-hearth-widget] >> .intro').textContent()).resolves.toBe(GREETING);
  });
}, 30_000);

test('one script tag: isolated UI, keyboard, live reply, text-only rendering, resume after reload', async () => {
  await withContext(async (_context, page) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(siteUrl);
    await launcher(page).waitFor({ state: 'visible' });

    // Only `Hearth` joins the page's globals; the hostile page styles do not reach into the shadow root.
    const globals = await page.evaluate(() => {
      const frame = document.createElement('iframe');
      document.body.append(frame);
      const clean = new Set(Object.getOwnPropertyNames(frame.contentWindow));
      frame.remove();
      return Object.getOwnPropertyNames(window).filter((name) => !clean.has(name));
    });
    expect(globals).toEqual(['Hearth']);
    const launcherStyle = await launcher(page).evaluate((el) => ({ display: getComputedStyle(el).display, background: getComputedStyle(el).backgroundColor }));
    expect(launcherStyle.display).not.toBe('none');
    expect(launcherStyle.background).toBe('rgb(10, 120, 60)'); // theme from the config
    await expect(launcher(page).getAttribute('aria-expanded')).resolves.toBe('false');

    // Keyboard: Enter on the launcher opens the panel and puts the focus in the message box.
    await openWidget(page);
    await expect(launcher(page).getAttribute('aria-expanded')).resolves.toBe('true');
    const focused = await page.evaluate(() => document.querySelector('[data-hearth-widget]')!.shadowRoot!.activeElement?.id);
    expect(focused).toBe('hearth-input');
    await expect(page.locator('[data-hearth-widget] >> .intro').textContent()).resolves.toBe(GREETING);
    await expect(page.locator('[data-hearth-widget] >> [role="log"]').getAttribute('aria-live')).resolves.toBe('polite');
    await expect(page.locator('[data-hearth-widget] >> label[for="hearth-input"]').textContent()).resolves.toBe('Your message');

    const hello = `hello from the browser ${Date.now()}`;
    await send(page, hello);
    await eventually(async () => (await items(page).count()) === 1);
    await expect(items(page).first().getAttribute('data-sender')).resolves.toBe('VISITOR');
    const cid = await conversationWith(hello);
    await eventually(async () => (await transport(page)) === 'live');

    // An agent reply arrives by push, without reload.
    const answer = await reply(cid, 'Fresh rolls are ready at 7. I <3 bread & 2 < 3 > 1');
    await eventually(async () => (await items(page).count()) === 2);
    const last = items(page).nth(1);
    await expect(last.getAttribute('data-sender')).resolves.toBe('AGENT');
    await expect(last.evaluate((el) => el.lastChild?.textContent)).resolves.toBe(answer.body);

    // Markup that reaches the widget (here pushed straight through the real socket) stays text.
    const hostile: MessageCreated = {
      conversationId: cid,
      message: { id: 'raw-push-1', sender: 'AGENT', body: '<b>bold</b><img src=x onerror="window.__pwned=1">', createdAt: new Date().toISOString() },
    };
    node.deps.realtime.io.of(NAMESPACES.widget).to(rooms.conversation(cid)).emit('message.created', hostile);
    await eventually(async () => (await items(page).count()) === 3);
    const raw = items(page).nth(2);
    await expect(raw.evaluate((el) => el.lastChild?.textContent)).resolves.toBe(hostile.message.body);
    await expect(raw.evaluate((el) => el.querySelectorAll('b, img').length)).resolves.toBe(0);
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();

    await page.screenshot({ path: join(ARTIFACTS, 'widget-open.png') });

    // Escape closes the panel and gives the focus back to the launcher.
    await page.keyboard.press('Escape');
    await expect(launcher(page).getAttribute('aria-expanded')).resolves.toBe('false');
    const back = await page.evaluate(() => document.querySelector('[data-hearth-widget]')!.shadowRoot!.activeElement?.className);
    expect(back).toBe('launcher');

    // Reload: the stored token resumes the same conversation with its stored history, nothing twice.
    await page.reload();
    await openWidget(page);
    await eventually(async () => (await items(page).count()) === 2);
    const bodies = await items(page).evaluateAll((els) => els.map((el) => el.lastChild?.textContent));
    expect(bodies).toEqual([hello, answer.body]);
    await eventually(async () => (await transport(page)) === 'live');
    const again = await reply(cid, 'Still here after your reload.');
    await eventually(async () => (await items(page).count()) === 3);
    await expect(items(page).nth(2).evaluate((el) => el.lastChild?.textContent)).resolves.toBe(again.body);
    expect(errors).toEqual([]);
  });
}, 60_000);

test('with the Socket.IO path refused, replies arrive by polling; when it is back, the socket takes over without duplicates', async () => {
  await withContext(async (context, page) => {
    let blocked = true;
    // Both of Socket.IO's ways in: its WebSocket (which it tries first) and its long-polling requests.
    // A routed WebSocket is open for the page before the handler acts, and a socket that merely closes
    // before Socket.IO's handshake leaves the client waiting out its 20 s connect timeout. So the refused
    // one answers what is not Socket.IO, as a proxy's error would: the client gives that attempt up at once.
    await context.routeWebSocket('**/socket.io/**', (socket) => {
      if (!blocked) return socket.connectToServer();
      socket.send('refused');
      return socket.close({ code: 1011, reason: 'refused' });
    });
    await context.route('**/socket.io/**', (route) => (blocked ? route.abort('connectionrefused') : route.continue()));
    await page.goto(siteUrl);
    await openWidget(page);
    const text = `polling visitor ${Date.now()}`;
    await send(page, text);
    const cid = await conversationWith(text);
    await eventually(async () => (await transport(page)) === 'polling');

    const first = await reply(cid, 'Answer delivered by polling');
    await eventually(async () => (await items(page).count()) === 2);
    await expect(items(page).nth(1).evaluate((el) => el.lastChild?.textContent)).resolves.toBe(first.body);
    expect(await transport(page)).toBe('polling');

    // A reply stored while the socket reconnects is caught up exactly once.
    const second = await reply(cid, 'Sent while you were reconnecting');
    blocked = false;
    // The next attempt comes after the client's back-off (the page caps it at 500 ms).
    await eventually(async () => (await transport(page)) === 'live', 10_000);
    await eventually(async () => (await items(page).count()) === 3);
    const third = await reply(cid, 'And this one came by push');
    await eventually(async () => (await items(page).count()) === 4);
    const bodies = await items(page).evaluateAll((els) => els.map((el) => el.lastChild?.textContent));
    expect(bodies).toEqual([text, first.body, second.body, third.body]);
  });
}, 60_000);

test('flood and closed conversations are explained in words; a closed one offers a new conversation', async () => {
  await withContext(async (_context, page) => {
    await page.goto(siteUrl);
    await openWidget(page);
    const text = `flood visitor ${Date.now()}`;
    await send(page, text);
    const cid = await conversationWith(text);
    const token = await page.evaluate(() => {
      const key = Object.keys(localStorage).find((k) => k.startsWith('hearth.chat.'))!;
      return JSON.parse(localStorage.getItem(key)).token as string;
    });
    // 19 more through the API make 20 this minute: the 21st from the widget is refused with 409.
    for (let i = 0; i < 19; i += 1) {
      const res = await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: `extra ${i}` } });
      expect(res.status).toBe(201);
    }
    await send(page, 'one too many');
    const notice = page.locator('[data-hearth-widget] >> .notice');
    await eventually(async () => ((await notice.textContent()) ?? '').includes('very quickly'));
    // The text stays in the box so the visitor can send it later.
    await expect(page.locator('[data-hearth-widget] >> textarea').inputValue()).resolves.toBe('one too many');

    // The team closes the conversation: the widget says so and offers a new one.
    await eventually(async () => (await transport(page)) === 'live');
    const closed = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/close`, { method: 'POST', token: ws.token, body: {} });
    expect(closed.status).toBe(200);
    const restart = page.locator('[data-hearth-widget] >> .restart');
    await restart.waitFor({ state: 'visible' });
    await expect(notice.textContent()).resolves.toContain('closed');
    await restart.click();
    await page.locator('[data-hearth-widget] >> textarea').waitFor({ state: 'visible' });
    expect(await items(page).count()).toBe(0);
    const fresh = `a new start ${Date.now()}`;
    await send(page, fresh);
    const newCid = await conversationWith(fresh);
    expect(newCid).not.toBe(cid);
  });
}, 60_000);

test('a message typed while the previous one is on its way is sent next, in order, and is not wiped', async () => {
  await withContext(async (_context, page) => {
    await page.goto(siteUrl);
    await openWidget(page);
    const opening = `quick typist ${Date.now()}`;
    await send(page, opening);
    const cid = await conversationWith(opening);
    await eventually(async () => (await transport(page)) === 'live');

    // The server takes each message at once but its answer is held: the own message arrives by push first.
    let answered = 0;
    await page.route('**/messages', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.fulfill({ response });
      answered += 1;
    });
    await send(page, 'first of two');
    await eventually(async () => (await items(page).count()) === 2);
    expect(answered).toBe(0); // shown by push while its own answer is still held
    await send(page, 'second of two');
    await eventually(async () => (await items(page).count()) === 3, 10_000);
    const bodies = await items(page).evaluateAll((els) => els.map((el) => el.lastChild?.textContent));
    expect(bodies).toEqual([opening, 'first of two', 'second of two']);
    await eventually(async () => (await page.locator('[data-hearth-widget] >> textarea').inputValue()) === '');
    const stored = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token });
    expect((stored.body.messages as { body: string }[]).map((m) => m.body)).toEqual([opening, 'first of two', 'second of two']);
  });
}, 60_000);

test("the config follows the browser's language, and the away text shows while nobody is online", async () => {
  const other = await createWorkspace(node.url);
  const activated = await request(node.url, `/admin/workspaces/${other.id}/plugins/live-chat`, {
    method: 'PUT',
    token: other.token,
    body: { enabled: true, greeting: 'Hi', offlineMessage: 'We are away', offlineMessages: { de: 'Wir sind gerade nicht da' }, forceOnline: false },
  });
  expect(activated.status).toBe(200);
  const context = await browser.newContext({ locale: 'de-CH' });
  try {
    const page = await context.newPage();
    await page.goto(`${siteUrl}?pk=${activated.body.publishableKey}&lang=`);
    await openWidget(page);
    await expect(page.locator('[data-hearth-widget] >> .intro').textContent()).resolves.toBe('Wir sind gerade nicht da');
    await expect(page.locator('[data-hearth-widget] >> .state').textContent()).resolves.toBe('Wir antworten so bald wie möglich');
  } finally {
    await context.close();
  }
  // The main workspace's German greeting, for the same browser language.
  const german = await browser.newContext({ locale: 'de-DE' });
  try {
    const page = await german.newPage();
    await page.goto(`${siteUrl}?lang=`);
    await openWidget(page);
    await expect(page.locator('[data-hearth-widget] >> .intro').textContent()).resolves.toBe(GERMAN_GREETING);
  } finally {
    await german.close();
  }
}, 30_000);

test('Hearth.identify (queued before the script loaded) starts a verified conversation; Hearth.open opens the panel', async () => {
  const externalId = `user-${Date.now()}`;
  // The consumer's server signs the id with the derived secret (hex HMAC of the API key over the context).
  const secret = createHmac('sha256', ws.apiKey).update('service:live-chat:identity:v1').digest('hex');
  const identityToken = createHmac('sha256', secret).update(externalId).digest('hex');
  const queue = JSON.stringify([
    ['identify', { externalId, name: 'Ada Visitor', email: 'ada@example.com', identityToken }],
    ['open'],
  ]);
  await withContext(async (_context, page) => {
    await page.goto(`${siteUrl}?queue=${encodeURIComponent(queue)}`);
    await page.locator('[data-hearth-widget] >> textarea').waitFor({ state: 'visible' });
    await expect(launcher(page).getAttribute('aria-expanded')).resolves.toBe('true');
    const text = `verified hello ${Date.now()}`;
    await send(page, text);
    const cid = await conversationWith(text);
    const conversation = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}`, { token: ws.token });
    expect(conversation.body.visitor).toMatchObject({ verified: true, externalId, name: 'Ada Visitor' });

    // Hearth.close() and Hearth.shutdown() from the page: the panel closes, then the widget leaves the page.
    await page.evaluate(() => (window as unknown as { Hearth: { close(): void } }).Hearth.close());
    await expect(launcher(page).getAttribute('aria-expanded')).resolves.toBe('false');
    await page.evaluate(() => (window as unknown as { Hearth: { shutdown(): void } }).Hearth.shutdown());
    await expect(page.locator('[data-hearth-widget]').count()).resolves.toBe(0);
    await expect(page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('hearth.chat.')).length)).resolves.toBe(0);
  });
}, 30_000);
