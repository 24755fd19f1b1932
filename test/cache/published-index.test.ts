import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { HearthNode } from '../../src/app/node.js';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, watchingCommands, type WorkspaceFixture } from '../support/harness.js';
import { startRedis, type RunningService } from '../support/services.js';
import { contentAdmin } from '../content/content-helpers.js';

// Lists answered from the published posts a node keeps (`WorkspaceIndex`): A and B keep them, D keeps none
// (PUBLISHED_POSTS_MB=0) and answers every list from the database; all three on one database and one Redis.
let redis: RunningService;
let a: HearthNode;
let b: HearthNode;
let d: HearthNode;
const env = { RATE_LIMIT_PER_MINUTE: '100000', NODE_ROLE: 'api' };

beforeAll(async () => {
  redis = await startRedis();
  const dbName = uniqueDbName('published_index');
  a = await startTestNode({ redis: redis.url, dbName, env });
  b = await startTestNode({ redis: redis.url, dbName, env });
  d = await startTestNode({ redis: redis.url, dbName, env: { ...env, PUBLISHED_POSTS_MB: '0' } });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), d?.stop()]);
  await redis?.stop();
});

const read = (node: HearthNode, path: string, ws: WorkspaceFixture) => request(node.url, path, { apiKey: ws.apiKey });

/** The reads of posts `work` makes on `node` that are not by `_id`: each one decodes the workspace's posts on FerretDB. */
async function postScans<T>(node: HearthNode, work: () => Promise<T>): Promise<{ result: T; scans: string[] }> {
  const scans: string[] = [];
  const result = await watchingCommands(
    node,
    (event) => {
      const { [event.commandName]: collection, filter, pipeline } = event.command;
      if (collection !== 'posts') return;
      const byId = event.commandName === 'find' && typeof filter === 'object' && filter !== null && '_id' in filter;
      if (!byId) scans.push(`${event.commandName} ${JSON.stringify(filter ?? pipeline)}`);
    },
    work,
  );
  return { result, scans };
}

const slugsOf = (body: { items: { slug: string }[] }) => body.items.map((item) => item.slug);

