import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { DomainEvent } from '../../src/events/events.js';
import { contentAdmin } from './content-helpers.js';

let node: HearthNode;
const clock = new ManualClock(new Date('2025-03-01T10:00:00Z'));
const events: DomainEvent[] = [];
beforeAll(async () => {
  node = await startTestNode({ clock });
  node.deps.events.subscribe(async (event) => {
    events.push(event);
  });
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

const eventsOf = (postId: string) => events.filter((e) => 'postId' in e && e.postId === postId);
const publicPost = (slug: string, qs = '') => request(node.url, `/external/posts/${slug}${qs}`, { apiKey: ws.apiKey });

test('a post is created as a draft and is invisible until published', async () => {
  const draft = await admin.createPost({ slug: 'hello', title: 'Hello' });
  expect(draft).toMatchObject({ state: 'DRAFT', publishedAt: null, type: 'blog', locale: 'en', canonicalSlug: 'hello', published: null });
  expect((await publicPost('hello')).status).toBe(404);
  const published = await admin.publish(draft.id);
  expect(published).toMatchObject({ state: 'PUBLISHED', publishedAt: clock.now().toISOString(), hasUnpublishedChanges: false });
  expect((await publicPost('hello')).body.title).toBe('Hello');
});

test('a draft edit changes nothing publicly, slug included, until publish', async () => {
  const post = await admin.published({ slug: 'original', title: 'Original', contentMarkdown: 'old body' });
  const before = await publicPost('original', '?include=content');
  clock.advance(60_000);
  const edited = await admin.patch(post.id, { title: 'Half-edited', slug: 'renamed', contentMarkdown: 'new body' });
  expect(edited).toMatchObject({ state: 'PUBLISHED', title: 'Half-edited', hasUnpublishedChanges: true });
  expect(edited.published.title).toBe('Original');

  const after = await publicPost('original', '?include=content');
  expect(after.body).toEqual(before.body);
  expect((await publicPost('renamed')).status).toBe(404);
  const listed = await request(node.url, '/external/posts?q=half', { apiKey: ws.apiKey });
  expect(listed.body.items).toEqual([]);
  expect(eventsOf(post.id).map((e) => e.event)).toEqual(['post.published']);

  await admin.publish(post.id);
  expect((await publicPost('original')).status).toBe(404);
  expect((await publicPost('renamed', '?include=content')).body).toMatchObject({ title: 'Half-edited', contentMarkdown: 'new body' });
});

test('publishedAt moves only when the published content hash changes; republish after unpublish always bumps', async () => {
  const t0 = clock.now().toISOString();
  const post = await admin.published({ slug: 'hash', title: 'Hash' });
  expect(post.publishedAt).toBe(t0);

  // No-op republish: same content, publishedAt stays, no event.
  clock.advance(60_000);
  expect((await admin.publish(post.id)).publishedAt).toBe(t0);
  expect(eventsOf(post.id)).toHaveLength(1);

  // An edit that is reverted before publishing hashes the same: still no bump.
  await admin.patch(post.id, { title: 'Changed' });
  await admin.patch(post.id, { title: 'Hash' });
  clock.advance(60_000);
  expect((await admin.publish(post.id)).publishedAt).toBe(t0);
  expect((await publicPost('hash')).body.publishedAt).toBe(t0);

  // A real change bumps it.
  clock.advance(60_000);
  const t1 = clock.now().toISOString();
  await admin.patch(post.id, { tags: ['news'] });
  expect((await admin.publish(post.id)).publishedAt).toBe(t1);
  expect((await publicPost('hash')).body.publishedAt).toBe(t1);

  // Unpublish, then republish identical content: bumped anyway.
  clock.advance(60_000);
  const unpublished = await admin.unpublish(post.id);
  expect(unpublished.state).toBe('UNPUBLISHED');
  expect((await publicPost('hash')).status).toBe(404);
  clock.advance(60_000);
  const t2 = clock.now().toISOString();
  expect((await admin.publish(post.id)).publishedAt).toBe(t2);

  expect(eventsOf(post.id).map((e) => [e.event, (e as { publishedAt: string }).publishedAt])).toEqual([
    ['post.published', t0],
    ['post.published', t1],
    ['post.unpublished', t1],
    ['post.published', t2],
  ]);
});

test('events carry the spec payload', async () => {
  const post = await admin.published({ slug: 'payload', title: 'Payload' });
  const [event] = eventsOf(post.id);
  expect(event).toEqual({
    event: 'post.published',
    workspaceId: ws.id,
    postId: post.id,
    slug: 'payload',
    title: 'Payload',
    publishedAt: post.publishedAt,
    at: clock.now().toISOString(),
  });
});

test('unpublishing a draft is a no-op without an event', async () => {
  const draft = await admin.createPost({ slug: 'never', title: 'Never' });
  expect((await admin.unpublish(draft.id)).state).toBe('DRAFT');
  expect(eventsOf(draft.id)).toEqual([]);
});

test('a deleted post answers 404 everywhere and emits post.unpublished', async () => {
  const post = await admin.published({ slug: 'doomed', title: 'Doomed' });
  await admin.remove(post.id);
  expect((await publicPost('doomed')).status).toBe(404);
  expect((await request(node.url, '/external/posts', { apiKey: ws.apiKey })).body.items).toEqual([]);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${post.id}`, { token: ws.token })).status).toBe(404);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/posts/${post.id}`, { token: ws.token, method: 'DELETE' })).status).toBe(404);
  expect(eventsOf(post.id).map((e) => e.event)).toEqual(['post.published', 'post.unpublished']);
  // Deleting a draft emits nothing.
  const draft = await admin.createPost({ slug: 'draft-doomed', title: 'Draft' });
  await admin.remove(draft.id);
  expect(eventsOf(draft.id)).toEqual([]);
});

test('slugs are unique per locale, drafts included; the same slug may exist in another locale', async () => {
  await admin.createPost({ slug: 'same', title: 'A' });
  const clash = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'en', slug: 'same', title: 'B' } });
  expect(clash.status).toBe(409);
  expect(clash.body.code).toBe('slug_taken');
  expect((await admin.createPost({ locale: 'de', slug: 'same', title: 'C' })).slug).toBe('same');

  // A published slug stays reserved while its draft is renamed.
  const live = await admin.published({ slug: 'live', title: 'Live' });
  await admin.patch(live.id, { slug: 'live-renamed' });
  const taken = await request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body: { locale: 'en', slug: 'live', title: 'X' } });
  expect(taken.status).toBe(409);
});

test('admin validation: locale of the workspace, known type and category, strict patch', async () => {
  const post = (body: Record<string, unknown>) => request(node.url, `/admin/workspaces/${ws.id}/posts`, { token: ws.token, body });
  expect((await post({ locale: 'fr', slug: 'x', title: 'X' })).body.issues[0].path).toBe('locale');
  expect((await post({ locale: 'en', type: 'nope', slug: 'x', title: 'X' })).body.issues[0].path).toBe('type');
  expect((await post({ locale: 'en', slug: 'x', title: 'X', categoryId: 'a'.repeat(24) })).body.issues[0].path).toBe('categoryId');
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
