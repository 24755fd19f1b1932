import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startServices, type ServiceHarness } from '../support/service-harness.js';

// The rate-limit counters, in Redis (shared by nodes, hits of one turn sent as one INCRBY) and in memory.
const harnesses: Record<'redis' | 'memory' | 'otherNode', ServiceHarness | undefined> = { redis: undefined, memory: undefined, otherNode: undefined };

beforeAll(async () => {
  harnesses.redis = await startServices({ redis: true });
  harnesses.otherNode = await startServices({ redis: true });
  harnesses.memory = await startServices();
});
afterAll(async () => {
  await Promise.all([harnesses.redis?.close(), harnesses.otherNode?.close(), harnesses.memory?.close()]);
});

const fresh = (name: string) => `test-${name}-${randomBytes(4).toString('hex')}`;

describe.each(['redis', 'memory'] as const)('%s counters', (kind) => {
  const counters = () => harnesses[kind]!.deps.counters;

  test('hits asked for together each get their own count, in the order asked, as one at a time would', async () => {
    const key = fresh('together');
    const counts = await Promise.all(Array.from({ length: 25 }, () => counters().hit(key, 60_000)));
    expect(counts.map(({ count }) => count)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    for (const { resetInMs } of counts) expect(resetInMs).toBeGreaterThan(50_000);
    expect((await counters().hit(key, 60_000)).count).toBe(26);
    // 25 hits in a moment make the key busy: in Redis the 26th may take counts ahead (see below).
    expect(await counters().peek(key)).toBeGreaterThanOrEqual(26);
  });

  test('hitUnless counts while the guard is below its bound, then counts nothing', async () => {
    const key = fresh('guarded');
    const guard = { key: fresh('guard'), reached: 2 };
    expect((await counters().hitUnless(key, 60_000, guard))?.count).toBe(1);
    await counters().hit(guard.key, 60_000);
    const together = await Promise.all([counters().hitUnless(key, 60_000, guard), counters().hitUnless(key, 60_000, guard)]);
    expect(together.map((counted) => counted?.count)).toEqual([2, 3]);
    await counters().hit(guard.key, 60_000);
    expect(await counters().hitUnless(key, 60_000, guard)).toBeNull();
    expect(await Promise.all([counters().hitUnless(key, 60_000, guard), counters().hitUnless(key, 60_000, guard)])).toEqual([null, null]);
    expect(await counters().peek(key)).toBe(3);
  });
});

test('in memory, hitUnlessHeld always answers at once, as hitUnless would', async () => {
  const counters = harnesses.memory!.deps.counters;
  const key = fresh('held-memory');
  const guard = { key: fresh('guard'), reached: 1 };
  expect(counters.hitUnlessHeld(key, 60_000, guard)).toMatchObject({ count: 1 });
  expect(counters.hitUnlessHeld(key, 60_000, guard)).toMatchObject({ count: 2 });
  await counters.hit(guard.key, 60_000);
  expect(counters.hitUnlessHeld(key, 60_000, guard)).toBeNull();
  expect(await counters.peek(key)).toBe(2);
});

describe('a busy key in Redis (counts taken ahead)', () => {
  const node = () => harnesses.redis!.deps.counters;
  const other = () => harnesses.otherNode!.deps.counters;
  /** Bursts of concurrent hits for 60 ms, so that the node sees the key as busy and counts ahead. */
  const busy = async (hit: () => Promise<{ count: number } | null>) => {
    const counts: number[] = [];
    for (const until = Date.now() + 60; Date.now() < until; ) {
      for (const counted of await Promise.all(Array.from({ length: 20 }, hit))) counts.push(counted!.count);
    }
    return counts;
  };

  test('every hit on either node gets a count of its own, and at most 64 per node go unused', async () => {
    const key = fresh('busy');
    const [here, there] = await Promise.all([busy(() => node().hit(key, 60_000)), busy(() => other().hit(key, 60_000))]);
    const all = [...here, ...there];
    expect(new Set(all).size).toBe(all.length);
    const shared = await node().peek(key);
    expect(shared).toBeGreaterThanOrEqual(all.length);
    expect(shared).toBeLessThanOrEqual(all.length + 2 * 64);
    expect(Math.max(...all)).toBeLessThanOrEqual(shared);
  });

  test('a guard counted on this node stops counts handed out ahead at once', async () => {
    const key = fresh('busy-guarded');
    const guard = { key: fresh('guard'), reached: 3 };
    await busy(() => node().hitUnless(key, 60_000, guard));
    for (let i = 0; i < 3; i += 1) await node().hit(guard.key, 60_000);
    const before = await node().peek(key);
    expect(await Promise.all(Array.from({ length: 5 }, () => node().hitUnless(key, 60_000, guard)))).toEqual([null, null, null, null, null]);
    expect(await node().peek(key)).toBe(before);
  });

  test('hitUnlessHeld hands out counts held ahead at once, each once; without any it counts nothing', async () => {
    const key = fresh('held');
    const guard = { key: fresh('guard'), reached: 3 };
    expect(node().hitUnlessHeld(key, 60_000, guard)).toBeUndefined();
    expect(await node().peek(key)).toBe(0);
    const counts = await busy(() => node().hitUnless(key, 60_000, guard));
    const held: number[] = [];
    for (let i = 0; i < 200 && held.length < 5; i += 1) {
      counts.push((await node().hitUnless(key, 60_000, guard))!.count);
      const now = node().hitUnlessHeld(key, 60_000, guard);
      if (now) held.push(now.count);
    }
    expect(held.length).toBe(5);
    expect(new Set([...counts, ...held]).size).toBe(counts.length + held.length);
    expect(Math.max(...held)).toBeLessThanOrEqual(await node().peek(key));
    for (let i = 0; i < 3; i += 1) await node().hit(guard.key, 60_000);
    expect(node().hitUnlessHeld(key, 60_000, guard)).toBeNull();
  });

  test('counts held for a busy key are topped up in the background once half are used: more are held without any hit waiting for them', async () => {
    const key = fresh('topped-up');
    const guard = { key: fresh('guard'), reached: 1_000_000 };
    const held = () => node().hitUnlessHeld(key, 60_000, guard);
    const counts: number[] = [];
    let toppedUp = false;
    // Tried a few times: a stall of this process (a busy machine) lets the key cool down between the steps.
    for (let round = 0; round < 10 && !toppedUp; round += 1) {
      counts.push(...(await busy(() => node().hitUnless(key, 60_000, guard))));
      // Every count held handed out at once, as to a burst of warm reads.
      for (let counted = held(); counted; counted = held()) counts.push(counted.count);
      // Only a hit that waits for Redis takes more, unless more were taken in the background meanwhile.
      for (const until = Date.now() + 500; !toppedUp && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        const counted = held();
        if (counted) counts.push(counted.count);
        toppedUp = counted !== undefined;
      }
    }
    expect(toppedUp).toBe(true);
    expect(new Set(counts).size).toBe(counts.length);
    expect(Math.max(...counts)).toBeLessThanOrEqual(await node().peek(key));
  });

  test('a guard reached on another node stops them within 50 ms', async () => {
    const key = fresh('busy-guarded-elsewhere');
    const guard = { key: fresh('guard'), reached: 3 };
    await busy(() => node().hitUnless(key, 60_000, guard));
    for (let i = 0; i < 3; i += 1) await other().hit(guard.key, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await node().hitUnless(key, 60_000, guard)).toBeNull();
  });
});
