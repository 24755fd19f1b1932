import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

let ws: WorkspaceFixture;
let admin: ReturnType<typeof contentAdmin>;
beforeEach(async () => {
  ws = await createWorkspace(node.url);
  admin = contentAdmin(node.url, ws);
});

const put = (nid: string, items: unknown[]) =>
  request(node.url, `/admin/workspaces/${ws.id}/navigations/${nid}/items`, { token: ws.token, method: 'PUT', body: { items } });
const external = (key: string) => request(node.url, `/external/navigations/${key}`, { apiKey: ws.apiKey });

test('a header navigation with nested items, as the consumer sees it', async () => {
  const en = await admin.published({ locale: 'en', slug: 'about', title: 'About us' });
  const de = await admin.createPost({ locale: 'de', slug: 'ueber-uns', title: 'Über uns', translationOf: en.id });
  await admin.publish(de.id);
  const draftOnly = await admin.createPost({ locale: 'en', slug: 'soon', title: 'Soon' });
  const nav = await admin.navigation('header', 'Header');
  const saved = await admin.items(nav.id, [
    { id: 'shop', parentId: null, position: 1, type: 'HEADING', labels: { en: 'Shop', de: 'Laden' } },
    { id: 'home', parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home' }, imageUrl: 'https://cdn.example/h.png' },
    { id: 'breads', parentId: 'shop', position: 0, type: 'CUSTOM_URL', customUrl: 'https://shop.example/breads', labels: { en: 'Breads' }, customConfig: { 'a.b': 1 }, hiddenLocales: ['de'] },
    { id: 'about', parentId: 'shop', position: 1, type: 'POST', postId: de.id },
    { id: 'soon', parentId: null, position: 2, type: 'POST', postId: draftOnly.id },
    { parentId: 'soon', position: 0, type: 'CUSTOM_URL', customUrl: '/soon/faq', labels: { en: 'FAQ' } },
  ]);
  // Client ids become server ids and parent references follow.
  const ids = saved.items.map((item: { id: string }) => item.id);
  expect(ids.every((id: string) => /^[0-9a-f]{24}$/.test(id))).toBe(true);

  const res = await external('header');
  expect(res.status).toBe(200);
  expect(res.body.key).toBe('header');
  expect(res.body.name).toBe('Header');
  // The never-published post's item (and the item under it) is absent, as for a post that never existed.
  expect(res.body.items).toHaveLength(4);
  const [home, shop, breads, about] = res.body.items;
  expect(home).toEqual({
    id: home.id,
    parentId: null,
    position: 0,
    type: 'CUSTOM_URL',
    customUrl: '/',
    imageUrl: 'https://cdn.example/h.png',
    customConfig: null,
    labels: { en: 'Home' },
    hiddenLocales: [],
    post: null,
  });
  expect(shop).toMatchObject({ parentId: null, position: 1, type: 'HEADING', customUrl: null, labels: { en: 'Shop', de: 'Laden' }, post: null });
  expect(breads).toMatchObject({ parentId: shop.id, customConfig: { 'a.b': 1 }, hiddenLocales: ['de'] });
  expect(about).toMatchObject({ parentId: shop.id, type: 'POST', customUrl: null, labels: null });
  expect(about.post).toEqual({
    id: de.id,
    canonicalSlug: 'about',
    postTypeId: en.postTypeId,
    postTypeSlug: 'blog',
    locales: [
      { locale: 'en', slug: 'about', title: 'About us' },
      { locale: 'de', slug: 'ueber-uns', title: 'Über uns' },
    ],
  });
  expect(JSON.stringify(res.body)).not.toContain('Soon');

  // Published, it shows with the item under it; unpublished, both are gone again.
  await admin.publish(draftOnly.id);
  const [, , , , soon, faq] = (await external('header')).body.items;
  expect(soon.post).toMatchObject({ id: draftOnly.id, canonicalSlug: 'soon', locales: [{ locale: 'en', slug: 'soon', title: 'Soon' }] });
  expect(faq).toMatchObject({ parentId: soon.id, customUrl: '/soon/faq' });
  await admin.unpublish(draftOnly.id);
  expect((await external('header')).body.items).toHaveLength(4);
  await admin.publish(draftOnly.id);

  // Saving the same tree again keeps the server ids.
  const again = await admin.items(nav.id, saved.items.map((item: Record<string, unknown>) => ({ ...item, postId: item.postId ?? undefined })));
  expect(again.items.map((item: { id: string }) => item.id)).toEqual(ids);

  // A deleted post's item disappears with its children.
  await admin.remove(de.id);
  await admin.remove(en.id);
  expect((await external('header')).body.items.map((item: { id: string }) => item.id)).toEqual([home.id, shop.id, breads.id, soon.id, faq.id]);
});

// The item-tree rules and the events are service tests (navigations.service.test.ts); here the schema
// bounds of the request, the wire form of a rule failure, and the statuses of the key routes.
test('schema bounds and a rule failure are 400 with a field-level issue; 500 items pass, 501 do not', async () => {
  const nav = await admin.navigation('footer');
  const heading = { parentId: null, position: 0, type: 'HEADING', labels: { en: 'H' } };
  expectIssue(await put(nav.id, [{ parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: 'javascript:alert(1)', labels: { en: 'x' } }]), 'items.0.customUrl');
  expectIssue(await put(nav.id, [{ ...heading, type: 'LINK' }]), 'items.0.type');
  expectIssue(await put(nav.id, [{ ...heading, position: -1 }]), 'items.0.position');
  expectIssue(await put(nav.id, [{ ...heading, hiddenLocales: ['not a locale'] }]), 'items.0.hiddenLocales.0');
  expectIssue(await put(nav.id, Array.from({ length: 501 }, (_, i) => ({ ...heading, position: i }))), 'items');
  expectIssue(await put(nav.id, [{ ...heading, parentId: 'nowhere' }]), 'items.0.parentId');
  // Nothing was stored by the failed attempts; the bound itself passes.
  expect((await external('footer')).body.items).toEqual([]);
  expect((await put(nav.id, Array.from({ length: 500 }, (_, i) => ({ ...heading, position: i })))).status).toBe(200);
});

test('key clash 409; malformed key 400; an unknown key is 404 navigation_not_found', async () => {
  await admin.navigation('main', 'Main');
  const clash = await request(node.url, `/admin/workspaces/${ws.id}/navigations`, { token: ws.token, body: { key: 'main', name: 'Again' } });
  expect(clash.status).toBe(409);
  expectIssue(await request(node.url, `/admin/workspaces/${ws.id}/navigations`, { token: ws.token, body: { key: 'Bad Key', name: 'X' } }), 'key');
  const gone = await external('primary');
  expect(gone.status).toBe(404);
  expect(gone.body.code).toBe('navigation_not_found');
});
