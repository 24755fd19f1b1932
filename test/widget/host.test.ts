import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createWorkspace, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ensureKey } from '../../src/credentials/credentials.service.js';
import { buildWidget, WIDGET_OUTFILE } from '../../scripts/build-widget.mjs';

/** The widget's non-JSON handlers: the bundle, the demo page and the agent console page. */

let node: HearthNode;
beforeAll(async () => {
  if (!existsSync(WIDGET_OUTFILE)) await buildWidget();
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

test('the bundle is served as JavaScript, loadable from any origin', async () => {
  const res = await fetch(`${node.url}/widget/widget.js`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const code = await res.text();
  expect(code.length).toBeGreaterThan(1000);
  expect(code).toContain('data-hearth-widget');
});

test('the built bundle stays inside the 40 KB gzipped budget', async () => {
  const { gzipped, withinBudget } = await buildWidget();
  expect(gzipped).toBeLessThanOrEqual(40 * 1024);
  expect(withinBudget).toBe(true);
});

test('/demo explains what is missing, then embeds the demo workspace with its publishable key', async () => {
  let res = await fetch(`${node.url}/demo`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toContain('does not exist yet');

  const ws = await createWorkspace(node.url, { slug: 'demo', name: 'Demo <Bakery>' });
  res = await fetch(`${node.url}/demo`);
  const withoutKey = await res.text();
  expect(withoutKey).toContain('not activated');
  expect(withoutKey).toContain('Demo &lt;Bakery&gt;');
  expect(withoutKey).not.toContain('<script src=');

  const publishableKey = await ensureKey(node.deps, ws.id, 'publishable');
  res = await fetch(`${node.url}/demo`);
  const page = await res.text();
  expect(page).toContain(`<script src="/widget/widget.js" data-publishable-key="${publishableKey}" async></script>`);
});

test('/console serves the agent console shell and its bundle', async () => {
  const res = await fetch(`${node.url}/console`);
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain('<title>Agent console</title>');
  const script = html.match(/<script type="module" src="(\/console\/console\.[0-9a-f]{16}\.js)"><\/script>/)?.[1];
  expect(script).toBeDefined();
  const bundle = await fetch(`${node.url}${script}`);
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get('content-type')).toMatch(/^application\/javascript/);
  // An ES module split in chunks: every chunk it names (loaded at once or on demand) is served beside it.
  const chunks = [...(await bundle.text()).matchAll(/"\.\/([a-z0-9-]+\.[0-9a-f]{16}\.js)"/g)].map((match) => match[1]);
  expect(chunks.length).toBeGreaterThan(0);
  for (const chunk of chunks) expect((await fetch(`${node.url}/console/${chunk}`)).status).toBe(200);
});
