import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startServices, type ServiceHarness } from '../support/service-harness.js';

// The rate-limit counters, in Redis (shared by nodes, hits of one turn sent as one INCRBY) and in memory.
const harnesses: Record<'redis' | 'memory', ServiceHarness | undefined> = { redis: undefined, memory: undefined };

beforeAll(async () => {
  harnesses.redis = await startServices({ redis: true });
  harnesses.memory = await startServices();
});
afterAll(async () => {
  await Promise.all([harnesses.redis?.close(), harnesses.memory?.close()]);
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
    expect(await counters().peek(key)).toBe(26);
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
