import { describe, expect, test } from '@jest/globals';
import { pino } from 'pino';
import { ByteLru } from '../../src/cache/lru.js';
import { ContentCache, contentTag } from '../../src/cache/content-cache.js';
import { InvalidationBus } from '../../src/cache/invalidation-bus.js';

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('ByteLru', () => {
  test('keeps exactly the bound; one byte more evicts the least recently used entry', () => {
    const removed: string[] = [];
    const lru = new ByteLru<string>({ maxBytes: 100, ttlMs: 60_000, onRemove: (key) => removed.push(key) });
    lru.set('a', 'A', 40);
    lru.set('b', 'B', 30);
    lru.set('c', 'C', 30);
    expect([lru.entries, lru.bytes]).toEqual([3, 100]);
    expect(removed).toEqual([]);
    // Reading `a` makes `b` the least recent one.
    expect(lru.get('a')).toBe('A');
    lru.set('d', 'D', 1);
    expect(removed).toEqual(['b']);
    expect([...lru.keys()]).toEqual(['c', 'a', 'd']);
    expect(lru.bytes).toBe(71);
  });

  test('a read moves an entry of the older half to the recent end; one of the newer half stays where it is', () => {
    const lru = new ByteLru<string>({ maxBytes: 100, ttlMs: 60_000 });
    for (const key of ['a', 'b', 'c', 'd']) lru.set(key, key.toUpperCase(), 1);
    // `c` and `d` are the newer half: reading them moves nothing.
    expect([lru.get('c'), lru.get('d')]).toEqual(['C', 'D']);
    expect([...lru.keys()]).toEqual(['a', 'b', 'c', 'd']);
    // `b` is in the older half: read, it becomes the most recent, and `a` is the next to go.
    expect(lru.get('b')).toBe('B');
    expect([...lru.keys()]).toEqual(['a', 'c', 'd', 'b']);
    // `c` was stored third; since then `d` and `b` moved: two of four, so it is in the older half now.
    expect(lru.get('c')).toBe('C');
    expect([...lru.keys()]).toEqual(['a', 'd', 'b', 'c']);
  });

  test('entries read all along outlive entries not read, whatever half they were read in', () => {
    const removed: string[] = [];
    const lru = new ByteLru<number>({ maxBytes: 20, ttlMs: 60_000, onRemove: (key) => removed.push(key) });
    for (let i = 0; i < 20; i += 1) lru.set(`k${i}`, i, 1);
    const hot = ['k0', 'k3', 'k7', 'k12', 'k19'];
    for (let i = 0; i < 30; i += 1) {
      for (const key of hot) expect(lru.get(key)).toBeDefined();
      lru.set(`new${i}`, i, 1);
    }
    expect(removed.filter((key) => hot.includes(key))).toEqual([]);
    for (const key of hot) expect(lru.get(key)).toBeDefined();
  });

  test('a large entry evicts as many old ones as it needs, oldest first', () => {
    const lru = new ByteLru<number>({ maxBytes: 10, ttlMs: 60_000 });
    for (let i = 0; i < 10; i += 1) lru.set(`k${i}`, i, 1);
    lru.set('big', 99, 7);
    expect([...lru.keys()]).toEqual(['k7', 'k8', 'k9', 'big']);
    expect(lru.bytes).toBe(10);
  });

  test('replacing an entry accounts its new size; deleting and clearing give the bytes back', () => {
    const removed: string[] = [];
    const lru = new ByteLru<string>({ maxBytes: 100, ttlMs: 60_000, onRemove: (key) => removed.push(key) });
    lru.set('a', 'short', 10);
    lru.set('a', 'longer', 25);
    expect([lru.entries, lru.bytes, lru.get('a')]).toEqual([1, 25, 'longer']);
    lru.set('b', 'b', 5);
    lru.delete('a');
    expect([lru.entries, lru.bytes]).toEqual([1, 5]);
    lru.clear();
    expect([lru.entries, lru.bytes]).toEqual([0, 0]);
    expect(removed).toEqual(['a', 'a', 'b']);
  });

  test('an entry larger than the whole bound is not kept (and evicts nothing)', () => {
    const lru = new ByteLru<string>({ maxBytes: 10, ttlMs: 60_000 });
    lru.set('a', 'a', 10);
    expect(lru.set('huge', 'x', 11)).toBe(false);
    expect([...lru.keys()]).toEqual(['a']);
    expect(lru.bytes).toBe(10);
  });

  test('entries expire after the TTL, and expired ones give their bytes back', () => {
    const time = clock();
    const lru = new ByteLru<string>({ maxBytes: 100, ttlMs: 1_000, now: time.now });
    lru.set('a', 'A', 10);
    time.advance(999);
    expect(lru.get('a')).toBe('A');
    time.advance(1);
    expect(lru.get('a')).toBeUndefined();
    expect([lru.entries, lru.bytes]).toEqual([0, 0]);
  });
});

