import { expect, test } from '@jest/globals';
import { pino } from 'pino';
import { InvalidationBus } from '../../src/cache/invalidation-bus.js';
import { MemoCache, REFRESH_AFTER } from '../../src/cache/memo-cache.js';

/**
 * Refresh-ahead of the memo cache: a session or key in steady use is reloaded in the background, so no
 * request waits on its reload, and a reload that finds it revoked or changed is what the next request gets.
 */

const TTL = 5_000;

async function memoOnALoneNode() {
  let now = 0;
  const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
  const memo = new MemoCache(bus, { ttlMs: TTL, now: () => now });
  return { bus, memo, advance: (ms: number) => (now += ms) };
}

/** A loader whose every call waits until the test answers it. */
function source<T>() {
  const pending: ((value: T) => void)[] = [];
  let calls = 0;
  return {
    load: () => {
      calls += 1;
      return new Promise<T>((resolve) => pending.push(resolve));
    },
    answer: async (value: T) => {
      pending.shift()!(value);
      await new Promise((resolve) => setImmediate(resolve));
    },
    get calls() {
      return calls;
    },
  };
}

const tags = () => ['user:1'];

test('a hit late in its lifetime answers at once from memory and reloads once in the background', async () => {
  const { memo, advance } = await memoOnALoneNode();
  const db = source<{ name: string }>();
  const first = memo.remember('session:a', tags, db.load);
  await db.answer({ name: 'Ada' });
  await expect(first).resolves.toEqual({ name: 'Ada' });

  advance(TTL * REFRESH_AFTER - 1);
  await expect(memo.remember('session:a', tags, db.load)).resolves.toEqual({ name: 'Ada' });
  expect(db.calls).toBe(1);

  // Late in the lifetime: three requests answered from memory, one reload between them.
  advance(1);
  const hits = await Promise.all([1, 2, 3].map(() => memo.remember('session:a', tags, db.load)));
  expect(hits).toEqual([{ name: 'Ada' }, { name: 'Ada' }, { name: 'Ada' }]);
  expect(db.calls).toBe(2);
  await db.answer({ name: 'Ada Lovelace' });
  await expect(memo.remember('session:a', tags, db.load)).resolves.toEqual({ name: 'Ada Lovelace' });
  expect(db.calls).toBe(2);

  // The reloaded entry lives a whole lifetime again: in steady use it never expires in a request's path.
  advance(TTL - 1);
  await expect(memo.remember('session:a', tags, db.load)).resolves.toEqual({ name: 'Ada Lovelace' });
  expect(db.calls).toBe(3);
});

test('a background reload that finds the key gone drops it: the next request loads and sees it gone', async () => {
  const { memo, advance } = await memoOnALoneNode();
  const db = source<{ name: string } | null>();
  const first = memo.remember('key:a', tags, db.load);
  await db.answer({ name: 'workspace' });
  await first;
  advance(TTL * REFRESH_AFTER);
  await expect(memo.remember('key:a', tags, db.load)).resolves.toEqual({ name: 'workspace' });
  await db.answer(null);
  const next = memo.remember('key:a', tags, db.load);
  expect(db.calls).toBe(3);
  await db.answer(null);
  await expect(next).resolves.toBeNull();
});

test('a reload overtaken by an invalidation keeps nothing; entries with a lifetime of their own are not reloaded ahead', async () => {
  const { bus, memo, advance } = await memoOnALoneNode();
  const db = source<{ name: string }>();
  const first = memo.remember('session:a', tags, db.load);
  await db.answer({ name: 'old' });
  await first;
  advance(TTL * REFRESH_AFTER);
  await memo.remember('session:a', tags, db.load);
  await bus.publish(['user:1']);
  await db.answer({ name: 'read before the change' });
  const after = memo.remember('session:a', tags, db.load);
  expect(db.calls).toBe(3);
  await db.answer({ name: 'new' });
  await expect(after).resolves.toEqual({ name: 'new' });

  const long = memo.remember('conversation:c', tags, db.load, 60_000);
  await db.answer({ name: 'conversation' });
  await long;
  advance(59_999);
  await expect(memo.remember('conversation:c', tags, db.load, 60_000)).resolves.toEqual({ name: 'conversation' });
  expect(db.calls).toBe(4);
});

test('an invalidation of other tags while loading keeps the loaded value', async () => {
  const { bus, memo } = await memoOnALoneNode();
  const db = source<{ name: string }>();
  const loading = memo.remember('session:a', tags, db.load);
  // Every content publish invalidates its workspace's tags: a session read meanwhile is still current.
  await bus.publish(['content:ws1']);
  await db.answer({ name: 'Ada' });
  await loading;
  await expect(memo.remember('session:a', tags, db.load)).resolves.toEqual({ name: 'Ada' });
  expect(db.calls).toBe(1);
});
