import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

// GET /external/changes: the change log a static site generator syncs from incrementally.
let node: HearthNode;
const clock = new ManualClock(new Date('2025-04-01T00:00:00Z'));
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

interface Change {
  postId: string;
  slug: string;
  locale: string;
  change: string;
  at: string;
}

const changes = (ws: WorkspaceFixture, qs = '') => request(node.url, `/external/changes${qs}`, { apiKey: ws.apiKey });
const brief = (items: Change[]) => items.map((item) => `${item.change} ${item.locale}/${item.slug}`);

/** Follows `next` page by page until `hasMore` is false. */
async function syncAll(ws: WorkspaceFixture, since: string | undefined, limit: number) {
  const seen: Change[] = [];
  let cursor = since;
  for (let pages = 0; pages < 50; pages += 1) {
    const res = await changes(ws, `?limit=${limit}${cursor ? `&since=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.items);
    cursor = res.body.next;
    if (!res.body.hasMore) return { seen, cursor: cursor! };
  }
  throw new Error('did not end');
}

describe('what is recorded', () => {
  let ws: WorkspaceFixture;
  let admin: ReturnType<typeof contentAdmin>;
  beforeAll(async () => {
    ws = await createWorkspace(node.url);
    admin = contentAdmin(node.url, ws);
  });

  test('an empty log answers no items, a cursor and no more', async () => {
    const res = await changes(ws);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], next: expect.any(String), hasMore: false });
  });

  test('publish, republish, unpublish and delete; never draft edits, no-op republishes or drafts', async () => {
    clock.advance(1_000);
    const a = await admin.published({ slug: 'a', title: 'A' });
    await admin.publish(a.id); // identical content: nothing public changed
    clock.advance(1_000);
    await admin.patch(a.id, { title: 'A2' });
    await admin.patch(a.id, { slug: 'a-renamed' });
    await admin.publish(a.id);
    clock.advance(1_000);
    const draft = await admin.createPost({ slug: 'never', title: 'Never' });
    await admin.remove(draft.id);
    const b = await admin.published({ slug: 'b', title: 'B', locale: 'de' });
    await admin.unpublish(b.id);
    await admin.unpublish(b.id); // already unpublished: nothing
    await admin.remove(b.id);
    const c = await admin.published({ slug: 'c', title: 'C' });
    await admin.remove(c.id);

    const res = await changes(ws);
    expect(brief(res.body.items)).toEqual(['published en/a', 'published en/a-renamed', 'published de/b', 'unpublished de/b', 'deleted de/b', 'published en/c', 'deleted en/c']);
    expect(res.body.items[0]).toEqual({ postId: a.id, slug: 'a', locale: 'en', change: 'published', at: '2025-04-01T00:00:01.000Z' });
    expect(res.body.items[4]).toMatchObject({ postId: b.id, at: '2025-04-01T00:00:03.000Z' });
    expect(res.body.hasMore).toBe(false);
  });

  test("another workspace's changes never show", async () => {
    const other = await createWorkspace(node.url);
    await contentAdmin(node.url, other).published({ slug: 'theirs', title: 'Theirs' });
    expect(brief((await changes(ws)).body.items)).not.toContain('published en/theirs');
    expect(brief((await changes(other)).body.items)).toEqual(['published en/theirs']);
  });
});

