import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { HearthNode } from '../../src/app/node.js';
import { createWorkspace, eventually, loginOperator, request, startTestNode, uniqueDbName, watchingCommands, type DriverCommand, type WorkspaceFixture } from '../support/harness.js';
import { startRedis, type RunningService } from '../support/services.js';
import { contentAdmin } from '../content/content-helpers.js';

// Two nodes on one database and one private Redis (stopped and restarted below, so not the run's).
// B is an `api` node: no job polling, so every driver command it sends belongs to a request.
let redis: RunningService;
let a: HearthNode;
let b: HearthNode;
// These tests observe what each write drops: nothing is built ahead here (test/cache/prewarm.test.ts).
const env = { RATE_LIMIT_PER_MINUTE: '100000', CONTENT_PREWARM_MAX: '0' };

beforeAll(async () => {
  redis = await startRedis();
  const dbName = uniqueDbName('cache');
  a = await startTestNode({ redis: redis.url, dbName, env });
  b = await startTestNode({ redis: redis.url, dbName, env: { ...env, NODE_ROLE: 'api' } });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

/** Driver commands node B sends while `work` runs. */
async function commandsOnB<T>(work: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const commands: string[] = [];
  const result = await watchingCommands(b, (event) => commands.push(event.commandName), work);
  return { result, commands };
}

const read = (node: HearthNode, path: string, ws: WorkspaceFixture, headers: Record<string, string> = {}) => request(node.url, path, { apiKey: ws.apiKey, headers });

/** Reads twice on B: the second read must be a hit (no database work) with the same bytes and ETag. */
async function warm(path: string, ws: WorkspaceFixture) {
  const first = await read(b, path, ws);
  expect(first.status).toBe(200);
  const { result: second, commands } = await commandsOnB(() => read(b, path, ws));
  expect(commands).toEqual([]);
  expect(second.text).toBe(first.text);
  expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
  return second;
}

describe('published content served from memory on every node', () => {
  test('a hit does no database work, answers the same bytes and ETag, and 304 on If-None-Match', async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const category = await admin.category('news', 'News');
    await admin.published({ slug: 'hello', title: 'Hello', categoryId: category.id });
    const nav = await admin.navigation('main');
    await admin.items(nav.id, [{ parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home' } }]);

    for (const path of ['/external/workspace', '/external/posts?limit=50', '/external/posts/hello', '/external/categories', '/external/navigations/main', '/external/analytics-config']) {
      await warm(path, ws);
    }

    // Equivalent queries share an entry: defaults applied, order and unknown parameters ignored.
    const { result: equivalent, commands } = await commandsOnB(() => read(b, '/external/posts?type=blog&limit=50&unknown=1', ws));
    expect(commands).toEqual([]);
    const list = await read(b, '/external/posts?limit=50', ws);
    expect(equivalent.text).toBe(list.text);
    expect(list.body.pageInfo).toMatchObject({ total: 1, limit: 50 });

    const etag = list.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const { result: notModified, commands: none } = await commandsOnB(() => read(b, '/external/posts?limit=50', ws, { 'If-None-Match': etag }));
    expect(none).toEqual([]);
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);

    // The same body recomputed after an invalidation has the same ETag (an unchanged PATCH still invalidates).
    await admin.call('', { method: 'PATCH', body: { name: (await read(a, '/external/workspace', ws)).body.name } });
    const { result: recomputed, commands: some } = await commandsOnB(() => read(b, '/external/posts?limit=50', ws));
    expect(some.length).toBeGreaterThan(0);
    expect(recomputed.text).toBe(list.text);
    expect(recomputed.headers.get('etag')).toBe(etag);

    const metrics = await request(b.url, '/metrics');
    expect(metrics.status).toBe(200);
    const { hits, misses, hitRatio, entries, bytes } = metrics.body.contentCache;
    expect(hits).toBeGreaterThanOrEqual(8);
    expect(hitRatio).toBeCloseTo(hits / (hits + misses));
    expect(entries).toBeGreaterThan(0);
    expect(bytes).toBeGreaterThan(0);
  });

  test('ten readers of one answer that is not cached share one build: the engine sees one reader', async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    for (const slug of ['one', 'two', 'three']) await admin.published({ slug, title: slug });
    // The workspace and its categories and types are kept on B first (the first list read keeps them).
    await read(b, '/external/posts?limit=6', ws);
    // One cold read of a list page, then ten at once of another page of the same shape.
    const alone = await commandsOnB(() => read(b, '/external/posts?limit=7', ws));
    expect(alone.result.status).toBe(200);
    const together = await commandsOnB(() => Promise.all(Array.from({ length: 10 }, () => read(b, '/external/posts?limit=8', ws))));
    expect(together.result.map((res) => res.status)).toEqual(Array(10).fill(200));
    expect(new Set(together.result.map((res) => res.text)).size).toBe(1);
    expect(together.commands.length).toBe(alone.commands.length);
  });

  test("a republish on A drops on B only what shows that post: its pages in every locale, its slug and the lists; other posts' pages stay", async () => {
    const ws = await createWorkspace(a.url, { locales: ['en', 'de'], defaultLocale: 'en' });
    const admin = contentAdmin(a.url, ws);
    const edited = await admin.published({ slug: 'edited', title: 'Edited' });
    await admin.published({ slug: 'untouched', title: 'Untouched' });
    const pages = ['/external/posts/edited', '/external/posts/untouched', '/external/posts', '/external/workspace'];
    for (const path of pages) await warm(path, ws);

    await admin.patch(edited.id, { title: 'Edited again' });
    await admin.publish(edited.id);
    const after = async (path: string) => commandsOnB(() => read(b, path, ws));
    // Still cached: the other post's page and the workspace; read afresh: the post's page and the list.
    expect((await after('/external/posts/untouched')).commands).toEqual([]);
    expect((await after('/external/workspace')).commands).toEqual([]);
    const page = await after('/external/posts/edited');
    expect(page.commands.length).toBeGreaterThan(0);
    expect(page.result.body.title).toBe('Edited again');
    expect((await after('/external/posts')).result.body.items.map((item: { title: string }) => item.title)).toContain('Edited again');

    // A translation's first publish changes the original's page (its translations list).
    await warm('/external/posts/edited', ws);
    const translation = await admin.createPost({ locale: 'de', slug: 'bearbeitet', title: 'Bearbeitet', translationOf: edited.id });
    await admin.publish(translation.id);
    expect((await read(b, '/external/posts/edited', ws)).body.translations.map((t: { locale: string }) => t.locale)).toEqual(['en', 'de']);

    // Unpublishing the untouched post removes its page at once, though nothing else of it changed.
    await warm('/external/posts/untouched', ws);
    const untouched = (await read(b, '/external/posts/untouched', ws)).body.postId as string;
    await admin.unpublish(untouched);
    expect((await read(b, '/external/posts/untouched', ws)).status).toBe(404);
  });

  test("publish, edit + republish, unpublish and delete on A show on B's next read", async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const titles = async () => (await read(b, '/external/posts', ws)).body.items.map((item: { title: string }) => item.title);

    const first = await admin.published({ slug: 'first', title: 'First' });
    const before = await warm('/external/posts', ws);
    expect(before.body.items.map((item: { title: string }) => item.title)).toEqual(['First']);
    await warm('/external/posts/first', ws);

    const second = await admin.published({ slug: 'second', title: 'Second' });
    expect(await titles()).toEqual(['Second', 'First']);
    const changed = await read(b, '/external/posts', ws);
    expect(changed.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(changed.body.pageInfo.total).toBe(2);

    // A draft edit is invisible until published; then it shows.
    await warm('/external/posts/first', ws);
    await admin.patch(first.id, { title: 'First, edited' });
    expect((await read(b, '/external/posts/first', ws)).body.title).toBe('First');
    await admin.publish(first.id);
    expect((await read(b, '/external/posts/first', ws)).body.title).toBe('First, edited');

    await warm('/external/posts', ws);
    await admin.unpublish(second.id);
    expect(await titles()).toEqual(['First, edited']);

    await warm('/external/posts/first', ws);
    await admin.remove(first.id);
    expect((await read(b, '/external/posts/first', ws)).status).toBe(404);
    expect(await titles()).toEqual([]);
  });

  test("renames on A (a post's slug, a category's slug, a navigation's key) move on B's next read", async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const category = await admin.category('news', 'News');
    const post = await admin.published({ slug: 'old-name', title: 'Moving', categoryId: category.id });
    const nav = await admin.navigation('main');
    await admin.items(nav.id, [{ parentId: null, position: 0, type: 'HEADING', labels: { en: 'Menu' } }]);
    for (const path of ['/external/posts/old-name', '/external/posts', '/external/categories', '/external/navigations/main']) await warm(path, ws);

    await admin.patch(post.id, { slug: 'new-name' });
    await admin.publish(post.id);
    expect((await read(b, '/external/posts/old-name', ws)).status).toBe(404);
    expect((await read(b, '/external/posts/new-name', ws)).body.title).toBe('Moving');
    expect((await read(b, '/external/posts', ws)).body.items.map((item: { slug: string }) => item.slug)).toEqual(['new-name']);

    await warm('/external/posts/new-name', ws);
    await admin.call(`/categories/${category.id}`, { method: 'PATCH', body: { slug: 'tidings' } });
    expect((await read(b, '/external/categories', ws)).body.items.map((c: { slug: string }) => c.slug)).toEqual(['tidings']);
    expect((await read(b, '/external/posts/new-name', ws)).body.category.slug).toBe('tidings');

    await admin.call(`/navigations/${nav.id}`, { method: 'PATCH', body: { key: 'top' } });
    expect((await read(b, '/external/navigations/main', ws)).status).toBe(404);
    expect((await read(b, '/external/navigations/top', ws)).body.items).toHaveLength(1);
  });

  test("category, navigation and workspace changes on A show on B's next read", async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const category = await admin.category('news', 'News');
    const draft = await admin.createPost({ slug: 'soon', title: 'Soon' });
    await admin.published({ slug: 'p', title: 'P', categoryId: category.id });
    const nav = await admin.navigation('main');
    await admin.items(nav.id, [{ parentId: null, position: 0, type: 'POST', postId: draft.id }]);

    await warm('/external/categories', ws);
    await warm('/external/posts/p', ws);
    await admin.call(`/categories/${category.id}`, { method: 'PATCH', body: { name: 'Tidings' } });
    expect((await read(b, '/external/categories', ws)).body.items.map((c: { name: string }) => c.name)).toEqual(['Tidings']);
    expect((await read(b, '/external/posts/p', ws)).body.category.name).toBe('Tidings');
    await warm('/external/categories?locale=*', ws);
    await admin.category('extra', 'Extra');
    expect((await read(b, '/external/categories?locale=*', ws)).body.items).toHaveLength(2);

    // A navigation item shows while its post is published: publishing and unpublishing the post on A move it on B.
    const navOf = async () => (await read(b, '/external/navigations/main', ws)).body;
    await warm('/external/navigations/main', ws);
    expect((await navOf()).items).toEqual([]);
    await admin.publish(draft.id);
    expect((await navOf()).items).toHaveLength(1);
    await warm('/external/navigations/main', ws);
    await admin.unpublish(draft.id);
    expect((await navOf()).items).toEqual([]);
    await admin.items(nav.id, [{ parentId: null, position: 0, type: 'HEADING', labels: { en: 'Shop' } }]);
    expect((await navOf()).items.map((item: { type: string }) => item.type)).toEqual(['HEADING']);

    await warm('/external/workspace', ws);
    await warm('/external/analytics-config', ws);
    await admin.call('', { method: 'PATCH', body: { name: 'Renamed', customConfig: { theme: 'dark' } } });
    expect((await read(b, '/external/workspace', ws)).body).toMatchObject({ name: 'Renamed', customConfig: { theme: 'dark' } });
    const analytics = { websiteId: '6f1c1f43-5a3c-4e4e-9d5b-0c1b7f8a9e21', scriptUrl: 'https://stats.example/script.js' };
    await admin.call('', { method: 'PATCH', body: { analytics } });
    expect((await read(b, '/external/analytics-config', ws)).body).toEqual({ enabled: true, ...analytics });
    // The workspace inside published posts (JSON-LD publisher) follows too.
    await admin.call('', { method: 'PATCH', body: { name: 'Renamed again' } });
    expect((await read(b, '/external/workspace', ws)).body.name).toBe('Renamed again');
  });

  test('with the posts kept on B, a cold list page reads only the group of the post published since, and a cold slug nothing', async () => {
    const ws = await createWorkspace(a.url, { locales: ['en', 'de'], defaultLocale: 'en' });
    const admin = contentAdmin(a.url, ws);
    const news = await admin.category('news', 'News');
    await admin.published({ slug: 'first', title: 'First', categoryId: news.id });
    // The first answer of the workspace on B reads its categories, types and published posts once; B keeps them.
    await read(b, '/external/posts?limit=5', ws);
    await admin.published({ slug: 'second', title: 'Second', categoryId: news.id });

    const names = (commands: DriverCommand[]) => commands.map((command) => `${command.commandName} ${String(command.command[command.commandName])}`);
    const watched = async (path: string) => {
      const seen: DriverCommand[] = [];
      const res = await watchingCommands(b, (event) => seen.push(event), () => read(b, path, ws));
      expect(res.status).toBe(200);
      return { res, commands: names(seen) };
    };
    const list = await watched('/external/posts?limit=5&category=news');
    expect(list.commands).toEqual(['find post_groups', 'find posts']);
    expect(list.res.body.items.map((item: { category: { slug: string } }) => item.category.slug)).toEqual(['news', 'news']);
    const slug = await watched('/external/posts/second');
    expect(slug.commands).toEqual([]);
    expect(slug.res.body).toMatchObject({ title: 'Second', category: { slug: 'news' }, translations: [{ locale: 'en', slug: 'second' }] });

    // What B keeps follows changes made on A: a renamed category, a type created after B read the types.
    await admin.call(`/categories/${news.id}`, { method: 'PATCH', body: { name: 'Tidings' } });
    expect((await read(b, '/external/posts/second', ws)).body.category.name).toBe('Tidings');
    const recipe = await admin.call('/post-types', { body: { slug: 'recipe', name: 'Recipes', jsonLdType: 'Recipe' } });
    expect(recipe.slug).toBe('recipe');
    await admin.published({ slug: 'bread', title: 'Bread', type: 'recipe' });
    expect((await read(b, '/external/posts/bread', ws)).body).toMatchObject({ type: 'recipe', jsonLd: { '@type': 'Recipe' } });
  });
});

