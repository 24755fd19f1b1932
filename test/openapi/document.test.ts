import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/server.js';
import { allRoutes } from '../../src/http/routes.js';
import { buildOpenApiDocument, toOpenApiPath, type OpenApiDocument } from '../../src/openapi/document.js';

// The served document of the real app: valid OpenAPI 3.1, complete against Express, faithful to the spec's auth table.

let node: HearthNode;
let document: OpenApiDocument;
beforeAll(async () => {
  node = await startTestNode();
  const res = await request(node.url, '/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
});
afterAll(async () => {
  await node.stop();
});

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  rawPath?: string;
  handle?: { stack?: Layer[] };
}

/** Every (method, path) Express will answer, nested routers included. */
function registeredRoutes(stack: Layer[], prefix = ''): { method: string; path: string }[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      return paths.flatMap((path) => Object.keys(layer.route!.methods).filter((method) => method !== '_all').map((method) => ({ method, path: prefix + path })));
    }
    if (layer.handle?.stack) return registeredRoutes(layer.handle.stack, prefix + (layer.rawPath ?? ''));
    return [];
  });
}

describe('GET /openapi.json', () => {
  test('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  test('the route declarations convert without problems (no id clashes, no paths OpenAPI cannot express, a 2xx on every route)', () => {
    expect(buildOpenApiDocument(allRoutes).problems).toEqual([]);
  });

  test('is open to any origin so client generators and hosted viewers can fetch it', async () => {
    const res = await request(node.url, '/openapi.json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('every route Express answers is in the document, and every documented operation is registered', () => {
    const registered = registeredRoutes((node.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const documented = new Set(Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`)));
    const isApi = (path: string) => path.startsWith('/external') || path.startsWith('/admin') || allRoutes.some((def) => def.path === path);
    const missing = registered.filter((r) => isApi(r.path) && !documented.has(`${r.method} ${toOpenApiPath(r.path)}`));
    expect(missing).toEqual([]);
    const registeredKeys = new Set(registered.map((r) => `${r.method} ${toOpenApiPath(r.path)}`));
    expect([...documented].filter((key) => !registeredKeys.has(key))).toEqual([]);
    // The walk itself must see the declared routes, or it proves nothing.
    expect(registered.filter((r) => isApi(r.path)).length).toBeGreaterThanOrEqual(allRoutes.length);
  });

  test('every operation has a unique operationId, a summary, tags and a 2xx answer (what client generators need)', () => {
    const operations = Object.values(document.paths).flatMap((ops) => Object.values(ops));
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of operations) {
      expect(op.summary).toBeTruthy();
      expect(op.tags.length).toBeGreaterThan(0);
      expect(Object.keys(op.responses).some((status) => status.startsWith('2'))).toBe(true);
    }
  });

  test('every error answer of every operation is the spec error body; authenticated routes document 401, /external routes 429', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const op of Object.values(operations)) {
        if (op['x-hearth-auth'] !== 'none') expect({ path, has401: '401' in op.responses }).toEqual({ path, has401: true });
        if (path.startsWith('/external/')) expect({ path, has429: '429' in op.responses }).toEqual({ path, has429: true });
        for (const [status, response] of Object.entries(op.responses)) {
          const schema = response.content?.['application/json']?.schema;
          if (Number(status) >= 400 && schema) expect(schema).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
    }
  });
});

// The spec's endpoint table (external-api.md, "Endpoints"): `key` workspace key, `pub` publishable key,
// `conv` / `canc` path tokens. The generator must express each auth column as the right security.
const SPEC_ENDPOINTS: [string, string, 'key' | 'key or pub' | 'pub' | 'conv' | 'canc'][] = [
  ['get', '/external/workspace', 'key'],
  ['get', '/external/posts', 'key'],
  ['get', '/external/posts/:slug', 'key'],
  ['get', '/external/categories', 'key'],
  ['get', '/external/navigations/:key', 'key'],
  ['get', '/external/analytics-config', 'key'],
  ['post', '/external/submissions', 'key'],
  ['get', '/external/appointments/availability', 'key or pub'],
  ['post', '/external/appointments/requests', 'key'],
  ['post', '/external/appointments/requests/lookup', 'key'],
  ['get', '/external/appointments/requests/:token', 'canc'],
  ['post', '/external/appointments/requests/:token/cancel', 'canc'],
  ['get', '/external/live-chat/config', 'pub'],
  ['post', '/external/live-chat/conversations', 'pub'],
  ['post', '/external/live-chat/conversations/:token/messages', 'conv'],
  ['get', '/external/live-chat/conversations/:token/messages', 'conv'],
  ['get', '/external/live-chat/bootstrap', 'key'],
];

describe('the spec endpoints', () => {
  const schemesOf = (security: Record<string, string[]>[]) => security.flatMap((requirement) => Object.keys(requirement)).sort();
  const present = () => SPEC_ENDPOINTS.filter(([method, path]) => document.paths[toOpenApiPath(path)]?.[method]);

  test('each one that exists carries the spec auth as its security', () => {
    for (const [method, path, auth] of present()) {
      const op = document.paths[toOpenApiPath(path)][method];
      const schemes = schemesOf(op.security);
      const pub = method === 'get' ? ['PublishableKey', 'PublishableKeyQuery'] : ['PublishableKey'];
      const expected = { key: ['ApiKey'], 'key or pub': ['ApiKey', ...pub].sort(), pub, conv: [], canc: [] }[auth];
      expect({ path, method, schemes }).toEqual({ path, method, schemes: expected });
      if (auth === 'conv' || auth === 'canc') {
        const token = op.parameters!.find((p) => p.name === 'token')!;
        expect(token.description).toMatch(auth === 'conv' ? /^Conversation token/ : /^Cancellation token/);
      }
      // Only publishable routes may also answer `enabled: false` without a key; none of them is broad.
      if (auth === 'key') expect(op.security).not.toContainEqual({});
    }
  });

  test('report: spec endpoints not yet declared by any route', () => {
    const missing = SPEC_ENDPOINTS.filter(([method, path]) => !document.paths[toOpenApiPath(path)]?.[method]).map(([m, p]) => `${m.toUpperCase()} ${p}`);
    // Domains land one by one; this lists what is still missing (it fails once HEARTH_REQUIRE_FULL_SPEC=1).
    if (missing.length) console.info(`spec endpoints not in the document yet:\n  ${missing.join('\n  ')}`);
    if (process.env.HEARTH_REQUIRE_FULL_SPEC === '1') expect(missing).toEqual([]);
  });
});

describe('/docs', () => {
  test('renders Swagger UI from this server (no CDN) over /openapi.json', async () => {
    const page = await request(node.url, '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
    for (const asset of assets) {
      const res = await fetch(node.url + asset);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      const text = await res.text();
      expect(text.length).toBeGreaterThan(asset.endsWith('init.js') ? 50 : 10_000);
    }
    const init = await request(node.url, '/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
    expect(init.headers.get('content-type')).toMatch(/javascript/);
  });
});
