import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contentAdmin } from './content-helpers.js';

let node: HearthNode;
let a: WorkspaceFixture;
let b: WorkspaceFixture;
const ids: Record<string, string> = {};
beforeAll(async () => {
  node = await startTestNode();
  a = await createWorkspace(node.url);
  b = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, a);
  const category = await admin.category('news');
  ids.category = category.id;
  ids.post = (await admin.published({ slug: 'a-only', title: 'A only', categoryId: category.id })).id;
  const nav = await admin.navigation('a-header');
  ids.nav = nav.id;
  await admin.items(nav.id, [{ parentId: null, position: 0, type: 'HEADING', labels: { en: 'A' } }]);
});
afterAll(async () => {
  await node.stop();
});

test.each(['/external/posts', '/external/posts/a-only', '/external/categories', '/external/navigations/a-header', '/external/analytics-config'])(
  '%s: ETag, Vary on the credential, no-cache, and 304 on If-None-Match',
  async (path) => {
    const first = await request(node.url, path, { apiKey: a.apiKey });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get('vary')).toContain('X-Api-Key');
    expect(first.headers.get('vary')).toContain('X-Publishable-Key');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const second = await request(node.url, path, { apiKey: a.apiKey, headers: { 'If-None-Match': etag! } });
    expect(second.status).toBe(304);
    expect(second.text).toBe('');
    expect(second.headers.get('vary')).toContain('X-Api-Key');
    const stale = await request(node.url, path, { apiKey: a.apiKey, headers: { 'If-None-Match': 'W/"stale"' } });
    expect(stale.status).toBe(200);
  },
);

test('a publish changes the list ETag, so a revalidating cache gets the new body', async () => {
  const ws = await createWorkspace(node.url);
  const first = await request(node.url, '/external/posts', { apiKey: ws.apiKey });
  await contentAdmin(node.url, ws).published({ slug: 'fresh', title: 'Fresh' });
  const second = await request(node.url, '/external/posts', { apiKey: ws.apiKey, headers: { 'If-None-Match': first.headers.get('etag')! } });
  expect(second.status).toBe(200);
  expect(second.body.items).toHaveLength(1);
});

test("another workspace's key never reaches this workspace's content (external)", async () => {
  const get = (path: string) => request(node.url, path, { apiKey: b.apiKey });
  expect((await get('/external/posts/a-only')).status).toBe(404);
  expect((await get('/external/posts?type=*')).body.items).toEqual([]);
  expect((await get('/external/posts?q=a-only')).body.items).toEqual([]);
  expect((await get('/external/categories?locale=*')).body.items).toEqual([]);
  expect((await get('/external/navigations/a-header')).status).toBe(404);
});

test("cross-tenant ids answer 404 on every admin content route", async () => {
  // b's owner is the operator in these tests; use b's workspace id with a's resource ids.
  const call = (method: string, path: string, body?: unknown) =>
    request(node.url, `/admin/workspaces/${b.id}${path}`, { token: b.token, method, body: body ?? (method === 'GET' || method === 'DELETE' ? undefined : {}) });
  const statuses = await Promise.all([
    call('GET', `/posts/${ids.post}`),
    call('PATCH', `/posts/${ids.post}`, { title: 'stolen' }),
    call('POST', `/posts/${ids.post}/publish`),
    call('POST', `/posts/${ids.post}/unpublish`),
    call('DELETE', `/posts/${ids.post}`),
    call('PATCH', `/categories/${ids.category}`, { name: 'stolen' }),
    call('DELETE', `/categories/${ids.category}`),
    call('GET', `/navigations/${ids.nav}`),
    call('PATCH', `/navigations/${ids.nav}`, { name: 'stolen' }),
    call('PUT', `/navigations/${ids.nav}/items`, { items: [] }),
    call('DELETE', `/navigations/${ids.nav}`),
  ]);
  expect(statuses.map((res) => res.status)).toEqual(Array(11).fill(404));
  // b cannot attach a's post to its own content either.
  const bNav = await contentAdmin(node.url, b).navigation('b-nav');
  expect((await call('PUT', `/navigations/${bNav.id}/items`, { items: [{ parentId: null, position: 0, type: 'POST', postId: ids.post }] })).status).toBe(400);
  expect((await call('POST', '/posts', { locale: 'en', slug: 'x', title: 'X', translationOf: ids.post })).status).toBe(400);
  // ...and a's content is untouched.
  expect((await request(node.url, '/external/posts/a-only', { apiKey: a.apiKey })).body.title).toBe('A only');
  expect((await request(node.url, '/external/navigations/a-header', { apiKey: a.apiKey })).body.items).toHaveLength(1);
});

test('analytics config: only {enabled:false} until set up, then the tracker fields', async () => {
  const ws = await createWorkspace(node.url);
  const off = await request(node.url, '/external/analytics-config', { apiKey: ws.apiKey });
  expect(off.status).toBe(200);
  expect(off.body).toEqual({ enabled: false });
  const settings = { websiteId: '0b7c5b52-3d1f-4a5e-9f0e-2f1d2c3b4a59', scriptUrl: 'https://stats.example/script.js' };
  const patched = await request(node.url, `/admin/workspaces/${ws.id}`, { token: ws.token, method: 'PATCH', body: { analytics: settings } });
  expect(patched.status).toBe(200);
  expect((await request(node.url, '/external/analytics-config', { apiKey: ws.apiKey })).body).toEqual({ enabled: true, ...settings });
  await request(node.url, `/admin/workspaces/${ws.id}`, { token: ws.token, method: 'PATCH', body: { analytics: null } });
  expect((await request(node.url, '/external/analytics-config', { apiKey: ws.apiKey })).body).toEqual({ enabled: false });
  expect((await request(node.url, '/external/analytics-config')).status).toBe(401);
});
