import { chromium, type Browser } from 'playwright-core';

/** Headless Chromium found (or installed) by the global setup; see test/support/system-tools.ts. */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) throw new Error('CHROMIUM_PATH is unset: run the browser tests through `npm test` (its global setup finds Chromium).');
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
