import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium, widgetPart } from '../support/browser.js';
import { OPERATOR, createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { putChatSettings } from '../livechat/support.js';
import { pdfOfSize, png } from '../media/media-files.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole, buildWidget } from '../../scripts/build-widget.mjs';

/**
 * Chat attachments in a real Chromium: the visitor pastes a screenshot into the widget (previewed, then
 * sent with a progress bar) and the agent sees it inline in the console; the agent attaches a PDF from the
 * keyboard and the visitor's widget shows a link that opens it. The files' URLs are the signed ones, so
 * the node runs with a PUBLIC_URL that points at itself.
 */

// Browser globals used inside `page.evaluate` callbacks; the main tsconfig has no DOM lib (module-scoped).
declare const document: any;
declare const DataTransfer: any;
declare const ClipboardEvent: any;
declare const File: any;
declare const DragEvent: any;

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  await Promise.all([buildWidget(), buildConsole()]);
  const port = await freePort();
  node = await startTestNode({ env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '10000' } });
  // Slug `demo`: the node's /demo page embeds this workspace's widget.
  ws = await createWorkspace(node.url, { slug: 'demo', name: 'Attachment Bakery' });
  await putChatSettings(node.url, ws, { enabled: true, greeting: 'Hello', offlineMessage: null, forceOnline: true });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
});

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

test('a pasted screenshot reaches the console inline; an agent PDF reaches the widget as a link that opens it', async () => {
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const agentContext = await browser.newContext({ locale: 'en-US' });
  try {
    // The visitor: open the widget, paste a screenshot into the message field.
    const visitor = await visitorContext.newPage();
    const visitorErrors = watchErrors(visitor);
    await visitor.goto(`${node.url}/demo`);
    await widgetPart(visitor, '.launcher').click();
    const input = widgetPart(visitor, 'textarea');
    await input.waitFor({ state: 'visible' });
    const screenshot = (await png(120, 80)).toString('base64');
    await visitor.evaluate((base64: string) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'screenshot.png', { type: 'image/png' }));
      const field = document.querySelector('[data-hearth-widget]').shadowRoot.querySelector('textarea');
      field.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, screenshot);
    // Previewed before it is sent: a thumbnail and the name, with a way to remove it.
    await widgetPart(visitor, '.preview img').waitFor({ state: 'visible' });
    await expect(widgetPart(visitor, '.preview span').textContent()).resolves.toBe('screenshot.png');
    await expect(widgetPart(visitor, '.preview button').getAttribute('aria-label')).resolves.toBe('Remove the file');
    expect(await axeViolations(visitor)).toEqual([]);
    await input.press('Enter');
    const sentImage = widgetPart(visitor, '[role="log"] li[data-sender="VISITOR"] img[alt="screenshot.png"]');
    await sentImage.waitFor({ state: 'visible', timeout: 10_000 });
    await widgetPart(visitor, '.preview').waitFor({ state: 'hidden' });
    await eventually(async () => (await sentImage.evaluate((img: { naturalWidth: number }) => img.naturalWidth)) === 120, 10_000);

    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=OPEN`, { token: ws.token });
    const cid = list.body.items[0].id as string;

    // The agent: the screenshot is inline in the conversation, its name as the alternative text.
    const agent = await agentContext.newPage();
    const agentErrors = watchErrors(agent);
    await agent.goto(`${node.url}/console#/chats/${cid}`);
    await agent.locator('#email').fill(OPERATOR.email);
    await agent.locator('#password').fill(OPERATOR.password);
    await agent.locator('#login button[type="submit"]').click();
    const entry = agent.locator(`#conv-${cid}`);
    await entry.waitFor({ state: 'visible', timeout: 10_000 });
    await entry.click();
    const inline = agent.locator('#messages li[data-sender="VISITOR"] img[alt="screenshot.png"]');
    await inline.waitFor({ state: 'visible', timeout: 10_000 });
    await eventually(async () => (await inline.evaluate((img: { naturalWidth: number }) => img.naturalWidth)) === 120, 10_000);

    // The agent attaches a PDF from the keyboard: the button opens the file picker.
    const pdf = pdfOfSize(2048);
    // From the reply field, Tab reaches the attach button.
    const focused = () => agent.evaluate(() => document.activeElement?.id as string | undefined);
    await agent.locator('#body').click();
    await agent.keyboard.press('Tab');
    expect(await focused()).toBe('attach');
    // Enter on it opens the file picker. Headless Chromium now and then drops the first picker request of a
    // page (no `filechooser` event although the click ran), so the key is pressed again then.
    const chooser = await (async () => {
      for (let attempt = 1; ; attempt += 1) {
        const waiting = agent.waitForEvent('filechooser', { timeout: 5_000 });
        await agent.locator('#attach').press('Enter');
        try {
          return await waiting;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    })();
    await chooser.setFiles({ name: 'offer.pdf', mimeType: 'application/pdf', buffer: pdf });
    await agent.locator('#messages li[data-sender="AGENT"] a', { hasText: 'offer.pdf' }).waitFor({ state: 'visible', timeout: 10_000 });
    expect(await axeViolations(agent)).toEqual([]);

    // The visitor's widget shows a link named by the file; it opens the PDF.
    const link = widgetPart(visitor, '[role="log"] li[data-sender="AGENT"] a');
    await link.waitFor({ state: 'visible', timeout: 10_000 });
    await expect(link.textContent()).resolves.toBe('offer.pdf');
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/\/chat-files\/[0-9a-f]{24}\/[0-9a-f]{32}\/[0-9a-f]{32}\/offer\.pdf$/);
    const opened = await visitor.request.get(href);
    expect(opened.status()).toBe(200);
    expect(Buffer.from(await opened.body()).equals(pdf)).toBe(true);

    // A file dropped on the panel is previewed too (a PDF: its name, no thumbnail), and can be removed unsent.
    await visitor.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['%PDF-1.4\n%%EOF\n'], 'dropped.pdf', { type: 'application/pdf' }));
      const panel = document.querySelector('[data-hearth-widget]').shadowRoot.querySelector('.panel');
      panel.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await widgetPart(visitor, '.preview').waitFor({ state: 'visible' });
    await expect(widgetPart(visitor, '.preview span').textContent()).resolves.toBe('dropped.pdf');
    await expect(widgetPart(visitor, '.preview img').isHidden()).resolves.toBe(true);
    await widgetPart(visitor, '.preview button').click();
    await widgetPart(visitor, '.preview').waitFor({ state: 'hidden' });

    expect(visitorErrors).toEqual([]);
    expect(agentErrors).toEqual([]);
  } finally {
    await visitorContext.close();
    await agentContext.close();
  }
}, 120_000);
