import { describe, expect, test } from '@jest/globals';
import { pino } from 'pino';
import { ContentCache, contentTag } from '../../src/cache/content-cache.js';
import { InvalidationBus } from '../../src/cache/invalidation-bus.js';
import { PREWARM_QUIET_MS } from '../../src/cache/prewarm-queue.js';

const answer = (text: string) => ({ bytes: Buffer.from(text), headers: { ETag: `W/"${text}"` } });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TTL_MS = 60_000;

async function cacheWithClock() {
  const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
  const clock = { now: 1_000 };
  const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: TTL_MS, staleGraceMs: 2_000, prewarmMax: 4, now: () => clock.now });
  /** Keeps `key` as a reader's build would, with a rebuild that counts its calls and answers `next()`. */
  const keptByReader = (key: string, dependsOn: string[], next: () => string) => {
    const calls = { count: 0 };
    const rebuild = async () => {
      calls.count += 1;
      return { answer: answer(next()), dependsOn };
    };
    cache.store('w1', key, answer(next()), (cache.lookup(key) as { token: string }).token, dependsOn, rebuild);
    return calls;
  };
  return { bus, cache, clock, keptByReader };
}

describe('ContentCache pre-warm (in-process bus)', () => {
  test("a republish's dropped answer is built again after the pause; one built ahead that nobody reads, only while readers had it within an answer's lifetime", async () => {
    const { bus, cache, clock, keptByReader } = await cacheWithClock();
    const key = ContentCache.key('w1', 'get /external/posts', '[null,{}]');
    let version = 0;
    const calls = keptByReader(key, ['posts'], () => `v${++version}`);

    await bus.publish([contentTag('w1', 'posts', true)]);
    expect(calls.count).toBe(0);
    await pause(PREWARM_QUIET_MS + 100);
    expect(calls.count).toBe(1);
    expect(cache.stats()).toMatchObject({ prewarmBuilds: 1, prewarmed: 1 });

    // Not read since, but a reader had it half an answer's lifetime ago: built again after the next republish.
    clock.now += TTL_MS / 2;
    await bus.publish([contentTag('w1', 'posts', true)]);
    await pause(2 * PREWARM_QUIET_MS + 100);
    expect(calls.count).toBe(2);
    // Still unread (and still live) an answer's lifetime after a reader last had it: left for the next reader.
    clock.now += TTL_MS / 2;
    expect(cache.stats().entries).toBe(1);
    await bus.publish([contentTag('w1', 'posts', true)]);
    await pause(4 * PREWARM_QUIET_MS + 100);
    expect(calls.count).toBe(2);
    expect('hit' in cache.lookup(key)).toBe(false);
  });

  test("a withdrawal ends the workspace's stale answers and what waits to be built for that post; the list is still built", async () => {
    const { bus, cache, keptByReader } = await cacheWithClock();
    const page = ContentCache.key('w1', 'get /external/posts/:slug', '[{"slug":"x"},{}]');
    const list = ContentCache.key('w1', 'get /external/posts', '[null,{}]');
    const pageCalls = keptByReader(page, ['group:g', 'slug:x'], () => 'page');
    const listCalls = keptByReader(list, ['posts'], () => 'list');

    await bus.publish(['posts', 'group:g', 'slug:x'].map((dependency) => contentTag('w1', dependency, true)));
    expect(cache.lookup(page)).toMatchObject({ stale: answer('page') });
    await bus.publish(['posts', 'group:g', 'slug:x'].map((dependency) => contentTag('w1', dependency)));
    expect(cache.lookup(page)).not.toHaveProperty('stale');
    expect(cache.lookup(list)).not.toHaveProperty('stale');
    await pause(PREWARM_QUIET_MS + 100);
    expect(pageCalls.count).toBe(0);
    expect(listCalls.count).toBe(1);
    expect('hit' in cache.lookup(list)).toBe(true);
  });

  test('a rebuild that fails or answers nothing keeps nothing and throws nowhere; a workspace change cancels what waits', async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: TTL_MS, prewarmMax: 4 });
    const failing = ContentCache.key('w1', 'get /external/posts', '[null,{}]');
    const gone = ContentCache.key('w1', 'get /external/posts/:slug', '[{"slug":"x"},{}]');
    const other = ContentCache.key('w2', 'get /external/posts', '[null,{}]');
    const token = (key: string) => (cache.lookup(key) as { token: string }).token;
    cache.store('w1', failing, answer('a'), token(failing), ['posts'], () => Promise.reject(new Error('engine away')));
    cache.store('w1', gone, answer('b'), token(gone), ['slug:x'], () => Promise.resolve(undefined));
    let otherCalls = 0;
    cache.store('w2', other, answer('c'), token(other), ['posts'], () => Promise.resolve((otherCalls += 1, undefined)));

    await bus.publish([contentTag('w1', 'posts', true), contentTag('w1', 'slug:x', true), contentTag('w2', 'posts', true)]);
    await bus.publish(['workspace:w2']);
    await pause(PREWARM_QUIET_MS + 100);
    expect(cache.stats()).toMatchObject({ prewarmBuilds: 2, prewarmed: 0 });
    expect(otherCalls).toBe(0);
    expect('hit' in cache.lookup(failing)).toBe(false);
    expect('hit' in cache.lookup(gone)).toBe(false);
  });
});
