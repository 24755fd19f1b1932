import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium, startCustomerSite, widgetPart as part, type CustomerSite } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contrastRatio } from '../../src/livechat/theme.js';
import { buildWidget } from '../../scripts/build-widget.mjs';

/**
 * The widget's words follow the page (`data-locale`, else `<html lang>`, else the browser), the workspace's
 * own greeting overrides per locale; on a 375x667 phone the launcher and the panel stay on screen with
 * 44 px targets and a 16 px input; the theme colour gets readable text, and the admin API warns about it.
 */

// Browser globals used inside `evaluate` callbacks; the main tsconfig has no DOM lib.
 
declare function getComputedStyle(element: unknown): any;

const UNREADABLE = '#b5651d'; // 4.34:1 against white
let node: HearthNode;
let site: CustomerSite | undefined;
let siteUrl: string;
let browser: Browser;
let ws: WorkspaceFixture;
let publishableKey: string;

async function putSettings(body: Record<string, unknown>) {
  return request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, {
    method: 'PUT',
    token: ws.token,
    body: { enabled: true, greeting: 'Hello from the bakery', greetings: { fr: 'Bonjour de la boulangerie' }, offlineMessage: null, forceOnline: true, ...body },
  });
}

beforeAll(async () => {
  await buildWidget();
  node = await startTestNode();
  // Slug `demo`: the node's /demo page embeds this workspace's widget.
  ws = await createWorkspace(node.url, { slug: 'demo', name: 'Demo Bakery' });
  const activated = await putSettings({ theme: { primary: UNREADABLE } });
  if (activated.status !== 200) throw new Error(`activation failed: ${activated.status} ${activated.text}`);
  publishableKey = activated.body.publishableKey;
  site = await startCustomerSite((url) => {
    const lang = (url.searchParams.get('lang') ?? '').replace(/[^A-Za-z-]/g, '');
    const dataLocale = (url.searchParams.get('locale') ?? '').replace(/[^A-Za-z-]/g, '');
    return `<!doctype html><html${lang ? ` lang="${lang}"` : ''}><head><meta charset="utf-8"><title>Site</title></head><body><h1>Site</h1>
<script src="${node.url}/widget/widget.js" data-publishable-key="${publishableKey}"${dataLocale ? ` data-locale="${dataLocale}"` : ''} async></script></body></html>`;
  });
  siteUrl = site.url;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await node?.stop();
});


async function words(page: Page) {
  await part(page, '.launcher').waitFor({ state: 'attached', timeout: 10_000 });
  return {
    open: await part(page, '.launcher').getAttribute('aria-label'),
    send: await part(page, '.send').textContent(),
    state: await part(page, '.state').textContent(),
    intro: await part(page, '.intro').textContent(),
    lang: await part(page, '.w').getAttribute('lang'),
  };
}

test.each([
  ['data-locale wins over the page and the browser', '?locale=de&lang=fr', 'es-ES', { open: 'Chat öffnen', send: 'Senden', state: 'Wir sind online', intro: 'Hello from the bakery', lang: 'de' }],
  ["the page's language, with the workspace's own French greeting", '?lang=fr-CA', 'de-DE', { open: 'Ouvrir le chat', send: 'Envoyer', state: 'Nous sommes en ligne', intro: 'Bonjour de la boulangerie', lang: 'fr' }],
  ["the browser's language when the page names none", '', 'es-MX', { open: 'Abrir el chat', send: 'Enviar', state: 'Estamos en línea', intro: 'Hello from the bakery', lang: 'es' }],
  ['English for a language the widget does not speak', '?lang=nl', 'nl-NL', { open: 'Open chat', send: 'Send', state: 'We are online', intro: 'Hello from the bakery', lang: 'en' }],
])('strings per locale: %s', async (_name, query, browserLocale, expected) => {
  const context = await browser.newContext({ locale: browserLocale });
  try {
    const page = await context.newPage();
    await page.goto(siteUrl + query);
    await expect(words(page)).resolves.toEqual(expected);
  } finally {
    await context.close();
  }
}, 30_000);

test("the workspace's own wording replaces the widget's strings per locale; the rest stays in the visitor's language", async () => {
  const saved = await putSettings({ widgetStrings: { '*': { send: 'Ship it' }, de: { send: 'Los', online: 'Wir sind für Sie da' } } });
  expect(saved.status).toBe(200);
  const context = await browser.newContext({ locale: 'en-US' });
  try {
    const page = await context.newPage();
    await page.goto(`${siteUrl}?locale=de-AT`);
    await expect(words(page)).resolves.toEqual({ open: 'Chat öffnen', send: 'Los', state: 'Wir sind für Sie da', intro: 'Hello from the bakery', lang: 'de' });
    await page.goto(`${siteUrl}?locale=es`);
    await expect(words(page)).resolves.toEqual({ open: 'Abrir el chat', send: 'Ship it', state: 'Estamos en línea', intro: 'Hello from the bakery', lang: 'es' });
  } finally {
    await context.close();
    await putSettings({ theme: { primary: UNREADABLE } });
  }
}, 30_000);

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not rendered');
  return b;
}

