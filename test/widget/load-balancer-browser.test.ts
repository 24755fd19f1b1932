import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openConsole, startCustomerSite, type CustomerSite } from '../support/browser.js';
import { OPERATOR, createWorkspace, eventually, request, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import { startLoadBalancer, type RunningService } from '../support/services.js';
import { putChatSettings } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { NAMESPACES } from '../../src/realtime/events.js';
import { buildConsole, buildWidget } from '../../scripts/build-widget.mjs';

/**
 * Two nodes behind HAProxy, round robin and nothing sticky (as behind most cloud load balancers): the widget
 * and the team app each hold a live socket through it, and what happens on either node reaches them by push.
 * The widget's own polling is slowed to a minute, so only the sockets can bring anything this fast.
 */

let a: HearthNode;
let b: HearthNode;
let balancer: RunningService;
let site: CustomerSite | undefined;
let browser: Browser;
let ws: WorkspaceFixture;
const widgetSockets = { a: 0, b: 0 };

beforeAll(async () => {
  await Promise.all([buildWidget(), buildConsole()]);
  const dbName = uniqueDbName('balanced');
  a = await startTestNode({ dbName, redis: true });
  b = await startTestNode({ dbName, redis: true });
  balancer = await startLoadBalancer([a.url, b.url]);
  a.deps.realtime.io.of(NAMESPACES.widget).on('connection', () => (widgetSockets.a += 1));
  b.deps.realtime.io.of(NAMESPACES.widget).on('connection', () => (widgetSockets.b += 1));
  ws = await createWorkspace(a.url, { name: 'Balanced Bakery' });
  const publishableKey = await putChatSettings(a.url, ws, { enabled: true, greeting: 'Hi', offlineMessage: null, forceOnline: true });
  site = await startCustomerSite(
    () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body><h1>Site</h1>
<script src="${balancer.url}/widget/widget.js" data-publishable-key="${publishableKey}" data-poll-min-ms="60000" data-poll-max-ms="60000" async></script></body></html>`,
  );
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await balancer?.stop();
  await Promise.all([a?.stop(), b?.stop()]);
});

const widget = (page: Page, selector: string) => page.locator(`[data-hearth-widget] >> ${selector}`);
const transport = (page: Page) => page.locator('[data-hearth-widget]').getAttribute('data-transport');
const agentTexts = async (page: Page) =>
  (await widget(page, 'ol > li').evaluateAll((nodes) => nodes.map((n) => [n.getAttribute('data-sender'), n.lastChild?.textContent ?? '']))).filter(([sender]) => sender === 'AGENT').map(([, text]) => text);

test('through a round-robin balancer the widget and the team app stay live, and replies on either node arrive by push', async () => {
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(site!.url);
  await widget(visitor, '.launcher').click();
  await widget(visitor, 'textarea').fill('Do you deliver on Sundays?');
  await widget(visitor, 'textarea').press('Enter');
  await eventually(async () => (await transport(visitor)) === 'live', 15_000);
  expect(widgetSockets.a + widgetSockets.b).toBe(1);

  const conversationId = await eventually(async () => {
    const list = await request(a.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token });
    return list.body.items?.[0]?.id as string | undefined;
  }, 10_000);
  // One reply made on each node: whichever node holds the visitor's socket, both reach it through Redis.
  for (const [node, body] of [
    [a, 'Yes, from 8 am.'],
    [b, 'Order by Saturday noon.'],
  ] as const) {
    expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations/${conversationId}/messages`, { token: ws.token, body: { body } })).status).toBe(201);
  }
  await eventually(async () => (await agentTexts(visitor)).length === 2, 10_000);
  expect(await agentTexts(visitor)).toEqual(['Yes, from 8 am.', 'Order by Saturday noon.']);

  // The team app through the same balancer: live, and the visitor's next message appears by push.
  const agent = await openConsole(browser, balancer.url, ws.id, { hash: '#/chats', user: OPERATOR });
  await eventually(async () => (await agent.page.locator('#live').textContent()) === 'live', 15_000);
  // The conversation shows its last message, the second reply, until the visitor writes again.
  await agent.page.locator('#conversations button', { hasText: 'Order by Saturday noon.' }).waitFor({ timeout: 10_000 });
  await widget(visitor, 'textarea').fill('Then two rye loaves, please');
  await widget(visitor, 'textarea').press('Enter');
  await agent.page.locator('#conversations button', { hasText: 'Then two rye loaves, please' }).waitFor({ timeout: 10_000 });
  expect(await agent.page.locator('#live').textContent()).toBe('live');
  expect(await transport(visitor)).toBe('live');
  expect(agent.errors).toEqual([]);
  await agent.context.close();
}, 90_000);
