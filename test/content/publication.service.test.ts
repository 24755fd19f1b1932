import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { failure, newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { DomainEvent } from '../../src/events/events.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { createPost, deletePost, editDraft, getPost, toAdminPost, type CreatePostInput, type PostPatch } from '../../src/posts/posts.service.js';
import { publishPost, unpublishPost } from '../../src/posts/publication.service.js';
import { getPublicPost, listPublicPosts } from '../../src/posts/public-posts.service.js';

// Publication rules: drafts stay private, the published snapshot moves only on publish, publishedAt follows
// the content hash, and post.published / post.unpublished carry the spec payload.
const clock = new ManualClock(new Date('2025-03-01T10:00:00Z'));
const events: DomainEvent[] = [];
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices({ clock });
  services.deps.events.subscribe(async (event) => {
    events.push(event);
  });
});
afterAll(async () => {
  await services.close();
});

let ws: Workspace;
beforeEach(async () => {
  ws = (await newWorkspace(services.deps)).workspace;
});

const eventsOf = (postId: string) => events.filter((e) => 'postId' in e && e.postId === postId);
const create = async (input: Omit<CreatePostInput, 'locale'> & { locale?: string }) => toAdminPost(await createPost(services.deps, ws, { locale: 'en', ...input }));
const publish = async (id: string) => toAdminPost((await publishPost(services.deps, ws, id)).post);
const published = async (input: Omit<CreatePostInput, 'locale'> & { locale?: string }) => publish((await create(input)).id);
const patch = async (id: string, changes: PostPatch) => toAdminPost(await editDraft(services.deps, ws, id, changes));
const publicPost = (slug: string, include?: 'content') => getPublicPost(services.deps, ws, slug, { include });

test('a post is created as a draft and is invisible until published', async () => {
  const draft = await create({ slug: 'hello', title: 'Hello' });
  expect(draft).toMatchObject({ state: 'DRAFT', publishedAt: null, type: 'blog', locale: 'en', canonicalSlug: 'hello', published: null });
  await failure(publicPost('hello'), 'published_post_not_found');
  const post = await publish(draft.id);
  expect(post).toMatchObject({ state: 'PUBLISHED', publishedAt: clock.now().toISOString(), hasUnpublishedChanges: false });
  expect((await publicPost('hello')).title).toBe('Hello');
});

test('a draft edit changes nothing publicly, slug included, until publish', async () => {
  const post = await published({ slug: 'original', title: 'Original', contentMarkdown: 'old body' });
  const before = await publicPost('original', 'content');
  clock.advance(60_000);
  const edited = await patch(post.id, { title: 'Half-edited', slug: 'renamed', contentMarkdown: 'new body' });
  expect(edited).toMatchObject({ state: 'PUBLISHED', title: 'Half-edited', hasUnpublishedChanges: true });
  expect(edited.published?.title).toBe('Original');

  expect(await publicPost('original', 'content')).toEqual(before);
  await failure(publicPost('renamed'), 'published_post_not_found');
  expect((await listPublicPosts(services.deps, ws, { type: '*', q: 'half' })).items).toEqual([]);
  expect(eventsOf(post.id).map((e) => e.event)).toEqual(['post.published']);

  await publish(post.id);
  await failure(publicPost('original'), 'published_post_not_found');
  expect(await publicPost('renamed', 'content')).toMatchObject({ title: 'Half-edited', contentMarkdown: 'new body' });
});

