import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { HearthNode } from '../../src/app/node.js';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, watchingCommands, type WorkspaceFixture } from '../support/harness.js';
import { startRedis, type RunningService } from '../support/services.js';
import { contentAdmin } from '../content/content-helpers.js';

// Two `api` nodes (no job polling: every driver command a node sends belongs to a request or to a pre-warm)
// on one database and one private Redis. Publishes are made on A; both nodes pre-warm their own memory.
let redis: RunningService;
let a: HearthNode;
let b: HearthNode;
const env = { RATE_LIMIT_PER_MINUTE: '100000', NODE_ROLE: 'api' };

beforeAll(async () => {
  redis = await startRedis();
  const dbName = uniqueDbName('prewarm');
  a = await startTestNode({ redis: redis.url, dbName, env });
  b = await startTestNode({ redis: redis.url, dbName, env });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

const read = (node: HearthNode, path: string, ws: WorkspaceFixture) => request(node.url, path, { apiKey: ws.apiKey });
const prewarmsOf = (node: HearthNode) => {
  const { prewarmBuilds, prewarmed } = node.deps.cache.content.stats();
  return { builds: prewarmBuilds, kept: prewarmed };
};

/**
 * Driver commands `node` sends while `work` runs (`find posts`), but the key memo's own refresh: a key used
 * late in its 5 s life is looked up again in the background (`find credentials`, `find workspaces`), which a
 * slow run can make fall within a read that is answered from memory.
 */
const KEY_MEMO_REFRESH = ['find credentials', 'find workspaces'];
async function commandsOn<T>(node: HearthNode, work: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const commands: string[] = [];
  const result = await watchingCommands(node, (event) => commands.push(`${event.commandName} ${String(event.command[event.commandName])}`), work);
  return { result, commands: commands.filter((command) => !KEY_MEMO_REFRESH.includes(command)) };
}

/** Reads each path on the node until it is kept there (the second read is a hit): what a reader uses. */
async function readByReaders(node: HearthNode, ws: WorkspaceFixture, paths: string[]): Promise<void> {
  for (const path of paths) {
    expect((await read(node, path, ws)).status).toBe(200);
    const { result, commands } = await commandsOn(node, () => read(node, path, ws));
    expect(result.status).toBe(200);
    expect(commands).toEqual([]);
  }
}

/** Waits until the node kept `count` more pre-warmed answers than `before`, then a little longer (nothing else may follow). */
async function prewarmedOn(node: HearthNode, before: { kept: number }, count: number): Promise<void> {
  await eventually(() => prewarmsOf(node).kept >= before.kept + count, 5_000, 20);
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe('after a publish, each node builds again the answers readers used before anyone asks', () => {
  test('a republish on A: the first list page and the post are answered on A and B with no engine command, with the new content', async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const post = await admin.published({ slug: 'changing', title: 'Before' });
    await admin.published({ slug: 'other', title: 'Other' });
    const paths = ['/external/posts', '/external/posts/changing', '/external/posts?locale=en'];
    for (const node of [a, b]) await readByReaders(node, ws, paths);
    const before = { a: prewarmsOf(a), b: prewarmsOf(b) };

    await admin.patch(post.id, { title: 'After' });
    await admin.publish(post.id);
    await prewarmedOn(a, before.a, paths.length);
    await prewarmedOn(b, before.b, paths.length);

    for (const node of [a, b]) {
      // Each answer that was dropped is built once, on each node.
      expect(prewarmsOf(node).builds - before[node === a ? 'a' : 'b'].builds).toBe(paths.length);
      const list = await commandsOn(node, () => read(node, '/external/posts', ws));
      expect(list.commands).toEqual([]);
      expect(list.result.body.items.map((item: { title: string }) => item.title)).toEqual(['After', 'Other']);
      const page = await commandsOn(node, () => read(node, '/external/posts/changing', ws));
      expect(page.commands).toEqual([]);
      expect(page.result.body.title).toBe('After');
      const localized = await commandsOn(node, () => read(node, '/external/posts?locale=en', ws));
      expect(localized.commands).toEqual([]);
      expect(localized.result.text).toBe(list.result.text);
    }
    // A pre-warmed answer is the one a reader builds: same bytes and headers. (A settings change, even one that
    // changes nothing, drops every answer of the workspace and is not built ahead: the reader builds it.)
    const prewarmed = await read(b, '/external/posts/changing', ws);
    const { misses } = b.deps.cache.content.stats();
    const { builds } = prewarmsOf(b);
    await admin.call('', { method: 'PATCH', body: { name: (await read(a, '/external/workspace', ws)).body.name } });
    // Read on B until a read misses there: that answer is the reader's build.
    const rebuilt = await eventually(async () => {
      const res = await read(b, '/external/posts/changing', ws);
      return b.deps.cache.content.stats().misses > misses ? res : undefined;
    }, 3_000, 20);
    expect(prewarmsOf(b).builds).toBe(builds);
    expect(rebuilt.text).toBe(prewarmed.text);
    for (const header of ['etag', 'cache-control', 'content-type', 'content-length']) expect(rebuilt.headers.get(header)).toBe(prewarmed.headers.get(header));
  });

  test('an unpublished post is not built again: its page answers 404 at once on both nodes, and nothing is built ahead', async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    const post = await admin.published({ slug: 'leaving', title: 'Leaving' });
    await admin.published({ slug: 'staying', title: 'Staying' });
    const paths = ['/external/posts', '/external/posts/leaving'];
    await readByReaders(b, ws, paths);
    // A republish is built ahead on B (the pre-warm works here)...
    const republished = prewarmsOf(b);
    await admin.patch(post.id, { title: 'Leaving soon' });
    await admin.publish(post.id);
    await prewarmedOn(b, republished, paths.length);
    const warm = await commandsOn(b, () => read(b, '/external/posts/leaving', ws));
    expect(warm.commands).toEqual([]);
    expect(warm.result.body.title).toBe('Leaving soon');
    await readByReaders(b, ws, paths);

    // ...an unpublish is not: the page is gone at once on both nodes, and neither node builds anything ahead.
    const before = { a: prewarmsOf(a), b: prewarmsOf(b) };
    await admin.unpublish(post.id);
    for (const node of [b, a]) expect((await read(node, '/external/posts/leaving', ws)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(prewarmsOf(b)).toEqual(before.b);
    expect(prewarmsOf(a).kept).toBe(before.a.kept);
    expect((await read(b, '/external/posts/leaving', ws)).status).toBe(404);
    expect((await read(b, '/external/posts', ws)).body.items.map((item: { slug: string }) => item.slug)).toEqual(['staying']);
  });

  test('a burst of 50 publishes in one workspace is built ahead a bounded number of times, after it', async () => {
    const ws = await createWorkspace(a.url);
    const admin = contentAdmin(a.url, ws);
    await admin.published({ slug: 'first', title: 'First' });
    const drafts = [];
    for (let i = 0; i < 50; i++) drafts.push(await admin.createPost({ slug: `burst-${i}`, title: `Burst ${i}` }));
    await readByReaders(b, ws, ['/external/posts', '/external/posts/first']);
    const before = prewarmsOf(b);

    for (let i = 0; i < drafts.length; i += 10) await Promise.all(drafts.slice(i, i + 10).map((draft: { id: string }) => admin.publish(draft.id)));
    // The last publish is answered before B builds anything after it (B waits for a pause of 200 ms at least).
    await prewarmedOn(b, prewarmsOf(b), 1);

    // Only the list was dropped (the burst's posts had no page kept). A pause within the burst may build it,
    // and each such build doubles the pause the next one waits for (200 ms, 400 ms, ... up to 5 s): a few
    // builds however slow the machine makes the burst (about 3 here), never one per publish.
    const builds = prewarmsOf(b).builds - before.builds;
    expect(builds).toBeGreaterThanOrEqual(1);
    expect(builds).toBeLessThanOrEqual(8);
    const list = await commandsOn(b, () => read(b, '/external/posts', ws));
    expect(list.commands).toEqual([]);
    expect(list.result.body.pageInfo.total).toBe(51);
  });

  test('a publish in one workspace builds nothing ahead for another', async () => {
    const one = await createWorkspace(a.url);
    const two = await createWorkspace(a.url);
    const adminOne = contentAdmin(a.url, one);
    const adminTwo = contentAdmin(a.url, two);
    await adminOne.published({ slug: 'mine', title: 'Mine' });
    const theirs = await adminTwo.published({ slug: 'theirs', title: 'Theirs' });
    await readByReaders(b, one, ['/external/posts', '/external/posts/mine']);
    await readByReaders(b, two, ['/external/posts']);
    const before = prewarmsOf(b);

    await adminTwo.patch(theirs.id, { title: 'Theirs, changed' });
    await adminTwo.publish(theirs.id);
    await prewarmedOn(b, before, 1);

    // Exactly the other workspace's one list was built; the first workspace's answers were neither dropped nor built.
    expect(prewarmsOf(b)).toEqual({ builds: before.builds + 1, kept: before.kept + 1 });
    for (const path of ['/external/posts', '/external/posts/mine']) expect((await commandsOn(b, () => read(b, path, one))).commands).toEqual([]);
    const list = await commandsOn(b, () => read(b, '/external/posts', two));
    expect(list.commands).toEqual([]);
    expect(list.result.body.items[0].title).toBe('Theirs, changed');
  });
});
