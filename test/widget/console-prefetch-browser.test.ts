import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { OPERATOR, createWorkspace, eventually, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';

/**
 * A returning member's view asks for its first list with the page (console/src/prefetch.ts): the request
 * leaves before the app's script has run (its first own request comes later), once, and the app shows its answer. A remembered list
 * the view no longer asks for changes nothing the member sees; nobody logged in, nothing is asked.
 */

declare const localStorage: any;

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;

beforeAll(async () => {
  await buildConsole();
  node = await startTestNode();
  ws = await createWorkspace(node.url, { name: 'Prefetch Bakery' });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

// The team view: its list is asked for on arrival only (the chat list is asked for again on every connect).
const listPath = `/members`;
const isList = (url: string) => url.includes(`/admin/workspaces/`) && url.endsWith(listPath);
const isAppScript = (url: string) => /\/console\/console\.[0-9a-f]{16}\.js$/.test(url);

/** Every request the page makes from here on, in the order it made them. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (req) => urls.push(req.url()));
  return urls;
}

async function logInAtTeam(page: Page): Promise<void> {
  await page.goto(`${node.url}/console#/team`);
  await page.locator('#email').fill(OPERATOR.email);
  await page.locator('#password').fill(OPERATOR.password);
  await page.locator('#password').press('Enter');
  await page.locator('#workspace').waitFor({ state: 'visible', timeout: 10_000 });
  if ((await page.locator('#workspace').inputValue()) !== ws.id) await page.locator('#workspace').selectOption(ws.id);
  await shown(page);
}

/** The team view's list, the operator in it. */
const shown = (page: Page) => page.locator('#members li', { hasText: OPERATOR.email }).waitFor({ timeout: 10_000 });

test('a returning member: the view’s list is asked for before the app has run, once, and shown', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await logInAtTeam(page);

  const urls = recordRequests(page);
  await page.reload();
  await shown(page);

  const lists = urls.filter(isList);
  expect(lists).toHaveLength(1);
  // Before the app's own first request: it was asked for while the app's script loaded.
  expect(urls.findIndex(isList)).toBeLessThan(urls.findIndex((url) => url.endsWith('/admin/workspaces')));
  await context.close();
}, 60_000);

test('a remembered list the view no longer asks for: the view asks for its own and shows it', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await logInAtTeam(page);
  // As if the last load had shown the team of another workspace.
  const stale = `/admin/workspaces/${'0'.repeat(24)}/members`;
  await page.evaluate((path) => localStorage.setItem('hearth.console.first-list.team', path), stale);

  const urls = recordRequests(page);
  await page.reload();
  await shown(page);
  expect(urls.filter((url) => url.endsWith(stale))).toHaveLength(1);
  expect(urls.filter((url) => isList(url) && url.includes(ws.id))).toHaveLength(1);
  // And the next load asks early for what this one showed.
  await expect(page.evaluate(() => localStorage.getItem('hearth.console.first-list.team'))).resolves.toBe(`/admin/workspaces/${ws.id}/members`);
  await context.close();
}, 60_000);

test('a filter picked in the page is not what the next page asks for early: it opens with the view’s defaults', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await logInAtTeam(page);
  const remembered = () => page.evaluate(() => localStorage.getItem('hearth.console.first-list.submissions'));
  await page.locator('#nav-submissions').click();
  await page.locator('#submission-state').waitFor();
  await eventually(async () => (await remembered())?.includes('state=open') === true, 5_000);
  // Handled ones, then away and back: the view loads again, with the filter picked.
  await page.locator('#submission-state').selectOption('handled');
  await page.locator('#nav-team').click();
  await shown(page);
  await page.locator('#nav-submissions').click();
  await page.locator('#submission-state').waitFor();
  await expect(page.locator('#submission-state').inputValue()).resolves.toBe('handled');
  expect(await remembered()).toContain('state=open');
  await context.close();
}, 60_000);

test('logged out: the page asks the admin API for nothing', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await logInAtTeam(page);
  await page.locator('button', { hasText: 'Log out' }).click();
  await page.locator('#email').waitFor();

  const urls = recordRequests(page);
  await page.reload();
  await page.locator('#email').waitFor();
  await eventually(() => urls.some(isAppScript), 5_000);
  expect(urls.filter((url) => url.includes('/admin/'))).toEqual([]);
  await context.close();
}, 60_000);
