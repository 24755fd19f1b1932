import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { startServices, newWorkspace, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName, watchingCommands, type DriverCommand } from '../support/harness.js';
import { postStore } from '../../src/posts/posts.model.js';
import { postBodyStore } from '../../src/posts/post-bodies.model.js';
import { listPostTypes } from '../../src/posts/post-types.service.js';
import { engineTraits } from '../../src/db/engine-traits.js';
import { publishedForImport } from '../support/imported-posts.js';

/**
 * A page's post bodies are read by id (the admin list, `include=content`): on MongoDB with one `$in`, on FerretDB
 * with point reads by `_id`, ten at a time, up to 100 ids, since FerretDB decodes the whole collection for an
 * `$in` (17.7 s against 1.8 s for 20 of 100,000 bodies) and filters a read by `_id` in its storage.
 */
let services: ServiceHarness;
const posts: Record<'mine' | 'other', string[]> = { mine: [], other: [] };
let mine: string;
beforeAll(async () => {
  services = await startServices({ dbName: uniqueDbName('bodies') });
  for (const side of ['mine', 'other'] as const) {
    const { workspace } = await newWorkspace(services.deps);
    if (side === 'mine') mine = workspace.id;
    const blogId = (await listPostTypes(services.deps, workspace)).find((type) => type.slug === 'blog')!.id;
    const count = side === 'mine' ? 101 : 1;
    await postStore(services.deps.db).importPublished(
      workspace.id,
      Array.from({ length: count }, (_, i) => publishedForImport({ postTypeId: blogId, locale: 'en', slug: `${side}-${i}`, title: `${side} ${i}`, markdown: `Body of ${side} ${i}`, publishedAt: new Date() })),
    );
    const docs = await services.deps.db.collection('posts').find({ workspaceId: new Types.ObjectId(workspace.id) }, { projection: { _id: 1, 'pub.slug': 1 } }).toArray();
    posts[side] = docs.sort((a, b) => Number(a.pub.slug.split('-')[1]) - Number(b.pub.slug.split('-')[1])).map((doc) => doc._id.toHexString());
  }
});
afterAll(async () => {
  await services?.close();
});

async function readBodies(ids: string[]) {
  const finds: Record<string, unknown>[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const client = services.deps.db.getClient();
  const ended = (event: { commandName: string }) => event.commandName === 'find' && (inFlight -= 1);
  client.on('commandSucceeded', ended);
  client.on('commandFailed', ended);
  try {
    const bodies = await watchingCommands(
      services,
      (event: DriverCommand) => {
        if (event.commandName !== 'find' || event.command.find !== 'post_published_bodies') return;
        finds.push(event.command.filter as Record<string, unknown>);
        mostInFlight = Math.max(mostInFlight, (inFlight += 1));
      },
      () => postBodyStore(services.deps.db).of(mine, 'published', ids),
    );
    return { bodies, finds, mostInFlight };
  } finally {
    client.off('commandSucceeded', ended);
    client.off('commandFailed', ended);
  }
}

const bodyOf = (side: string, i: number) => `Body of ${side} ${i}`;

test('100 ids: every body of the workspace, another workspace left out; by point reads on FerretDB, ten at a time', async () => {
  const ids = [...posts.mine.slice(0, 99), posts.other[0]];
  const { bodies, finds, mostInFlight } = await readBodies(ids);
  expect(bodies.size).toBe(99);
  for (let i = 0; i < 99; i += 1) expect(bodies.get(posts.mine[i])?.contentMarkdown).toBe(bodyOf('mine', i));
  expect(bodies.has(posts.other[0])).toBe(false);
  if (engineTraits(services.deps.db).inPushdown) expect(finds).toHaveLength(1);
  else {
    expect(finds).toHaveLength(100);
    expect(finds.every((filter) => typeof filter._id === 'string')).toBe(true);
    expect(mostInFlight).toBeLessThanOrEqual(10);
  }
});

test('101 ids (a repeated one counted once): one `$in` read on every engine, the same bodies, another workspace left out', async () => {
  const { bodies, finds } = await readBodies([...posts.mine.slice(0, 100), posts.mine[0], posts.other[0]]);
  expect(bodies.size).toBe(100);
  for (let i = 0; i < 100; i += 1) expect(bodies.get(posts.mine[i])?.contentMarkdown).toBe(bodyOf('mine', i));
  expect(bodies.has(posts.other[0])).toBe(false);
  expect(finds).toEqual([{ _id: { $in: [...posts.mine.slice(0, 100), posts.other[0]] } }]);
});
