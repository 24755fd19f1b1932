import { expect, test } from '@jest/globals';
import { pino } from 'pino';
import { InvalidationBus } from '../../src/cache/invalidation-bus.js';
import { LIFETIME_PER_READ_TIME, WorkspaceIndex } from '../../src/cache/workspace-index.js';

/**
 * The safety lifetime of a workspace's kept posts counts from the end of their whole read, and lasts at least
 * LIFETIME_PER_READ_TIME times that read: a workspace whose read takes longer than the lifetime (100,000 posts
 * on FerretDB: 70 s, against 30 s) was otherwise found expired by every reader and read whole again, forever.
 */

const TTL = 30_000;

async function indexOnALoneNode() {
  let now = 0;
  const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
  const pending: ((groups: Map<string, string[]>) => void)[] = [];
  let reads = 0;
  const index = new WorkspaceIndex<string>(
    bus,
    {
      loadAll: () => {
        reads += 1;
        return new Promise((resolve) => pending.push(resolve));
      },
      loadGroup: async () => [],
      bytesOf: (items) => items.length,
    },
    { maxBytes: 1_000_000, ttlMs: TTL, now: () => now },
  );
  return {
    index,
    advance: (ms: number) => (now += ms),
    /** Ends the read under way (`ms` after it began) with these posts. */
    finishRead: async (ms: number, posts: string[]) => {
      now += ms;
      pending.shift()!(new Map([['group', posts]]));
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
  // Past it, the next reader reads the workspace again.
  advance(1);
  const again = index.items('ws');
  await finishRead(10, ['a', 'b', 'c']);
  expect(await again).toEqual(['a', 'b', 'c']);
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
  const again = index.items('ws');
  await finishRead(5, ['b']);
  expect(await again).toEqual(['b']);
  expect(counts.reads).toBe(2);
});