describe('ContentCache (in-process bus)', () => {
  const answer = (text: string) => ({ bytes: Buffer.from(text), headers: { ETag: `W/"${text}"` } });

  test("invalidating a workspace drops its entries only, and the byte count follows", async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: 60_000 });
    const k1 = ContentCache.key('w1', 'get /external/posts', '[null,{}]');
    const k2 = ContentCache.key('w2', 'get /external/posts', '[null,{}]');
    for (const [ws, key] of [['w1', k1], ['w2', k2]]) {
      const miss = cache.lookup(key);
      expect('token' in miss).toBe(true);
      cache.store(ws, key, answer(ws), (miss as { token: string }).token);
    }
    expect(cache.stats().entries).toBe(2);
    const bytesBefore = cache.stats().bytes;
    await bus.publish(['workspace:w1']);
    expect('hit' in cache.lookup(k1)).toBe(false);
    expect(cache.lookup(k2)).toEqual({ hit: answer('w2') });
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1, misses: 3, hitRatio: 0.25 });
    expect(cache.stats().bytes).toBeLessThan(bytesBefore);
  });

  test('an answer computed across an invalidation is not kept (it may predate the write)', async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: 60_000 });
    const key = ContentCache.key('w1', 'get /external/workspace', '[null,null]');
    const miss = cache.lookup(key) as { token: string };
    await bus.publish(['workspace:w1']);
    cache.store('w1', key, answer('old'), miss.token);
    expect('hit' in cache.lookup(key)).toBe(false);
  });

  test('an invalidation of one workspace keeps the answers being built for another', async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: 60_000 });
    const a = ContentCache.key('wa', 'get /external/posts', '[null,{}]');
    const b = ContentCache.key('wb', 'get /external/posts', '[null,{}]');
    const missA = cache.lookup(a) as { token: string };
    await bus.publish(['workspace:wb']);
    cache.store('wa', a, answer('a'), missA.token);
    expect(cache.lookup(a)).toEqual({ hit: answer('a') });
    // A token names its workspace's generation: one taken before wb's write is stale for wb only.
    const missB = cache.lookup(b) as { token: string };
    const missA2 = cache.lookup(ContentCache.key('wa', 'get /external/workspace', '[null,null]')) as { token: string };
    cache.store('wb', b, answer('b'), missB.token);
    expect(cache.lookup(b)).toEqual({ hit: answer('b') });
    expect(missA2.token).toBe(missA.token);
  });

  test('concurrent misses of one key share one build; another generation or key does not join it', async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: 60_000 });
    const key = ContentCache.key('w1', 'get /external/posts', '[null,{}]');
    const other = ContentCache.key('w1', 'get /external/posts', '[null,{"page":2}]');
    const first = cache.lookup(key) as { token: string };
    expect(cache.joinBuild(key, first.token)).toBeUndefined();
    let finish: (value: ReturnType<typeof answer> | undefined) => void = () => {};
    cache.building(key, first.token, new Promise((resolve) => (finish = resolve)));
    const second = cache.lookup(key) as { token: string };
    const joined = cache.joinBuild(key, second.token);
    expect(joined).toBeDefined();
    expect(cache.joinBuild(other, second.token)).toBeUndefined();
    finish(answer('built once'));
    await expect(joined).resolves.toEqual(answer('built once'));
    // Once settled, the build is gone: a later miss builds afresh.
    await Promise.resolve();
    expect(cache.joinBuild(key, second.token)).toBeUndefined();
    // A build started before a write is not joined by misses after it.
    cache.building(key, first.token, new Promise(() => {}));
    await bus.publish(['workspace:w1']);
    const afterWrite = cache.lookup(key) as { token: string };
    expect(afterWrite.token).not.toBe(first.token);
    expect(cache.joinBuild(key, afterWrite.token)).toBeUndefined();
  });

  test("a post's change drops what shows it and what declared nothing; answers of other posts, of settings only and of other workspaces stay", async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: 60_000 });
    const entries: [string, string, string[] | undefined][] = [
      ['w1', 'post-x', ['group:gx', 'slug:x']],
      ['w1', 'post-y', ['group:gy', 'slug:y']],
      ['w1', 'list', ['posts']],
      ['w1', 'undeclared', undefined],
      ['w1', 'settings', []],
      ['w2', 'list', ['posts']],
    ];
    const keyOf = (ws: string, name: string) => ContentCache.key(ws, 'get', name);
    for (const [ws, name, dependsOn] of entries) {
      const key = keyOf(ws, name);
      cache.store(ws, key, answer(name), (cache.lookup(key) as { token: string }).token, dependsOn);
    }
    await bus.publish(['posts', 'group:gx', 'slug:x'].map((dependency) => contentTag('w1', dependency)));
    const kept = entries.filter(([ws, name]) => 'hit' in cache.lookup(keyOf(ws, name))).map(([ws, name]) => `${ws}/${name}`);
    expect(kept).toEqual(['w1/post-y', 'w1/settings', 'w2/list']);
    // A slug given to another post drops the answer of whoever showed it under that slug.
    await bus.publish([contentTag('w1', 'slug:y')]);
    expect('hit' in cache.lookup(keyOf('w1', 'post-y'))).toBe(false);
    // The workspace's own change drops everything of it.
    await bus.publish(['workspace:w1']);
    expect('hit' in cache.lookup(keyOf('w1', 'settings'))).toBe(false);
  });

  test('what a republish replaced is offered stale for the grace, never what a withdrawal or a settings change dropped', async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    let clock = 1_000;
    const cache = new ContentCache(bus, { maxBytes: 1_000_000, ttlMs: 60_000, staleGraceMs: 2_000, now: () => clock });
    const key = ContentCache.key('w1', 'get /external/posts', '[null,{}]');
    const keep = (name: string) => cache.store('w1', key, answer(name), (cache.lookup(key) as { token: string }).token, ['posts']);
    keep('v1');
    await bus.publish([contentTag('w1', 'posts', true)]);
    expect(cache.lookup(key)).toEqual({ token: expect.any(String), stale: answer('v1') });
    clock += 1_999;
    expect(cache.lookup(key)).toMatchObject({ stale: answer('v1') });
    clock += 1;
    expect(cache.lookup(key)).not.toHaveProperty('stale');
    // The rebuilt answer replaces it; a withdrawal or the workspace's own change leave nothing stale.
    keep('v2');
    await bus.publish([contentTag('w1', 'posts', true)]);
    keep('v3');
    expect(cache.lookup(key)).toEqual({ hit: answer('v3') });
    await bus.publish([contentTag('w1', 'posts')]);
    expect(cache.lookup(key)).not.toHaveProperty('stale');
    keep('v4');
    await bus.publish([contentTag('w1', 'posts', true)]);
    await bus.publish(['workspace:w1']);
    expect(cache.lookup(key)).not.toHaveProperty('stale');
  });

  test('the byte bound holds over many answers', async () => {
    const bus = await InvalidationBus.start(undefined, pino({ level: 'silent' }));
    const cache = new ContentCache(bus, { maxBytes: 10_000, ttlMs: 60_000 });
    for (let i = 0; i < 100; i += 1) {
      const key = ContentCache.key('w', 'get /external/posts', `[null,{"page":${i}}]`);
      cache.store('w', key, answer('x'.repeat(500)), (cache.lookup(key) as { token: string }).token);
    }
    const { bytes, entries } = cache.stats();
    expect(bytes).toBeLessThanOrEqual(10_000);
    expect(entries).toBeGreaterThan(5);
    // The newest page is still there, the oldest long gone.
    expect('hit' in cache.lookup(ContentCache.key('w', 'get /external/posts', '[null,{"page":99}]'))).toBe(true);
    expect('hit' in cache.lookup(ContentCache.key('w', 'get /external/posts', '[null,{"page":0}]'))).toBe(false);
  });
});