describe('credentials and sessions remembered on every node', () => {
  test('a rotated key is refused on B within one second; the new key works there at once', async () => {
    const ws = await createWorkspace(a.url);
    await warm('/external/workspace', ws);
    const rotated = await request(a.url, `/admin/workspaces/${ws.id}/api-key/rotate`, { method: 'POST', token: ws.token, body: {} });
    expect(rotated.status).toBe(200);
    const at = Date.now();
    await eventually(async () => (await read(b, '/external/workspace', ws)).status === 401, 1_000, 10);
    expect(Date.now() - at).toBeLessThan(1_000);
    expect((await request(b.url, '/external/workspace', { apiKey: rotated.body.apiKey })).status).toBe(200);
  });

  test('logout on A ends the session on B; a role change on A applies on B', async () => {
    const ws = await createWorkspace(a.url);
    const operator = await loginOperator(a.url);
    const email = `member-${randomBytes(4).toString('hex')}@test.local`;
    const user = await request(a.url, '/admin/users', { token: operator, body: { email, name: 'Member', password: 'member-password' } });
    expect(user.status).toBe(201);
    const addAs = (role: string) => request(a.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.body.id, role } });
    expect((await addAs('agent')).status).toBe(201);
    const token = (await request(a.url, '/admin/auth/login', { body: { email, password: 'member-password' } })).body.token as string;

    const rename = () => request(b.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token, body: { name: 'By member' } });
    expect((await rename()).status).toBe(403);
    expect((await rename()).status).toBe(403);
    // B hears A's invalidations through Redis pub/sub: within a second, as for a rotated key (usually at once).
    expect((await addAs('owner')).status).toBe(201);
    await eventually(async () => (await rename()).status === 200, 1_000, 10);

    expect((await request(b.url, '/admin/me', { token })).status).toBe(200);
    expect((await request(a.url, '/admin/auth/logout', { method: 'POST', token, body: {} })).status).toBeLessThan(300);
    await eventually(async () => (await request(b.url, '/admin/me', { token })).status === 401, 1_000, 10);
  });
});

