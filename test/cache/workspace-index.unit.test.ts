import { expect, test } from '@jest/globals';
import { pino } from 'pino';
import { InvalidationBus } from '../../src/cache/invalidation-bus.js';
import { contentTag } from '../../src/cache/content-cache.js';
import { LIFETIME_PER_READ_TIME, READ_WAITED_MS, WorkspaceIndex } from '../../src/cache/workspace-index.js';

/**
 * The safety lifetime of a workspace's kept posts counts from the end of their whole read, and lasts at least
 * LIFETIME_PER_READ_TIME times that read: a workspace whose read takes longer than the lifetime (100,000 posts
 * on FerretDB: 70 s, against 30 s) was otherwise found expired by every reader and read whole again, forever.
 * Past it, the kept posts are read again in the background while they keep answering, so no reader waits
 * out that read.
 */

const TTL = 30_000;

async function indexOnALoneNode() {
  let now = 0;
  const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
  const pending: ((groups: Map<string, string[]>) => void)[] = [];
  let reads = 0;
  /** What a read of one group finds now. */
  const stored: Record<string, string[]> = {};
  const index = new WorkspaceIndex<string>(
    bus,
    {
      loadAll: () => {
        reads += 1;
        return new Promise((resolve) => pending.push(resolve));
      },
      loadGroup: async (_workspaceId, group) => stored[group] ?? [],
      bytesOf: (items) => items.length,
    },
    { maxBytes: 1_000_000, ttlMs: TTL, now: () => now },
  );
  return {
    index,
    bus,
    stored,
    advance: (ms: number) => (now += ms),
    /** Ends the oldest read under way (`ms` after it began) with these posts (of one group, or by group). */
    finishRead: async (ms: number, posts: string[] | Record<string, string[]>) => {
      now += ms;
      pending.shift()!(new Map(Array.isArray(posts) ? [['group', posts]] : Object.entries(posts)));
      await new Promise((resolve) => setImmediate(resolve));
    },
    get reads() {
      return reads;
    },
  };
}

test('a whole read longer than the lifetime is kept once it ends, for that many times as long as it took', async () => {
  const counts = await indexOnALoneNode();
  const { index, advance, finishRead } = counts;
  const first = index.items('ws');
  const waiting = index.items('ws');
  await finishRead(70_000, ['a', 'b']);
  expect(await first).toEqual(['a', 'b']);
  expect(await waiting).toEqual(['a', 'b']);
  expect(await index.items('ws')).toEqual(['a', 'b']);
  expect(counts.reads).toBe(1);

  advance(LIFETIME_PER_READ_TIME * 70_000);
  expect(await index.items('ws')).toEqual(['a', 'b']);
  expect(counts.reads).toBe(1);
  // Past it, the workspace is read again.
  advance(1);
  expect(await index.items('ws')).toEqual(['a', 'b']);
  await finishRead(10, ['a', 'b', 'c']);
  expect(await index.items('ws')).toEqual(['a', 'b', 'c']);
  expect(counts.reads).toBe(2);
});

test('a quick read is kept for the safety lifetime from when it ended', async () => {
  const counts = await indexOnALoneNode();
  const { index, advance, finishRead } = counts;
  const first = index.items('ws');
  await finishRead(5, ['a']);
  await first;
  advance(TTL);
  expect(await index.items('ws')).toEqual(['a']);
  expect(counts.reads).toBe(1);
  advance(1);
  expect(await index.items('ws')).toEqual(['a']);
  await finishRead(5, ['b']);
  expect(await index.items('ws')).toEqual(['b']);
  expect(counts.reads).toBe(2);
});

