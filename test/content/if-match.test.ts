import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contentAdmin } from './content-helpers.js';

// Optimistic concurrency for editors over HTTP: the version as a strong ETag, If-Match on PATCH, 412.
let node: HearthNode;
let ws: WorkspaceFixture;
beforeAll(async () => {
  node = await startTestNode();
  ws = await createWorkspace(node.url);
});
afterAll(async () => {
  await node.stop();
});

const path = (pid: string) => `/admin/workspaces/${ws.id}/posts/${pid}`;
const patch = (pid: string, body: Record<string, unknown>, ifMatch?: string) =>
  request(node.url, path(pid), { method: 'PATCH', token: ws.token, body, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });

test('create, read, save, publish and unpublish answer the version as the ETag; each change bumps it', async () => {
  const created = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'en', slug: 'etag', title: 'One' } });
  expect(created.status).toBe(201);
  expect([created.body.version, created.headers.get('etag')]).toEqual([0, '"0"']);
  const read = await request(node.url, path(created.body.id), { token: ws.token });
  expect(read.headers.get('etag')).toBe('"0"');

  const saved = await patch(created.body.id, { title: 'Two' }, '"0"');
  expect([saved.status, saved.body.version, saved.headers.get('etag')]).toEqual([200, 1, '"1"']);
  const published = await request(node.url, `${path(created.body.id)}/publish`, { token: ws.token, body: {} });
  expect([published.status, published.headers.get('etag')]).toEqual([200, '"2"']);
  // A no-op republish changes nothing: same version.
  const again = await request(node.url, `${path(created.body.id)}/publish`, { token: ws.token, body: {} });
  expect(again.headers.get('etag')).toBe('"2"');
  const unpublished = await request(node.url, `${path(created.body.id)}/unpublish`, { token: ws.token, body: {} });
  expect([unpublished.status, unpublished.headers.get('etag')]).toEqual([200, '"3"']);
});

test('If-Match naming an older version: 412 version_mismatch naming the current one, nothing written', async () => {
  const post = await contentAdmin(node.url, ws).createPost({ slug: 'stale', title: 'Original', metaDescription: 'Kept' });
  expect((await patch(post.id, { title: 'First' }, '"0"')).status).toBe(200);

  const stale = await patch(post.id, { title: 'Second', metaDescription: 'Lost?' }, '"0"');
  expect(stale.status).toBe(412);
  expect(stale.body.code).toBe('version_mismatch');
  expect(stale.body.message).toContain('version 1');
  const stored = await request(node.url, path(post.id), { token: ws.token });
  expect([stored.body.title, stored.body.metaDescription, stored.body.version]).toEqual(['First', 'Kept', 1]);
});

test('If-Match forms: a list naming the current version, and *, pass; a weak or foreign tag never matches; no header writes', async () => {
  const post = await contentAdmin(node.url, ws).createPost({ slug: 'forms', title: 'Original' });
  expect((await patch(post.id, { title: 'A' }, '"7", "0"')).status).toBe(200);
  expect((await patch(post.id, { title: 'B' }, '*')).status).toBe(200);
  expect((await patch(post.id, { title: 'C' }, 'W/"2"')).status).toBe(412);
  expect((await patch(post.id, { title: 'C' }, 'garbage')).status).toBe(412);
  const unconditional = await patch(post.id, { title: 'D' });
  expect([unconditional.status, unconditional.body.title, unconditional.body.version]).toEqual([200, 'D', 3]);
});

test('a save writes only the fields sent: another editor\'s field saved meanwhile is kept', async () => {
  const post = await contentAdmin(node.url, ws).createPost({ slug: 'fields', title: 'Original', contentMarkdown: 'Body' });
  expect((await patch(post.id, { metaDescription: 'From Bea' })).status).toBe(200);
  const mine = await patch(post.id, { title: 'From Al' });
  expect(mine.body).toMatchObject({ title: 'From Al', metaDescription: 'From Bea', contentMarkdown: 'Body' });
});

