import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, startCustomerSite, type CustomerSite } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { putChatSettings } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { NAMESPACES } from '../../src/realtime/events.js';
import { buildWidget } from '../../scripts/build-widget.mjs';

/**
 * Gap-free catch-up of the widget in a real Chromium: the visitor's socket is cut in the middle of a
 * burst of agent replies; after the reconnect every reply is shown exactly once, in order. Polling is
 * slowed to a minute so only the catch-up on reconnect can fill the hole.
 */

let node: HearthNode;
let site: CustomerSite | undefined;
let siteUrl: string;
let browser: Browser;
let ws: WorkspaceFixture;
let publishableKey: string;
let widgetConnections = 0;

beforeAll(async () => {
  await buildWidget();
  node = await startTestNode();
  ws = await createWorkspace(node.url, { name: 'Catch-up Bakery' });
  publishableKey = await putChatSettings(node.url, ws, { enabled: true, greeting: 'Hi', offlineMessage: null, forceOnline: true });
  node.deps.realtime.io.of(NAMESPACES.widget).on('connection', () => (widgetConnections += 1));
  site = await startCustomerSite(() =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body><h1>Site</h1>
<script src="${node.url}/widget/widget.js" data-publishable-key="${publishableKey}" data-poll-min-ms="60000" data-poll-max-ms="60000"
  data-socket-grace-ms="2000" data-reconnect-max-ms="400" async></script></body></html>`,
  );
  siteUrl = site.url;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await node?.stop();
});

const items = (page: Page) => page.locator('[data-hearth-widget] >> ol > li');
const transport = (page: Page) => page.locator('[data-hearth-widget]').getAttribute('data-transport');
const texts = async (page: Page, sender: 'AGENT' | 'VISITOR') =>
  (await items(page).evaluateAll((nodes) => nodes.map((n) => [n.getAttribute('data-sender'), n.lastChild?.textContent ?? '']))).filter(([s]) => s === sender).map(([, t]) => t);

async function openAndSend(page: Page, text: string): Promise<void> {
  await page.locator('[data-hearth-widget] >> .launcher').click();
  await page.locator('[data-hearth-widget] >> textarea').fill(text);
  await page.locator('[data-hearth-widget] >> textarea').press('Enter');
  await eventually(async () => (await texts(page, 'VISITOR')).includes(text), 10_000);
}

async function conversationId(): Promise<string> {
  return eventually(async () => {
    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token });
    return list.body.items?.[0]?.id as string | undefined;
  }, 10_000);
}

test('a socket dropped during a burst of replies: after the reconnect every reply is shown once, in order', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(siteUrl);
  await openAndSend(page, 'Is the rye bread fresh?');
  await eventually(async () => (await transport(page)) === 'live', 10_000);
  const cid = await conversationId();
  const connectionsBefore = widgetConnections;

  const burst = Array.from({ length: 40 }, (_, i) => `reply ${String(i + 1).padStart(2, '0')}`);
  for (const [i, body] of burst.entries()) {
    const sent = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body } });
    expect(sent.status).toBe(201);
    // The network under the socket goes away (not a polite disconnect): the client reconnects by itself.
    if (i === 9) for (const socket of node.deps.realtime.io.of(NAMESPACES.widget).sockets.values()) socket.conn.close();
    await new Promise((resolve) => setTimeout(resolve, 40));
  }

  await eventually(async () => (await texts(page, 'AGENT')).length >= burst.length && (await transport(page)) === 'live', 20_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(widgetConnections).toBeGreaterThan(connectionsBefore);
  expect(await texts(page, 'AGENT')).toEqual(burst);
  expect(await texts(page, 'VISITOR')).toEqual(['Is the rye bread fresh?']);
  await context.close();
}, 90_000);

test("the visitor's own message appears in their other tab once", async () => {
  const context = await browser.newContext();
  const first = await context.newPage();
  await first.goto(siteUrl);
  await openAndSend(first, 'First words');
  const second = await context.newPage();
  await second.goto(siteUrl);
  await second.locator('[data-hearth-widget] >> .launcher').click();
  await eventually(async () => (await texts(second, 'VISITOR')).includes('First words'), 10_000);
  await eventually(async () => (await transport(second)) === 'live', 10_000);

  await first.locator('[data-hearth-widget] >> textarea').fill('Sent from the first tab');
  await first.locator('[data-hearth-widget] >> textarea').press('Enter');
  // Polling runs once a minute here: only the push between tabs (or the server's push) brings it this fast.
  await eventually(async () => (await texts(second, 'VISITOR')).includes('Sent from the first tab'), 5_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await texts(second, 'VISITOR')).toEqual(['First words', 'Sent from the first tab']);
  expect(await texts(first, 'VISITOR')).toEqual(['First words', 'Sent from the first tab']);
  await context.close();
}, 90_000);