test('past the lifetime the kept posts answer at once while one read runs; a group written meanwhile is read again before its posts answer', async () => {
  const counts = await indexOnALoneNode();
  const { index, bus, stored, advance, finishRead } = counts;
  const first = index.items('ws');
  await finishRead(5, { g1: ['a'], g2: ['b'] });
  await first;
  advance(TTL + 1);
  // Every reader meanwhile: the kept posts, without waiting; one read runs for all of them.
  expect(await index.items('ws')).toEqual(['a', 'b']);
  expect(await index.items('ws')).toEqual(['a', 'b']);
  expect(counts.reads).toBe(2);
  // A publish of g2 while that read runs: the kept posts show it at once; the read may have passed g2 before it.
  stored.g2 = ['b2'];
  await bus.publish([contentTag('ws', 'group:g2')]);
  expect(await index.items('ws')).toEqual(['a', 'b2']);
  await finishRead(5, { g1: ['a'], g2: ['b'] });
  expect(await index.items('ws')).toEqual(['a', 'b2']);
  expect(counts.reads).toBe(2);
});

test('a change of unknown posts while that read runs drops the kept posts and the read: the next reader waits for a new one', async () => {
  const counts = await indexOnALoneNode();
  const { index, bus, advance, finishRead } = counts;
  const first = index.items('ws');
  await finishRead(5, ['a']);
  await first;
  advance(TTL + 1);
  expect(await index.items('ws')).toEqual(['a']);
  await bus.publish([contentTag('ws', 'posts')]);
  const next = index.items('ws');
  expect(counts.reads).toBe(3);
  await finishRead(5, ['read before the change']);
  await finishRead(5, ['read after it']);
  expect(await next).toEqual(['read after it']);
  expect(await index.items('ws')).toEqual(['read after it']);
});

test("a change of the workspace's settings, categories or navigation keeps its posts: nothing is read again", async () => {
  const counts = await indexOnALoneNode();
  const { index, bus, finishRead } = counts;
  const first = index.items('ws');
  await finishRead(5, ['a']);
  await first;
  await bus.publish(['workspace:ws']);
  expect(await index.items('ws')).toEqual(['a']);
  expect(counts.reads).toBe(1);
});

test('readers wait for a first whole read a moment only: past it they answer from the database while it runs, and once it ends from the items', async () => {
  const counts = await indexOnALoneNode();
  const { index, finishRead } = counts;
  const startedAt = Date.now();
  // The first reader of a big workspace after a start, and one more while the read runs.
  expect(await index.items('ws')).toBeUndefined();
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(READ_WAITED_MS - 5);
  expect(await index.items('ws')).toBeUndefined();
  expect(counts.reads).toBe(1);
  // A reader whose database answer would read every item anyway waits for the read.
  let listed: string[] | undefined;
  const lister = index.items('ws', Infinity).then((items) => (listed = items));
  await new Promise((resolve) => setTimeout(resolve, READ_WAITED_MS + 50));
  expect(listed).toBeUndefined();
  await finishRead(34_000, ['a', 'b']);
  await lister;
  expect(listed).toEqual(['a', 'b']);
  expect(await index.items('ws')).toEqual(['a', 'b']);
  expect(counts.reads).toBe(1);
});

test('a first whole read that fails after its readers stopped waiting leaves the next reader a new one', async () => {
  let fail!: (error: Error) => void;
  let reads = 0;
  const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
  const index = new WorkspaceIndex<string>(
    bus,
    {
      loadAll: async () => {
        reads += 1;
        if (reads === 1) return new Promise<Map<string, string[]>>((_, reject) => (fail = reject));
        return new Map([['group', ['a']]]);
      },
      loadGroup: async () => [],
      bytesOf: (items) => items.length,
    },
    { maxBytes: 1_000_000, ttlMs: TTL },
  );
  expect(await index.items('ws')).toBeUndefined();
  // Nobody waits for it now: the failure is no unhandled rejection, and the items are read again.
  fail(new Error('engine away'));
  await new Promise((resolve) => setImmediate(resolve));
  expect(await index.items('ws')).toEqual(['a']);
  expect(reads).toBe(2);
});
