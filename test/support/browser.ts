import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

/** Headless Chromium found (or installed) by the global setup; see test/support/system-tools.ts. */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) throw new Error('CHROMIUM_PATH is unset: run the browser tests through `npm test` (its global setup finds Chromium).');
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** A part of the embedded widget (inside its shadow root), by CSS selector. */
export function widgetPart(page: Page, selector: string): Locator {
  return page.locator(`[data-hearth-widget] >> ${selector}`);
}

/** A customer's site on its own origin (another port), where the widget is embedded. */
export interface CustomerSite {
  /** The site's root URL, ending in `/`. */
  url: string;
  close(): Promise<void>;
}

/** Serves, for every request, the HTML page `render` makes from the request's URL. */
export async function startCustomerSite(render: (url: URL) => string): Promise<CustomerSite> {
  const server: Server = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(render(new URL(req.url ?? '/', 'http://site.test')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const AXE = join(createRequire(import.meta.url).resolve('axe-core'), '..', 'axe.min.js');

/** axe's violations on the page as it is now, one line per rule with its impact and first offending nodes. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    interface AxeResult {
      violations: { id: string; impact: string; nodes: { html: string }[] }[];
    }
    const axe = (globalThis as unknown as { axe: { run(context: unknown): Promise<AxeResult> } }).axe;
    const { violations } = await axe.run((globalThis as unknown as { document: unknown }).document);
    return violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes): ${v.nodes.slice(0, 3).map((n) => n.html.slice(0, 160)).join(' | ')}`);
  });
}

/** The team app in a browser context: the page, the errors it threw and the URLs it asked for. */
export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  errors: string[];
  requested: string[];
}

/**
 * Opens the team app at `hash` of the node at `nodeUrl` and picks `workspaceId`: in a new context (`width`,
 * `locale`) where `user` signs in, or in `context`, already signed in.
 */
export async function openConsole(
  browser: Browser,
  nodeUrl: string,
  workspaceId: string,
  options: { hash: string; user?: { email: string; password: string }; width?: number; locale?: string; context?: BrowserContext },
): Promise<ConsolePage> {
  const context = options.context ?? (await browser.newContext({ locale: options.locale ?? 'en-US', viewport: { width: options.width ?? 1280, height: 900 } }));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const requested: string[] = [];
  page.on('request', (req) => requested.push(req.url()));
  await page.goto(`${nodeUrl}/console${options.hash}`);
  if (options.user) {
    await page.locator('#email').fill(options.user.email);
    await page.locator('#password').fill(options.user.password);
    await page.locator('#password').press('Enter');
  }
  await page.locator('#workspace').waitFor({ state: 'visible', timeout: 10_000 });
  if ((await page.locator('#workspace').inputValue()) !== workspaceId) await page.locator('#workspace').selectOption(workspaceId);
  return { context, page, errors, requested };
}

/** Whether the page scrolls sideways (at 375 px nothing may). */
export const overflowsSideways = (page: Page) =>
  page.evaluate(() => {
    const { documentElement } = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return documentElement.scrollWidth > documentElement.clientWidth;
  });
