import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium, widgetPart as widget } from '../support/browser.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { putChatSettings } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole, buildDocs, buildWidget } from '../../scripts/build-widget.mjs';

/**
 * axe-core (every WCAG 2 A/AA rule it runs by default) reports no violation on the pages Hearth serves:
 * `/demo` with the widget closed and open, the console's login page, and `/docs` once Swagger UI has
 * rendered the document. Also: the widget embedded through the stable `/widget/widget.js` still works.
 */

// Browser globals used inside `page.evaluate` callbacks; the main tsconfig has no DOM lib.
 


let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;

beforeAll(async () => {
  await Promise.all([buildWidget(), buildConsole(), buildDocs()]);
  node = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  // Slug `demo`: the node's /demo page embeds this workspace's widget.
  ws = await createWorkspace(node.url, { slug: 'demo', name: 'Axe Bakery' });
  await putChatSettings(node.url, ws, { enabled: true, greeting: 'Hello from the axe bakery', forceOnline: true });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

async function withPage(run: (page: Page) => Promise<void>): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await run(await context.newPage());
  } finally {
    await context.close();
  }
}


test('/demo, the widget closed and open: no violations; the widget loads from /widget/widget.js and chats', async () => {
  await withPage(async (page) => {
    const scripts: string[] = [];
    page.on('request', (req) => {
      if (req.resourceType() === 'script') scripts.push(new URL(req.url()).pathname);
    });
    await page.goto(`${node.url}/demo`);
    await widget(page, '.launcher').waitFor({ state: 'visible' });
    expect(scripts).toContain('/widget/widget.js');
    expect(await axeViolations(page)).toEqual([]);

    await widget(page, '.launcher').click();
    await widget(page, 'textarea').waitFor({ state: 'visible' });
    await widget(page, 'textarea').fill('is this accessible?');
    await widget(page, 'textarea').press('Enter');
    await widget(page, 'text=is this accessible?').waitFor({ state: 'visible', timeout: 10_000 });
    const conversations = await eventually(async () => {
      const res = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=OPEN`, { token: ws.token });
      return res.body.items?.length ? res.body.items : null;
    }, 10_000);
    expect(conversations).toHaveLength(1);
    expect(await axeViolations(page)).toEqual([]);
  });
}, 60_000);

test('the console login page: no violations', async () => {
  await withPage(async (page) => {
    await page.goto(`${node.url}/console`);
    await page.locator('#email').waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });
}, 60_000);

test('/docs, Swagger UI rendered, with operations expanded: no violations', async () => {
  await withPage(async (page) => {
    await page.goto(`${node.url}/docs`);
    await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 20_000 });
    expect(await axeViolations(page)).toEqual([]);
    // A GET and a POST with a request body and response schemas, expanded.
    await page.locator('.opblock-summary-control').first().click();
    await page.locator('#operations-Workspaces-postAdminWorkspaces .opblock-summary-control').click();
    await page.locator('#operations-Workspaces-postAdminWorkspaces .opblock-body').waitFor({ state: 'visible' });
    await page.locator('#operations-Workspaces-postAdminWorkspaces .responses-wrapper').waitFor({ state: 'visible' });
    expect(await axeViolations(page)).toEqual([]);
  });
}, 60_000);