test('publishedAt moves only when the published content hash changes; republish after unpublish always bumps', async () => {
  const t0 = clock.now().toISOString();
  const post = await published({ slug: 'hash', title: 'Hash' });
  expect(post.publishedAt).toBe(t0);

  // No-op republish: same content, publishedAt stays, no event.
  clock.advance(60_000);
  const noop = await publishPost(services.deps, ws, post.id);
  expect(noop.changed).toBe(false);
  expect(toAdminPost(noop.post).publishedAt).toBe(t0);
  expect(eventsOf(post.id)).toHaveLength(1);

  // An edit that is reverted before publishing hashes the same: still no bump.
  await patch(post.id, { title: 'Changed' });
  await patch(post.id, { title: 'Hash' });
  clock.advance(60_000);
  expect((await publish(post.id)).publishedAt).toBe(t0);
  expect((await publicPost('hash')).publishedAt).toBe(t0);

  // A real change bumps it.
  clock.advance(60_000);
  const t1 = clock.now().toISOString();
  await patch(post.id, { tags: ['news'] });
  expect((await publish(post.id)).publishedAt).toBe(t1);
  expect((await publicPost('hash')).publishedAt).toBe(t1);

  // Unpublish, then republish identical content: bumped anyway.
  clock.advance(60_000);
  expect((await unpublishPost(services.deps, ws, post.id)).state).toBe('UNPUBLISHED');
  await failure(publicPost('hash'), 'published_post_not_found');
  clock.advance(60_000);
  const t2 = clock.now().toISOString();
  expect((await publish(post.id)).publishedAt).toBe(t2);

  expect(eventsOf(post.id).map((e) => [e.event, (e as { publishedAt: string }).publishedAt])).toEqual([
    ['post.published', t0],
    ['post.published', t1],
    ['post.unpublished', t1],
    ['post.published', t2],
  ]);
});

test('events carry the spec payload, and the translation group the content cache drops by', async () => {
  const post = await published({ slug: 'payload', title: 'Payload' });
  const [event] = eventsOf(post.id);
  expect(event).toEqual({
    event: 'post.published',
    workspaceId: ws.id,
    postId: post.id,
    slug: 'payload',
    title: 'Payload',
    publishedAt: post.publishedAt,
    at: clock.now().toISOString(),
    translationGroupId: expect.any(String),
  });
});

test('unpublishing a draft is a no-op without an event', async () => {
  const draft = await create({ slug: 'never', title: 'Never' });
  expect((await unpublishPost(services.deps, ws, draft.id)).state).toBe('DRAFT');
  expect(eventsOf(draft.id)).toEqual([]);
});

test('a deleted post is gone for the public and the admin, and emits post.unpublished', async () => {
  const post = await published({ slug: 'doomed', title: 'Doomed' });
  await deletePost(services.deps, ws, post.id);
  await failure(publicPost('doomed'), 'published_post_not_found');
  expect((await listPublicPosts(services.deps, ws, { type: '*' })).items).toEqual([]);
  await failure(getPost(services.deps, ws, post.id), 'post_not_found');
  await failure(deletePost(services.deps, ws, post.id), 'post_not_found');
  expect(eventsOf(post.id).map((e) => e.event)).toEqual(['post.published', 'post.unpublished']);
  // Deleting a draft emits nothing.
  const draft = await create({ slug: 'draft-doomed', title: 'Draft' });
  await deletePost(services.deps, ws, draft.id);
  expect(eventsOf(draft.id)).toEqual([]);
});

test('slugs are unique per locale, drafts included; the same slug may exist in another locale', async () => {
  await create({ slug: 'same', title: 'A' });
  await failure(create({ slug: 'same', title: 'B' }), 'post_slug_taken');
  expect((await create({ locale: 'de', slug: 'same', title: 'C' })).slug).toBe('same');

  // A published slug stays reserved while its draft is renamed.
  const live = await published({ slug: 'live', title: 'Live' });
  await patch(live.id, { slug: 'live-renamed' });
  await failure(create({ slug: 'live', title: 'X' }), 'post_slug_taken');
});

test('create refuses a locale outside the workspace, an unknown type and an unknown category, each as a field issue', async () => {
  const issueOf = async (input: Omit<CreatePostInput, 'locale'> & { locale?: string }) => (await failure(create(input), 'validation_failed')).issues?.[0].path;
  expect(await issueOf({ locale: 'fr', slug: 'x', title: 'X' })).toBe('locale');
  expect(await issueOf({ type: 'nope', slug: 'x', title: 'X' })).toBe('type');
  expect(await issueOf({ slug: 'x', title: 'X', categoryId: 'a'.repeat(24) })).toBe('categoryId');
  // Nothing was stored by the refusals.
  expect((await create({ slug: 'x', title: 'X' })).slug).toBe('x');
});
