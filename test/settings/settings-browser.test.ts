import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium, openConsole, overflowsSideways } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';
import { memberWith, PASSWORD, type TestUser } from '../team/support.js';

/**
 * The team app's settings in a real Chromium against a real node: an owner edits the workspace (a refused
 * field shows its problem beside it, nothing typed is lost), rotates the API key (the old one answers 401 at
 * once), registers a webhook endpoint (its secret shown once) whose real receiver fails, reads its delivery
 * log and sends one again; an editor gets no Settings; every part passes axe and fits 375 px.
 */

declare const document: any;

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;
let owner: TestUser;

/** A webhook receiver on its own port: answers `status` (500 at first) and keeps what it received. */
const receiver = { status: 500, received: [] as { webhookId: string; body: { type: string } }[], server: null as Server | null, url: '' };

/** What the console build made: the settings are a chunk loaded on demand, and the whole app stays small. */
let built: { gzipped: number; lazy: string[] };

beforeAll(async () => {
  built = await buildConsole();
  // Retries come quickly (0.3 s, then 1.8 s, then about 11 s): a failing endpoint shows several attempts soon.
  node = await startTestNode({ env: { WEBHOOK_RETRY_BASE_MS: '300' } });
  ws = await createWorkspace(node.url, { name: 'Settings Bakery', locales: ['en', 'de'] });
  owner = await memberWith(node.url, ws, 'owner', 'Olga Owner');
  receiver.server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      receiver.received.push({ webhookId: String(req.headers['webhook-id']), body: JSON.parse(body) as { type: string } });
      res.statusCode = receiver.status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.server!.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hooks`;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  receiver.server?.closeAllConnections();
  await new Promise((resolve) => receiver.server?.close(resolve));
});

const openApp = (user: { email: string }, options: { width?: number; locale?: string; hash?: string } = {}) =>
  openConsole(browser, node.url, ws.id, { ...options, hash: options.hash ?? '#/settings', user: { email: user.email, password: PASSWORD } });

const admin = (path: string, options: { method?: string; body?: unknown } = {}) => request(node.url, `/admin/workspaces/${ws.id}${path}`, { token: ws.token, ...options });
/** The focus moves after the render (or the timer) the key press caused: wait for it to arrive. */
const focusOn = (page: Page, id: string) => page.waitForFunction((wanted) => document.activeElement?.id === wanted, id, { timeout: 5_000 });

test('an owner edits the workspace settings: a refused field shows its problem beside it, nothing typed is lost, and the fix persists', async () => {
  const { context, page, errors, requested } = await openApp(owner, { hash: '#/settings/workspace' });
  await page.locator('#workspace-form').waitFor({ timeout: 10_000 });
  expect(requested.filter((url) => url.includes('/settings-view'))).toHaveLength(1);
  expect(await axeViolations(page)).toEqual([]);
  await expect(page.locator('#ws-name').inputValue()).resolves.toBe('Settings Bakery');

  // Keyboard only: a new name, a third language, and a default that is not one of them.
  await page.locator('#ws-name').focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Settings Bakery & Café');
  await page.keyboard.press('Tab');
  await page.keyboard.press('End');
  await page.keyboard.type(', fr');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('it');
  await page.keyboard.press('Tab');
  await page.keyboard.type('https://bakery.example.com/');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');

  // The server's 400 names the field: its message beside it, the field marked, the rest as typed.
  const problem = page.locator('#ws-default-locale-problem');
  await problem.waitFor({ timeout: 10_000 });
  await expect(problem.textContent()).resolves.toBe('must be one of locales');
  await expect(page.locator('#ws-default-locale').getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(page.locator('#ws-default-locale').getAttribute('aria-describedby')).resolves.toContain('ws-default-locale-problem');
  await eventually(() => page.evaluate(() => document.activeElement.id === 'ws-default-locale'));
  await expect(page.locator('#ws-name').inputValue()).resolves.toBe('Settings Bakery & Café');
  await expect(page.locator('#ws-locales').inputValue()).resolves.toBe('en, de, fr');
  await expect(page.locator('#ws-default-locale').inputValue()).resolves.toBe('it');
  expect((await admin('')).body.name).toBe('Settings Bakery');
  expect(await axeViolations(page)).toEqual([]);

  await page.locator('#ws-default-locale').fill('fr');
  await page.locator('#workspace-form button[type=submit]').click();
  await page.locator('#workspace-status', { hasText: 'Saved.' }).waitFor({ timeout: 10_000 });
  await expect(page.locator('#ws-default-locale-problem').count()).resolves.toBe(0);
  await expect(page.locator(`#workspace option[value="${ws.id}"]`).textContent()).resolves.toContain('Settings Bakery & Café');
  const stored = (await admin('')).body;
  expect({ name: stored.name, locales: stored.locales, defaultLocale: stored.defaultLocale, siteUrl: stored.siteUrl }).toEqual({
    name: 'Settings Bakery & Café',
    locales: ['en', 'de', 'fr'],
    defaultLocale: 'fr',
    siteUrl: 'https://bakery.example.com',
  });

  // Persisted: a reload shows what the server keeps.
  await page.reload();
  await page.locator('#ws-name').waitFor({ timeout: 10_000 });
  await expect(page.locator('#ws-default-locale').inputValue()).resolves.toBe('fr');
  await expect(page.locator('#ws-site-url').inputValue()).resolves.toBe('https://bakery.example.com');
  // Back to two languages for the other tests.
  expect((await admin('', { method: 'PATCH', body: { locales: ['en', 'de'], defaultLocale: 'en' } })).status).toBe(200);
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);

test('an owner reveals and rotates the API key with a confirmation (keyboard only); the old key answers 401 at once', async () => {
  const chat = await admin('/plugins/live-chat', { method: 'PUT', body: { enabled: true, greeting: 'Hello!' } });
  expect(chat.status).toBe(200);
  const { context, page, errors } = await openApp(owner, { hash: '#/settings/keys' });
  await page.locator('#reveal-key').waitFor({ timeout: 10_000 });
  await expect(page.locator('#publishable-key code').textContent()).resolves.toBe(chat.body.publishableKey);
  expect(await axeViolations(page)).toEqual([]);
  await expect(page.locator('#api-key').textContent()).resolves.not.toContain(ws.apiKey);
  await page.locator('#reveal-key').focus();
  await page.keyboard.press('Enter');
  await page.locator('#api-key', { hasText: ws.apiKey }).waitFor({ timeout: 10_000 });
  expect((await request(node.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(200);

  // Rotation asks first; cancel keeps the key; yes (focused) rotates.
  await page.locator('#rotate-key').focus();
  await page.keyboard.press('Enter');
  await focusOn(page, 'rotate-key-yes');
  await page.keyboard.press('Escape');
  await focusOn(page, 'rotate-key');
  expect((await request(node.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(200);
  await page.keyboard.press('Enter');
  await focusOn(page, 'rotate-key-yes');
  expect(await axeViolations(page)).toEqual([]);
  await page.keyboard.press('Enter');
  await page.locator('#keys-status', { hasText: 'the old key no longer works' }).waitFor({ timeout: 10_000 });
  const rotated = (await page.locator('#api-key').textContent())!;
  expect(rotated).not.toBe(ws.apiKey);

  expect((await request(node.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(401);
  expect((await request(node.url, '/external/workspace', { apiKey: rotated })).status).toBe(200);
  ws.apiKey = rotated;
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);

test('a failing webhook endpoint: its secret shown once, its deliveries with their attempts in the log, one sent again from the app', async () => {
  const { context, page, errors } = await openApp(owner, { hash: '#/settings/webhooks' });
  await page.locator('#create-endpoint').waitFor({ timeout: 10_000 });
  expect(await axeViolations(page)).toEqual([]);

  // A refused URL: the problem beside the field, the URL as typed.
  await page.locator('#endpoint-url').fill('ftp://bakery.example.com/hooks');
  await page.locator('#create-endpoint button[type=submit]').click();
  await page.locator('#endpoint-url-problem').waitFor({ timeout: 10_000 });
  await expect(page.locator('#endpoint-url').inputValue()).resolves.toBe('ftp://bakery.example.com/hooks');

  await page.locator('#endpoint-url').fill(receiver.url);
  await page.locator('#endpoint-description').fill('Bakery till');
  await page.locator('#create-endpoint button[type=submit]').click();
  const secret = (await page.locator('#new-secret-value').textContent({ timeout: 10_000 }))!;
  expect(secret).toMatch(/^whsec_/);
  await focusOn(page, 'secret-stored');
  expect(await axeViolations(page)).toEqual([]);
  const [endpoint] = (await admin('/webhook-endpoints')).body.items as { id: string; events: string[] }[];
  expect(endpoint.events).toEqual(['*']);
  await page.locator('#secret-stored').click();
  await expect(page.locator('#new-secret').count()).resolves.toBe(0);
  // Once only: neither the page nor the API shows it again.
  await page.reload();
  await page.locator(`#endpoint-${endpoint.id}`).waitFor({ timeout: 10_000 });
  await expect(page.content()).resolves.not.toContain(secret);
  expect(JSON.stringify((await admin(`/webhook-endpoints/${endpoint.id}`)).body)).not.toContain(secret);

  // A test event from the app: the receiver answers 500, so the delivery is retried; the log shows every attempt.
  await page.locator(`#test-${endpoint.id}`).click();
  const test = await eventually(() => receiver.received.find((hit) => hit.body.type === 'webhook.test'), 10_000);
  const log = page.locator(`#log-${endpoint.id}`);
  await log.waitFor({ timeout: 10_000 });
  const entry = log.locator('li[data-event="webhook.test"]').first();
  await eventually(async () => {
    await page.locator(`#refresh-${endpoint.id}`).click();
    return (await entry.locator('.attempts li[data-status="500"]').count()) >= 2;
  }, 15_000, 300);
  await expect(entry.locator('.attempts li').first().textContent()).resolves.toMatch(/^#1: 500 at .+ \(\d+ ms\)$/);
  expect(await axeViolations(page)).toEqual([]);

  // The endpoint is fixed; its failed event is sent again from the app, long before the next retry is due.
  receiver.status = 200;
  const seen = receiver.received.filter((hit) => hit.webhookId === test.webhookId).length;
  const deliveryId = (await entry.getAttribute('id'))!.replace('delivery-', '');
  await page.locator(`#redeliver-${deliveryId}`).click();
  await eventually(() => receiver.received.filter((hit) => hit.webhookId === test.webhookId).length > seen, 5_000);
  await eventually(async () => {
    await page.locator(`#refresh-${endpoint.id}`).click();
    return (await log.locator('li[data-event="webhook.test"][data-state=delivered]', { hasText: 'sent again' }).count()) === 1;
  }, 10_000, 300);
  const deliveries = (await admin(`/webhook-endpoints/${endpoint.id}/deliveries`)).body.items as { redeliveryOf: string | null; state: string }[];
  expect(deliveries.find((delivery) => delivery.redeliveryOf === deliveryId)?.state).toBe('delivered');

  // The event filter: one event instead of all.
  await page.locator(`#filter-${endpoint.id}`).click();
  const filter = page.locator(`#filter-form-${endpoint.id}`);
  await filter.locator('input[value="*"]').uncheck();
  await filter.locator('input[value="post.published"]').check();
  await filter.locator('button[type=submit]').click();
  await page.locator(`#endpoint-${endpoint.id}`, { hasText: 'Events: post.published' }).waitFor({ timeout: 10_000 });
  expect((await admin(`/webhook-endpoints/${endpoint.id}`)).body.events).toEqual(['post.published']);

  // A long log pages: the newest 20 first, then the older ones on request, by keyboard; a refresh keeps them open.
  for (let i = 0; i < 20; i += 1) expect((await admin(`/webhook-endpoints/${endpoint.id}/test`, { method: 'POST', body: {} })).status).toBe(202);
  const all = (await admin(`/webhook-endpoints/${endpoint.id}/deliveries?limit=100`)).body.items as { id: string }[];
  expect(all).toHaveLength(22);
  await page.locator(`#deliveries-${endpoint.id}`).click();
  const shown = () => log.locator('ol.deliveries > li').evaluateAll((items) => items.map((item) => item.id.replace('delivery-', '')));
  await eventually(async () => (await shown())[0] === all[0].id);
  expect(await shown()).toEqual(all.slice(0, 20).map((delivery) => delivery.id));
  await page.locator(`#older-${endpoint.id}`).focus();
  await page.keyboard.press('Enter');
  await eventually(async () => (await shown()).length === 22);
  expect(await shown()).toEqual(all.map((delivery) => delivery.id));
  await expect(page.locator(`#older-${endpoint.id}`).count()).resolves.toBe(0);
  const refreshed = page.waitForResponse((response) => response.url().includes(`/webhook-endpoints/${endpoint.id}/deliveries?limit=22`));
  await page.locator(`#refresh-${endpoint.id}`).click();
  await refreshed;
  await expect(shown()).resolves.toEqual(all.map((delivery) => delivery.id));

  // Rotating the secret asks first, then shows the new one once.
  await page.locator(`#rotate-${endpoint.id}`).click();
  await page.locator(`#rotate-${endpoint.id}-yes`).click();
  const rotated = (await page.locator('#new-secret-value').textContent({ timeout: 10_000 }))!;
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await page.locator('#secret-stored').click();
  await eventually(() => page.evaluate(() => document.activeElement.id === 'endpoints-title'));
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);

test('the settings are their own chunk, loaded on demand; the whole app stays under 150 KB gzipped', () => {
  expect(built.lazy.some((file) => file.startsWith('settings-view'))).toBe(true);
  expect(built.gzipped).toBeLessThan(150 * 1024);
});

test('an editor gets no Settings: no entry in the navigation, the address shows no settings, and their chunk is not loaded', async () => {
  const editor = await memberWith(node.url, ws, 'editor', 'Eda Editor');
  const { context, page, errors, requested } = await openApp(editor, { hash: '#/settings/keys' });
  await page.locator('#nav-posts').waitFor({ timeout: 10_000 });
  await expect(page.locator('#nav-settings').count()).resolves.toBe(0);
  await page.locator('text=Only owners change the settings.').waitFor();
  await expect(page.locator('#reveal-key').count()).resolves.toBe(0);
  // The server refuses them anyway.
  expect((await request(node.url, `/admin/workspaces/${ws.id}/api-key`, { token: editor.token })).status).toBe(403);
  expect(requested.filter((url) => url.includes('/settings-view'))).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);

test('every settings part at 375 px (in German): usable without sideways scrolling, axe clean; a low theme contrast is warned about', async () => {
  const { context, page, errors } = await openApp(owner, { width: 375, locale: 'de-DE', hash: '#/settings' });
  await page.locator('#nav-settings', { hasText: 'Einstellungen' }).waitFor({ timeout: 10_000 });
  for (const part of ['workspace', 'keys', 'chat', 'appointments', 'webhooks']) {
    await page.locator(`#settings-nav-${part}`).click();
    await page.locator(`#settings-nav-${part}[aria-current=page]`).waitFor();
    await page.locator('#settings-title').waitFor();
    await page.locator('.settings form, #reveal-key').first().waitFor({ timeout: 10_000 });
    expect(await overflowsSideways(page)).toBe(false);
    expect([part, await axeViolations(page)]).toEqual([part, []]);
  }

  // Appointments: a refused number beside its field (a 400's path), the rest kept.
  await page.locator('#settings-nav-appointments').click();
  await page.locator('#hours-mon').fill('09:00-12:00, 11:00-17:00');
  await page.locator('#appointments-form button[type=submit]').click();
  await page.locator('#hours-mon-problem').waitFor({ timeout: 10_000 });
  await expect(page.locator('#hours-mon').inputValue()).resolves.toBe('09:00-12:00, 11:00-17:00');
  await page.locator('#hours-mon').fill('09:00-12:00, 13:00-17:00');
  await page.locator('#appointments-form button[type=submit]').click();
  await page.locator('#appointments-status', { hasText: 'Gespeichert.' }).waitFor({ timeout: 10_000 });
  expect((await admin('/plugins/appointments')).body.businessHours.mon).toEqual([
    ['09:00', '12:00'],
    ['13:00', '17:00'],
  ]);
  await page.locator('#rules-buffer-before').fill('15');
  await page.locator('#rules-overrides').fill('2026-12-24: 09:00-12:00\n2026-12-25: closed');
  await page.locator('#rules-form button[type=submit]').click();
  await page.locator('#rules-status', { hasText: 'Gespeichert.' }).waitFor({ timeout: 10_000 });
  expect((await admin('/plugins/appointments/rules')).body).toMatchObject({ bufferBeforeMinutes: 15, dateOverrides: { '2026-12-24': [['09:00', '12:00']], '2026-12-25': [] } });

  // Live chat: light grey text on white is warned about as it is typed (WCAG ratio), and saved with the server's warning.
  await page.locator('#settings-nav-chat').click();
  await page.locator('#theme-text').fill('#cccccc');
  await page.locator('#contrast-warning', { hasText: '1.61:1' }).waitFor();
  await page.locator('#chat-greeting').fill('Hallo!');
  await page.locator('#chat-greeting-de').fill('Guten Tag!');
  await page.locator('#chat-form button[type=submit]').click();
  await page.locator('#chat-status', { hasText: 'Gespeichert.' }).waitFor({ timeout: 10_000 });
  await page.locator('#chat-warnings').waitFor();
  const chat = (await admin('/plugins/live-chat')).body.settings;
  expect({ greeting: chat.greeting, greetings: chat.greetings, theme: chat.theme }).toEqual({ greeting: 'Hallo!', greetings: { de: 'Guten Tag!' }, theme: { text: '#cccccc' } });
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);