describe('a node that cannot hear invalidations', () => {
  test('serves from the database while its subscription is down, and caches again once resubscribed', async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    await warm('/external/workspace', ws);
    await warm('/external/posts', ws);

    // Redis gone: B's subscriber connection closes, so B can no longer hear A's invalidations.
    await redis.stop();
    await eventually(() => !b.deps.cache.live, 5_000);
    await admin.call('', { method: 'PATCH', body: { name: 'Changed while deaf' } });
    await admin.published({ slug: 'while-deaf', title: 'While deaf' });
    // B's cached answers still hold the old content (TTL 30 s); B reads the database instead.
    const { result: deaf, commands } = await commandsOnB(() => read(b, '/external/workspace', ws));
    expect(deaf.body.name).toBe('Changed while deaf');
    expect(commands.length).toBeGreaterThan(0);
    expect((await read(b, '/external/posts', ws)).body.items.map((item: { slug: string }) => item.slug)).toEqual(['while-deaf']);

    redis = await startRedis(redis.port);
    await eventually(() => b.deps.cache.live, 20_000, 50);
    // Resubscribed: B caches again, and hears A again.
    await warm('/external/workspace', ws);
    await admin.call('', { method: 'PATCH', body: { name: 'Heard again' } });
    // Both nodes' connections come back on their own schedules (each retries up to 5 s apart): if A's is still
    // away, A sends the change once it is back. B hears it then, not at its TTL (30 s).
    await eventually(async () => (await read(b, '/external/workspace', ws)).body.name === 'Heard again', 8_000, 20);
  }, 60_000);
});