describe('public lists from the posts a node keeps', () => {
  test('every filter, order and page answers what the database answers, and only the first list reads the posts', async () => {
    const ws = await createWorkspace(a.url, { locales: ['en', 'de'], defaultLocale: 'en' });
    const admin = contentAdmin(a.url, ws);
    const site = await request(a.url, `/admin/workspaces/${ws.id}`, { token: ws.token, method: 'PATCH', body: { siteUrl: 'https://bakery.example' } });
    expect(site.status).toBe(200);
    await admin.call('/post-types', { body: { slug: 'recipe', name: 'Recipes' } });
    const bread = await admin.category('bread');
    const cake = await admin.category('cake');
    // Titles whose order differs by case, accents and characters beyond the Basic Multilingual Plane.
    const titles = ['apple pie', 'Apple tart', 'Éclair', 'eclair fin', 'Zebra cake', 'zucchini', '\u{1F600} smile', '\uFF21 wide', 'Brot', 'bread ECL'];
    for (const [i, title] of titles.entries()) {
      await admin.published({
        locale: i % 3 === 0 ? 'de' : 'en',
        type: i % 4 === 0 ? 'recipe' : 'blog',
        slug: `post-${i}`,
        title,
        categoryId: [bread.id, cake.id, null][i % 3],
        tags: [['a'], ['a', 'b'], ['b'], []][i % 4],
        authorName: i % 2 ? 'Ann' : 'Bob',
        contentMarkdown: `Body ${i}`,
      });
    }
    await admin.createPost({ slug: 'draft-only', title: 'Apple draft' });
    const [english] = (await read(a, '/external/posts?locale=en&limit=1', ws)).body.items;
    await admin.published({ locale: 'de', slug: 'uebersetzt', title: 'Übersetzt', translationOf: english.postId });
    const since = new Date(Date.now() - 60_000).toISOString();
    const paths = [
      '/external/posts',
      '/external/posts?type=*',
      '/external/posts?type=recipe',
      '/external/posts?type=*&locale=de',
      '/external/posts?type=*&limit=3&page=2',
      '/external/posts?type=*&limit=3&page=9',
      '/external/posts?type=*&force_limit=1000',
      '/external/posts?type=*&sort=title',
      '/external/posts?type=*&sort=-title',
      '/external/posts?type=*&sort=publishedAt',
      '/external/posts?type=*&q=ECL',
      '/external/posts?type=*&q=%F0%9F%98%80',
      '/external/posts?type=*&q=post-1',
      '/external/posts?type=*&q=.*',
      '/external/posts?type=*&category=bread',
      '/external/posts?type=*&category=none',
      '/external/posts?type=*&tag=a&tag=b',
      '/external/posts?type=*&tag=b',
      '/external/posts?type=*&author=Ann',
      `/external/posts?type=*&updatedSince=${encodeURIComponent(since)}`,
      '/external/posts?type=*&include=content&fields=slug,contentMarkdown',
      '/external/categories',
      '/external/categories?locale=de',
      '/external/sitemap.xml',
    ];
    // A post's page: found by slug in the locales in turn, with its translations, from the kept posts too.
    const pages = ['/external/posts/uebersetzt', `/external/posts/${english.slug}`, `/external/posts/${english.slug}?locale=de`, '/external/posts/post-3?include=content', '/external/posts/draft-only', '/external/posts/none'];

    const first = await postScans(b, () => read(b, '/external/posts?limit=1', ws));
    expect(first.result.status).toBe(200);
    expect(first.scans).toHaveLength(1);
    for (const path of paths) {
      const kept = await postScans(b, () => read(b, path, ws));
      const fromDatabase = await read(d, path, ws);
      expect([path, kept.result.status]).toEqual([path, 200]);
      expect([path, kept.result.text]).toEqual([path, fromDatabase.text]);
      expect([path, kept.scans]).toEqual([path, []]);
    }
    for (const path of pages) {
      const kept = await postScans(b, () => read(b, path, ws));
      const fromDatabase = await read(d, path, ws);
      expect([path, kept.result.status, kept.result.text]).toEqual([path, fromDatabase.status, fromDatabase.text]);
      expect([path, kept.scans]).toEqual([path, []]);
    }
    expect((await read(b, '/external/posts/uebersetzt', ws)).body.translations.map((t: { locale: string }) => t.locale)).toEqual(['en', 'de']);
    // Code point order, as the database sorts: the emoji (U+1F600) after the wide A (U+FF21).
    expect(slugsOf((await read(b, '/external/posts?type=*&sort=title&limit=50', ws)).body)).toEqual(
      ['post-1', 'post-8', 'post-4', 'post-0', 'post-9', 'post-3', 'post-5', 'post-2', 'uebersetzt', 'post-7', 'post-6'],
    );
  });

  test("A's publish, withdrawal and delete reach B's kept posts, read one group at a time", async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const first = await admin.published({ slug: 'first', title: 'First' });
    const second = await admin.published({ slug: 'second', title: 'Second' });
    const third = await admin.published({ slug: 'third', title: 'Third' });
    expect(slugsOf((await read(b, '/external/posts', ws)).body)).toEqual(['third', 'second', 'first']);
    for (const slug of ['first', 'second']) expect((await read(b, `/external/posts/${slug}`, ws)).status).toBe(200);
    const statusOnB = async (path: string) => (await read(b, path, ws)).status;

    // Each change on A, then B's list: the same as the database's, with no read of the workspace's posts.
    const expectOnB = async (slugs: string[], titles?: string[]) => {
      await eventually(async () => slugsOf((await read(b, '/external/posts', ws)).body).join() === slugs.join(), 3_000, 20);
      const { result, scans } = await postScans(b, () => read(b, '/external/posts?limit=50', ws));
      expect(scans).toEqual([]);
      expect(result.text).toBe((await read(d, '/external/posts?limit=50', ws)).text);
      expect(result.body.pageInfo.total).toBe(slugs.length);
      if (titles) expect(result.body.items.map((item: { title: string }) => item.title)).toEqual(titles);
    };
    await admin.patch(first.id, { title: 'First, again' });
    await admin.publish(first.id);
    await expectOnB(['first', 'third', 'second'], ['First, again', 'Third', 'Second']);
    await admin.unpublish(second.id);
    await expectOnB(['first', 'third']);
    expect(await statusOnB('/external/posts/second')).toBe(404);
    await admin.remove(third.id);
    await expectOnB(['first']);
    await admin.published({ slug: 'fourth', title: 'Fourth' });
    await expectOnB(['fourth', 'first']);
    await admin.patch(first.id, { slug: 'first-renamed' });
    await admin.publish(first.id);
    await expectOnB(['first-renamed', 'fourth']);
    expect([await statusOnB('/external/posts/first'), await statusOnB('/external/posts/first-renamed')]).toEqual([404, 200]);
  });

  test("a rename or a category's deletion shows in B's lists without a read of the workspace's posts or post types", async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const gone = await admin.category('gone');
    await admin.published({ slug: 'filed', title: 'Filed', categoryId: gone.id });
    expect((await read(b, '/external/posts?category=gone', ws)).body.pageInfo.total).toBe(1);
    // Each change of the workspace drops B's answers, not the posts or post types B keeps (it changes none of
    // them): the answer that shows the change is built without reading them again, and is the database's.
    type Item = { category: unknown; jsonLd: { publisher?: { name?: string } } | null };
    const untilOnB = async (shown: (item: Item) => boolean) => {
      const typeReads: unknown[] = [];
      const { scans } = await postScans(b, () =>
        watchingCommands(
          b,
          (event) => event.command[event.commandName] === 'post_types' && typeReads.push(event.command),
          () => eventually(async () => shown((await read(b, '/external/posts?type=*', ws)).body.items[0] as Item), 3_000, 20),
        ),
      );
      expect(scans).toEqual([]);
      expect(typeReads).toEqual([]);
      expect((await read(b, '/external/posts?type=*', ws)).text).toBe((await read(d, '/external/posts?type=*', ws)).text);
    };
    expect((await request(a.url, `/admin/workspaces/${ws.id}`, { token: ws.token, method: 'PATCH', body: { name: 'Renamed bakery' } })).status).toBe(200);
    await untilOnB((item) => item.jsonLd?.publisher?.name === 'Renamed bakery');
    await admin.call(`/categories/${gone.id}`, { method: 'DELETE' });
    await untilOnB((item) => item.category === null);
  });
});

