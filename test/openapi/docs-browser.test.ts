import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';

// /docs in a real browser: Swagger UI renders every operation of /openapi.json with nothing fetched
// from outside this server (no CDN at run time).

let node: HearthNode;
let browser: Browser;
beforeAll(async () => {
  node = await startTestNode();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

test('renders one block per operation, loading only from this server', async () => {
  const document = (await request(node.url, '/openapi.json')).body as { paths: Record<string, Record<string, unknown>>; webhooks?: Record<string, Record<string, unknown>> };
  // Webhook events (OpenAPI 3.1 `webhooks`) render as operation blocks too.
  const operations = [...Object.values(document.paths), ...Object.values(document.webhooks ?? {})].reduce((sum, ops) => sum + Object.keys(ops).length, 0);
  expect(Object.keys(document.webhooks ?? {}).length).toBeGreaterThan(0);
  const page = await browser.newPage();
  const foreign: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(node.url) || url.startsWith('data:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${node.url}/docs`);
  await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 20_000 });
  expect(await page.locator('.opblock').count()).toBe(operations);
  await expect(page.locator('.info .title').textContent()).resolves.toContain('Hearth API');
  expect(foreign).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);