function onScreen(b: { x: number; y: number; width: number; height: number }, viewport: { width: number; height: number }) {
  return b.x >= 0 && b.y >= 0 && b.x + b.width <= viewport.width && b.y + b.height <= viewport.height;
}

test('on a 375x667 phone /demo keeps the launcher and the full-screen panel on screen, with 44 px targets and a 16 px input', async () => {
  const viewport = { width: 375, height: 667 };
  const context = await browser.newContext({ viewport, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  try {
    const page = await context.newPage();
    await page.goto(`${node.url}/demo`);
    await part(page, '.launcher').waitFor({ state: 'visible', timeout: 10_000 });
    // The demo's wide code sample scrolls inside itself rather than widening the page.
    const pageWidth = await page.evaluate('document.documentElement.scrollWidth');
    expect(pageWidth).toBeLessThanOrEqual(viewport.width);
    const launcher = await box(part(page, '.launcher'));
    expect(onScreen(launcher, viewport)).toBe(true);
    expect(Math.min(launcher.width, launcher.height)).toBeGreaterThanOrEqual(44);

    await part(page, '.launcher').tap();
    const panel = await box(part(page, '.panel'));
    expect(onScreen(panel, viewport)).toBe(true);
    expect(panel.width).toBeGreaterThanOrEqual(viewport.width - 1);
    expect(panel.height).toBeGreaterThanOrEqual(viewport.height - 1);
    for (const selector of ['.x', '.send', 'textarea']) {
      const b = await box(part(page, selector));
      expect({ selector, onScreen: onScreen(b, viewport), small: Math.min(b.width, b.height) < 44 }).toEqual({ selector, onScreen: true, small: false });
    }
    await expect(part(page, 'textarea').evaluate((el) => getComputedStyle(el).fontSize)).resolves.toBe('16px');
    await part(page, '.x').tap();
    expect(onScreen(await box(part(page, '.launcher')), viewport)).toBe(true);
  } finally {
    await context.close();
  }
}, 60_000);

test('a theme colour failing 4.5:1 with white gets readable text in the widget', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${siteUrl}?lang=en`);
    await part(page, '.launcher').click();
    const [background, color] = await part(page, '.send').evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
    expect(background).toBe('rgb(181, 101, 29)');
    expect(contrastRatio(color, background)).toBeGreaterThanOrEqual(4.5);
    const launcherColor = await part(page, '.launcher').evaluate((el) => getComputedStyle(el).color);
    expect(contrastRatio(launcherColor, background)).toBeGreaterThanOrEqual(4.5);
  } finally {
    await context.close();
  }
}, 30_000);

test('PUT live-chat settings warns about theme colours below 4.5:1 and saves them anyway', async () => {
  const failing = await putSettings({ theme: { primary: UNREADABLE, '--hearth-primary-text': '#ffffff' } });
  expect(failing.status).toBe(200);
  expect(failing.body.settings.theme).toEqual({ primary: UNREADABLE, '--hearth-primary-text': '#ffffff' });
  expect(failing.body.warnings).toEqual([
    expect.stringContaining(`primary (${UNREADABLE}) has a contrast of 4.34:1`),
    expect.stringContaining('primary-text (#ffffff) has a contrast of 4.34:1'),
  ]);
  // #767676 on white is 4.54:1, the lightest grey that passes; #777777 (4.48:1) does not.
  const passing = await putSettings({ theme: { primary: '#767676', textColor: '#1d2330' } });
  expect(passing.body.warnings).toEqual([]);
  const justFailing = await putSettings({ theme: { primary: '#777777' } });
  expect(justFailing.body.warnings).toEqual([expect.stringContaining('primary (#777777) has a contrast of 4.48:1')]);
  const none = await putSettings({ theme: null });
  expect(none.body.warnings).toEqual([]);
});

test('while nobody is online the widget asks for an optional e-mail, refuses a malformed one and sends a valid one with the message', async () => {
  await putSettings({ forceOnline: false, offlineMessage: 'We are away' });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${siteUrl}?lang=en`);
    await part(page, '.launcher').click();
    await expect(part(page, '.email').isVisible()).resolves.toBe(true);
    await part(page, '#hearth-email').fill('not-an-address');
    await part(page, 'textarea').fill('Do you deliver?');
    await part(page, 'textarea').press('Enter');
    await expect(part(page, '.notice').textContent()).resolves.toBe('Please enter a valid e-mail address, or leave the field empty.');
    await expect(part(page, '[role="log"] li').count()).resolves.toBe(0);
    await part(page, '#hearth-email').fill('ada@example.com');
    await part(page, 'textarea').press('Enter');
    await eventually(async () => (await part(page, '[role="log"] li').count()) === 1, 10_000);
    // The message can be drawn (pushed back over the socket) before the send's answer hides the field.
    await eventually(async () => !(await part(page, '.email').isVisible()), 10_000);
    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token });
    const conversation = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${list.body.items[0].id}`, { token: ws.token });
    expect(JSON.stringify(conversation.body)).toContain('ada@example.com');
  } finally {
    await context.close();
    await putSettings({ forceOnline: true });
  }
}, 60_000);
