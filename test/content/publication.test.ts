import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

let node: HearthNode;
const clock = new ManualClock(new Date('2025-03-01T10:00:00Z'));
beforeAll(async () => {
  node = await startTestNode({ clock });
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

const publicPost = (slug: string, qs = '') => request(node.url, `/external/posts/${slug}${qs}`, { apiKey: ws.apiKey });

// Publication rules (drafts, snapshot, content hash, events, slug uniqueness) are service tests
// (publication.service.test.ts); here what the edge owns: statuses, wire codes, schema validation.
test('publish and unpublish over HTTP: a draft is 404 publicly, published is 200, a deleted post is 404 everywhere', async () => {
  const draft = await admin.createPost({ slug: 'hello', title: 'Hello' });
  expect(draft).toMatchObject({ state: 'DRAFT', publishedAt: null });
  const hidden = await publicPost('hello');
  expect(hidden.status).toBe(404);
  expect(hidden.body.code).toBe('post_not_found');
  const published = await admin.publish(draft.id);
  expect(published).toMatchObject({ state: 'PUBLISHED', publishedAt: clock.now().toISOString(), hasUnpublishedChanges: false });
  expect((await publicPost('hello')).body.title).toBe('Hello');
  expect((await admin.unpublish(draft.id)).state).toBe('UNPUBLISHED');
  expect((await publicPost('hello')).status).toBe(404);
  await admin.remove(draft.id);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${draft.id}`, { token: ws.token })).status).toBe(404);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${draft.id}`, { token: ws.token, method: 'DELETE' })).status).toBe(404);
});

test('a slug clash is 409 slug_taken', async () => {
  await admin.createPost({ slug: 'same', title: 'A' });
  const clash = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'en', slug: 'same', title: 'B' } });
  expect(clash.status).toBe(409);
  expect(clash.body.code).toBe('slug_taken');
});

test('admin validation: service field issues are 400 with their path; slug format and strict patch are 400', async () => {
  const post = (body: Record<string, unknown>) => request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body });
  const locale = await post({ locale: 'fr', slug: 'x', title: 'X' });
  expect(locale.status).toBe(400);
  expect(locale.body.code).toBe('validation_failed');
  expect(locale.body.issues[0].path).toBe('locale');
  expect((await post({ locale: 'en', slug: 'Bad Slug', title: 'X' })).status).toBe(400);
  const draft = await admin.createPost({ slug: 'strict', title: 'Strict' });
  const res = await request(node.url, `/admin/workspaces/${ws.id}/posts/${draft.id}`, { token: ws.token, method: 'PATCH', body: { locale: 'de' } });
  expect(res.status).toBe(400);
});

test('admin list shows every state; agents may read but not write', async () => {
  const a = await admin.createPost({ slug: 'a', title: 'A' });
  const b = await admin.published({ slug: 'b', title: 'B' });
  const c = await admin.published({ slug: 'c', title: 'C' });
  await admin.unpublish(c.id);
  const all = await admin.call('/posts');
  expect(Object.fromEntries(all.items.map((p: { id: string; state: string }) => [p.id, p.state]))).toEqual({ [a.id]: 'DRAFT', [b.id]: 'PUBLISHED', [c.id]: 'UNPUBLISHED' });
  expect((await admin.call('/posts?state=DRAFT')).items.map((p: { id: string }) => p.id)).toEqual([a.id]);
  const types = await admin.call('/post-types');
  expect(types.items.map((t: { slug: string }) => t.slug)).toEqual(['blog']);

  const email = `agent-${ws.id}@test.local`;
  const user = await request(node.url, '/admin/users', { token: ws.token, body: { email, name: 'Agent', password: 'agent-password' } });
  await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.body.id ?? user.body.user?.id, role: 'agent' } });
  const agent = (await request(node.url, '/admin/auth/login', { body: { email, password: 'agent-password' } })).body.token;
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: agent })).status).toBe(200);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${a.id}/publish`, { token: agent, body: {} })).status).toBe(403);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: agent, body: { locale: 'en', slug: 'z', title: 'Z' } })).status).toBe(403);
});

// Translations, the slug fallback, categories and content HTML are service tests
// (translations-categories.service.test.ts); here their statuses, wire codes and query validation.
test('translations, slug lookup and categories over HTTP: 409, 400 and 404 codes, include and locale queries', async () => {
  const en = await admin.published({ locale: 'en', slug: 'home', title: 'Home (en)', contentMarkdown: '*hi*' });
  const dup = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'en', slug: 'zweites', title: 'Z', translationOf: en.id } });
  expect(dup.status).toBe(409);
  expect(dup.body.code).toBe('translation_exists');
  const other = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'de', slug: 'autre', title: 'A', translationOf: en.id, canonicalSlug: 'different' } });
  expectIssue(other, 'canonicalSlug');

  const missing = await request(node.url, '/external/posts/home?locale=de', { apiKey: ws.apiKey });
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe('post_not_found');
  expectIssue(await request(node.url, '/external/posts/home?locale=not_a_locale!', { apiKey: ws.apiKey }), 'locale');
  const full = await request(node.url, '/external/posts/home?include=content', { apiKey: ws.apiKey });
  expect(full.status).toBe(200);
  expect(full.body.contentHtml.trim()).toBe('<p><em>hi</em></p>');

  const bread = await admin.category('bread', 'Bread');
  await admin.published({ locale: 'en', slug: 'rye', title: 'Rye', categoryId: bread.id });
  const categories = await request(node.url, '/external/categories?locale=en', { apiKey: ws.apiKey });
  expect(categories.status).toBe(200);
  expect(categories.body.items).toEqual([{ id: bread.id, slug: 'bread', name: 'Bread' }]);
  const clash = await request(node.url, `/admin/workspaces/${ws.id}/categories`, { token: ws.token, body: { slug: 'bread', name: 'Again' } });
  expect(clash.status).toBe(409);
});