describe('the memory bound', () => {
  test('a workspace whose posts do not fit is answered from the database, and nothing of it is kept', async () => {
    const small = await startTestNode({ redis: redis.url, dbName: a.deps.config.MONGODB_DB, env: { ...env, PUBLISHED_POSTS_MB: '0.002' } });
    try {
      const ws = await createWorkspace(a.url);
      const admin = contentAdmin(a.url, ws);
      for (let i = 0; i < 4; i += 1) await admin.published({ slug: `long-${i}`, title: `Long ${i}`, metaDescription: 'x'.repeat(400) });
      const first = await postScans(small, () => read(small, '/external/posts?limit=2', ws));
      expect(slugsOf(first.result.body)).toEqual(['long-3', 'long-2']);
      expect(first.result.body.pageInfo.total).toBe(4);
      const second = await postScans(small, () => read(small, '/external/posts?limit=2&page=2', ws));
      expect(slugsOf(second.result.body)).toEqual(['long-1', 'long-0']);
      // 0.002 MB holds about one such post: the first list read them whole once, then each list asks the
      // database (the page and its count), without reading them whole again.
      expect(first.scans).toHaveLength(3);
      expect(second.scans).toHaveLength(2);
      const index = small.deps.cache.workspaceIndex('published-posts', () => {
        throw new Error('made before');
      });
      expect(index.stats()).toEqual({ workspaces: 0, bytes: 0 });
    } finally {
      await small.stop();
    }
  });
});