test('navigations: the version as the ETag on create, read, rename and item saves; a stale If-Match is 412 and writes nothing', async () => {
  const base = `/admin/workspaces/${ws.id}/navigations`;
  const created = await request(node.url, base, { token: ws.token, body: { key: 'etag-menu', name: 'Menu' } });
  expect([created.status, created.body.version, created.headers.get('etag')]).toEqual([201, 0, '"0"']);
  const nav = `${base}/${created.body.id}`;
  expect((await request(node.url, nav, { token: ws.token })).headers.get('etag')).toBe('"0"');

  const renamed = await request(node.url, nav, { method: 'PATCH', token: ws.token, body: { name: 'Main menu' }, headers: { 'If-Match': '"0"' } });
  expect([renamed.status, renamed.headers.get('etag')]).toEqual([200, '"1"']);
  const item = { id: 'home', parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home' } };
  const items = await request(node.url, `${nav}/items`, { method: 'PUT', token: ws.token, body: { items: [item] }, headers: { 'If-Match': '"1"' } });
  expect([items.status, items.body.version, items.headers.get('etag')]).toEqual([200, 2, '"2"']);

  // Another editor saved meanwhile: both kinds of save by someone still at version 1 are refused.
  const staleRename = await request(node.url, nav, { method: 'PATCH', token: ws.token, body: { name: 'Lost' }, headers: { 'If-Match': '"1"' } });
  expect([staleRename.status, staleRename.body.code]).toEqual([412, 'version_mismatch']);
  expect(staleRename.body.message).toContain('version 2');
  const staleItems = await request(node.url, `${nav}/items`, { method: 'PUT', token: ws.token, body: { items: [] }, headers: { 'If-Match': '"1"' } });
  expect(staleItems.status).toBe(412);
  const stored = await request(node.url, nav, { token: ws.token });
  expect([stored.body.name, stored.body.items.length, stored.body.version]).toEqual(['Main menu', 1, 2]);
  // Without If-Match a save applies to whatever is stored.
  expect((await request(node.url, nav, { method: 'PATCH', token: ws.token, body: { name: 'Menu' } })).headers.get('etag')).toBe('"3"');
});

test('workspace settings: the version as the ETag; a stale If-Match is 412 and writes nothing', async () => {
  const own = await createWorkspace(node.url);
  const path = `/admin/workspaces/${own.id}`;
  const read = await request(node.url, path, { token: own.token });
  expect([read.body.version, read.headers.get('etag')]).toEqual([0, '"0"']);
  const saved = await request(node.url, path, { method: 'PATCH', token: own.token, body: { name: 'First' }, headers: { 'If-Match': '"0"' } });
  expect([saved.status, saved.body.version, saved.headers.get('etag')]).toEqual([200, 1, '"1"']);
  const stale = await request(node.url, path, { method: 'PATCH', token: own.token, body: { name: 'Second' }, headers: { 'If-Match': '"0"' } });
  expect([stale.status, stale.body.code]).toEqual([412, 'version_mismatch']);
  const stored = await request(node.url, path, { token: own.token });
  expect([stored.body.name, stored.body.version]).toEqual(['First', 1]);
});

test('workspace settings saved at once are checked against each other: the default locale never ends up outside the locales', async () => {
  const own = await createWorkspace(node.url);
  const path = `/admin/workspaces/${own.id}`;
  expect((await request(node.url, path, { method: 'PATCH', token: own.token, body: { locales: ['en', 'de'] } })).status).toBe(200);
  for (let round = 0; round < 10; round += 1) {
    const [dropGerman, germanDefault] = await Promise.all([
      request(node.url, path, { method: 'PATCH', token: own.token, body: { locales: ['en'], defaultLocale: 'en' } }),
      request(node.url, path, { method: 'PATCH', token: own.token, body: { defaultLocale: 'de' } }),
    ]);
    expect(dropGerman.status).toBe(200);
    expect([200, 400]).toContain(germanDefault.status);
    const stored = (await request(node.url, path, { token: own.token })).body;
    expect(stored.locales).toContain(stored.defaultLocale);
    expect((await request(node.url, path, { method: 'PATCH', token: own.token, body: { locales: ['en', 'de'], defaultLocale: 'en' } })).status).toBe(200);
  }
});
