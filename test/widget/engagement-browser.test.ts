import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, startCustomerSite, widgetPart as part, type CustomerSite } from '../support/browser.js';
import { OPERATOR, createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { putChatSettings } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole, buildWidget } from '../../scripts/build-widget.mjs';

/**
 * An agent (console) and a visitor (widget on a third-party page) in two Chromium contexts: typing shows
 * on the other side and clears by itself, the visitor sees who answers and the agent sees "Seen", and
 * unread counts stay right across reloads (widget badge and console inbox).
 */

let node: HearthNode;
let site: CustomerSite | undefined;
let siteUrl: string;
let browser: Browser;
let ws: WorkspaceFixture;
let operatorName: string;

beforeAll(async () => {
  await Promise.all([buildWidget(), buildConsole()]);
  node = await startTestNode();
  ws = await createWorkspace(node.url, { name: 'Typing Tailors' });
  const publishableKey = await putChatSettings(node.url, ws, { enabled: true, greeting: 'Hi', offlineMessage: null, forceOnline: true });
  operatorName = (await request(node.url, '/admin/me', { token: ws.token })).body.name as string;
  site = await startCustomerSite(() =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body><h1>Site</h1>
<script src="${node.url}/widget/widget.js" data-publishable-key="${publishableKey}" data-socket-grace-ms="2000" async></script></body></html>`,
  );
  siteUrl = site.url;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await node?.stop();
});

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();
const badge = async (page: Page) => ((await part(page, '.badge').isHidden()) ? '' : ((await part(page, '.badge').textContent()) ?? ''));

test('typing both ways appears and clears; agent names, read status and unread counts survive reloads', async () => {
  const visitorContext = await browser.newContext();
  const visitor = await visitorContext.newPage();
  await visitor.goto(siteUrl);
  await part(visitor, '.launcher').click();
  await part(visitor, 'textarea').fill('Do you hem trousers?');
  await part(visitor, 'textarea').press('Enter');
  await eventually(async () => (await part(visitor, 'ol > li').count()) === 1, 10_000);
  await eventually(async () => (await visitor.locator('[data-hearth-widget]').getAttribute('data-transport')) === 'live', 10_000);

  const agentContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const agent = await agentContext.newPage();
  await agent.goto(`${node.url}/console#/chats`);
  await agent.locator('#email').fill(OPERATOR.email);
  await agent.locator('#password').fill(OPERATOR.password);
  await agent.locator('#login button[type="submit"]').click();
  await agent.locator('#workspace').waitFor({ state: 'visible', timeout: 10_000 });
  if ((await agent.locator('#workspace').inputValue()) !== ws.id) await agent.locator('#workspace').selectOption(ws.id);
  await eventually(async () => (await text(agent, '#live')) === 'live', 10_000);
  await agent.locator('#conversations button').first().click();
  await eventually(async () => (await agent.locator('#messages > li').count()) === 1, 10_000);

  // Visitor typing: shown in the console, then cleared when the visitor pauses.
  await part(visitor, 'textarea').fill('Also sleeves');
  await eventually(async () => (await text(agent, '#typing')) === 'The visitor is typing…', 5_000);
  await eventually(async () => (await text(agent, '#typing')) === '', 10_000);

  // Agent typing: shown in the widget with the agent's name, cleared when the reply arrives.
  await agent.locator('#body').fill('Yes, we');
  await eventually(async () => (await text(visitor, '[data-hearth-widget] >> .typing')) === `${operatorName} is typing…`, 5_000);
  await agent.locator('#body').fill('Yes, we do.');
  await agent.locator('#reply button[type="submit"]').click();
  await eventually(async () => (await part(visitor, 'li[data-sender="AGENT"]').count()) === 1, 10_000);
  expect(await text(visitor, '[data-hearth-widget] >> .typing')).toBe('');
  // The visitor sees who answered; the message text itself stays the item's last node.
  expect(await part(visitor, 'li[data-sender="AGENT"] .who').textContent()).toBe(operatorName);
  expect(await part(visitor, 'li[data-sender="AGENT"]').evaluate((li) => li.lastChild?.textContent)).toBe('Yes, we do.');

  // The open widget read the reply: the agent sees "Seen"; the visitor sees the team read theirs.
  await eventually(async () => (await agent.locator('#messages > li[data-seen="Seen"]').count()) === 1, 10_000);
  await eventually(async () => (await part(visitor, 'li[data-sender="VISITOR"][data-seen]').count()) === 1, 10_000);

  // A reply while the panel is closed: one unread, and still exactly one after a reload.
  await part(visitor, '.launcher').click();
  await agent.locator('#body').fill('Bring them by any time.');
  await agent.locator('#reply button[type="submit"]').click();
  await eventually(async () => (await badge(visitor)) === '1', 10_000);
  await visitor.reload();
  await eventually(async () => (await part(visitor, 'li[data-sender="AGENT"]').count()) === 2, 10_000);
  expect(await badge(visitor)).toBe('1');
  // History loaded over REST after the reload still names who answered, each reply once.
  expect(await part(visitor, 'li[data-sender="AGENT"] .who').allTextContents()).toEqual([operatorName, operatorName]);
  await part(visitor, '.launcher').click();
  expect(await badge(visitor)).toBe('');
  await visitor.reload();
  await eventually(async () => (await part(visitor, 'li[data-sender="AGENT"]').count()) === 2, 10_000);
  expect(await badge(visitor)).toBe('');

  // A visitor message in the open conversation is read at once, and no badge comes back after a console reload.
  await part(visitor, '.launcher').click();
  await part(visitor, 'textarea').fill('Thanks!');
  await part(visitor, 'textarea').press('Enter');
  await eventually(async () => (await agent.locator('#messages > li').count()) === 4, 10_000);
  expect(await agent.locator('#conversations .badge').count()).toBe(0);
  // The open conversation's read is saved by a request of its own: the reload comes once the server has it.
  await eventually(async () => (await request(node.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token })).body.items[0]?.unreadCount === 0, 10_000);
  await agent.reload();
  await eventually(async () => (await agent.locator('#conversations button').count()) === 1, 10_000);
  expect(await agent.locator('#conversations .badge').count()).toBe(0);

  // Assignment: "Assign to me" shows at once, the "Mine" filter keeps the conversation, an unassign empties it.
  await agent.locator('#conversations button').first().click();
  await agent.locator('#assignment button', { hasText: 'Assign to me' }).click();
  await eventually(async () => (await text(agent, '#assignee')) === `Assigned to ${operatorName}`, 10_000);
  await agent.locator('#assignee-filter').selectOption('me');
  await eventually(async () => (await agent.locator('#conversations button').count()) === 1, 10_000);
  await agent.locator('#assignment button', { hasText: 'Unassign' }).click();
  await eventually(async () => (await text(agent, '#assignee')) === 'Unassigned', 10_000);
  await agent.locator('#assignee-filter').selectOption('all');

  await visitorContext.close();
  await agentContext.close();
}, 120_000);