describe('cursors', () => {
  let ws: WorkspaceFixture;
  let admin: ReturnType<typeof contentAdmin>;
  beforeAll(async () => {
    ws = await createWorkspace(node.url);
    admin = contentAdmin(node.url, ws);
    // Five entries, three of them at one instant: the cursor must tell them apart.
    clock.advance(60_000);
    for (const slug of ['p1', 'p2', 'p3']) await admin.published({ slug, title: slug });
    clock.advance(60_000);
    for (const slug of ['p4', 'p5']) await admin.published({ slug, title: slug });
  });

  test('following next page by page sees every entry exactly once, in order', async () => {
    const everything = (await changes(ws)).body.items;
    expect(everything).toHaveLength(5);
    for (const limit of [1, 2, 4]) expect((await syncAll(ws, undefined, limit)).seen).toEqual(everything);
  });

  test('hasMore is exact at the page boundary', async () => {
    expect((await changes(ws, '?limit=4')).body.hasMore).toBe(true);
    expect((await changes(ws, '?limit=5')).body.hasMore).toBe(false);
  });

  test('with nothing new, next comes back unchanged; a later change follows it', async () => {
    const { cursor } = await syncAll(ws, undefined, 500);
    const idle = await changes(ws, `?since=${cursor}`);
    expect(idle.body).toEqual({ items: [], next: cursor, hasMore: false });
    clock.advance(1_000);
    const p6 = await admin.published({ slug: 'p6', title: 'p6' });
    const res = await changes(ws, `?since=${cursor}`);
    expect(res.body.items).toEqual([{ postId: p6.id, slug: 'p6', locale: 'en', change: 'published', at: clock.now().toISOString() }]);
    expect(res.body.next).not.toBe(cursor);
    expect((await changes(ws, `?since=${res.body.next}`)).body.items).toEqual([]);
  });

  test('an ISO since includes changes at that instant and later', async () => {
    const everything = (await changes(ws)).body.items as Change[];
    const fourth = everything[3];
    expect(brief((await changes(ws, `?since=${fourth.at}`)).body.items)).toEqual(brief(everything.slice(3)));
    const after = new Date(Date.parse(fourth.at) + 1).toISOString();
    expect((await changes(ws, `?since=${after}`)).body.items).toEqual(everything.filter((item) => item.at > fourth.at));
    expect((await changes(ws, '?since=2000-01-01T00:00:00Z')).body.items).toEqual(everything);
  });

  test('answers come from the content cache until a change drops them', async () => {
    const first = await changes(ws, '?limit=2');
    const hits = node.deps.cache.content.stats().hits;
    expect((await changes(ws, '?limit=2')).text).toBe(first.text);
    expect(node.deps.cache.content.stats().hits).toBe(hits + 1);
    const before = (await changes(ws)).body.items.length;
    clock.advance(1_000);
    await admin.published({ slug: 'p7', title: 'p7' });
    expect((await changes(ws)).body.items).toHaveLength(before + 1);
  });
});

describe('bounds and bad values', () => {
  let ws: WorkspaceFixture;
  beforeAll(async () => {
    ws = await createWorkspace(node.url);
  });

  test('limit 1 to 500: 500 passes, 501 and 0 are 400', async () => {
    expect((await changes(ws, '?limit=500')).status).toBe(200);
    expect((await changes(ws, '?limit=1')).status).toBe(200);
    expectIssue(await changes(ws, '?limit=501'), 'limit');
    expectIssue(await changes(ws, '?limit=0'), 'limit');
    expectIssue(await changes(ws, '?limit=abc'), 'limit');
  });

  test('since must be an ISO date-time or a cursor of this feed', async () => {
    expectIssue(await changes(ws, '?since=yesterday%20noon'), 'since');
    expectIssue(await changes(ws, '?since=2025-13-01T00:00:00Z'), 'since');
    expectIssue(await changes(ws, '?since=2025-01-01'), 'since');
    expectIssue(await changes(ws, `?since=${Buffer.from('12:not-an-id').toString('base64url')}`), 'since');
    expectIssue(await changes(ws, '?since=a&since=b'), 'since');
  });

  test('it needs the workspace key, and a post slugged `changes` is still read by its slug', async () => {
    expect((await request(node.url, '/external/changes')).status).toBe(401);
    const res = await changes(ws);
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('hasMore');
    await contentAdmin(node.url, ws).published({ slug: 'changes', title: 'Our changes' });
    for (const slug of ['changes', 'Changes']) {
      const post = await request(node.url, `/external/posts/${slug}`, { apiKey: ws.apiKey });
      expect(post.status).toBe(200);
      expect(post.body.title).toBe('Our changes');
    }
  });
});
