import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { seedDemoCategories } from '../../src/categories/categories.seed.js';
import { seedDemoPosts } from '../../src/posts/posts.seed.js';
import { seedDemoNavigations } from '../../src/navigations/navigations.seed.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

test('the demo seeder gives a bilingual blog with categories and a header menu', async () => {
  const ws = await createWorkspace(node.url, { locales: ['en', 'de'], defaultLocale: 'en' });
  const workspace = (await workspaceStore(node.deps.db).byId(ws.id))!;
  for (const seeder of [seedDemoCategories, seedDemoPosts, seedDemoNavigations]) await seeder(node.deps, workspace);
  const get = (path: string) => request(node.url, path, { apiKey: ws.apiKey });
  expect((await get('/external/posts?locale=en')).body.pageInfo.total).toBe(3);
  expect((await get('/external/posts?locale=de')).body.pageInfo.total).toBe(3);
  const post = await get('/external/posts/sauerteig-ansetzen?include=content');
  expect(post.body.translations.map((t: { locale: string }) => t.locale)).toEqual(['en', 'de']);
  expect(post.body.contentHtml).toContain('<strong>');
  expect((await get('/external/categories?locale=de')).body.items.map((c: { slug: string }) => c.slug)).toEqual(['bread', 'pastry']);
  const header = await get('/external/navigations/header');
  expect(header.body.items).toHaveLength(6);
  expect(header.body.items[2].post.locales).toHaveLength(2);
});
