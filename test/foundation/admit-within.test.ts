import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { connectRedis, type RedisClient } from '../../src/db/redis.js';
import { RedisCounters, type Counters } from '../../src/db/counters.js';
import { MemoryCounters } from '../../src/db/memory-counters.js';
import { ManualClock } from '../../src/shared/clock.js';

// `admitWithin`, the sliding-window limit (the chat flood guard), the same on both kinds of counters: with
// Redis every node shares one record, so two RedisCounters stand for two nodes.
const logger = pino({ level: 'silent' });
let redis: RedisClient;
beforeAll(async () => {
  redis = await connectRedis(process.env.TEST_REDIS_URL!, logger, 'counters-test');
});
afterAll(async () => {
  await redis?.quit();
});

const inRedis = (clock: ManualClock) => new RedisCounters(redis, new MemoryCounters(clock), logger, clock);
const kinds: [string, (clock: ManualClock) => [Counters, Counters]][] = [
  // One process is the only node: both names stand for the same counters.
  [
    'in memory',
    (clock) => {
      const only = new MemoryCounters(clock);
      return [only, only];
    },
  ],
  ['in Redis, shared by two nodes', (clock) => [inRedis(clock), inRedis(clock)]],
];

describe.each(kinds)('admitWithin %s', (_kind, make) => {
  test('admits the limit in any window of its length, one more only as the oldest leaves; refusals hold no slot', async () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const [a, b] = make(clock);
    const key = `test-${randomBytes(6).toString('hex')}`;
    const admit = async (node: Counters) => (await node.admitWithin(key, 10_000, 3))!;
    expect(await admit(a)).toEqual({ admitted: true, retryInMs: 0 });
    clock.advance(1_000);
    expect((await admit(b)).admitted).toBe(true);
    expect((await admit(a)).admitted).toBe(true);
    expect(await admit(b)).toEqual({ admitted: false, retryInMs: 9_000 });
    clock.advance(8_999);
    expect(await admit(a)).toEqual({ admitted: false, retryInMs: 1 });
    clock.advance(1);
    expect((await admit(b)).admitted).toBe(true);
    expect((await admit(a)).admitted).toBe(false);
    clock.advance(1_000);
    expect((await admit(a)).admitted).toBe(true);
    expect((await admit(b)).admitted).toBe(true);
    // Another key has its own record.
    expect(await a.admitWithin(`${key}-other`, 10_000, 3)).toEqual({ admitted: true, retryInMs: 0 });
  });
});

test('admitWithin in Redis answers null, never a per-node count, while Redis is unreachable', async () => {
  const clock = new ManualClock(new Date());
  const closed = await connectRedis(process.env.TEST_REDIS_URL!, logger, 'counters-closed');
  await closed.quit();
  const counters = new RedisCounters(closed, new MemoryCounters(clock), logger, clock);
  expect(await counters.admitWithin('test-closed', 10_000, 3)).toBeNull();
});
