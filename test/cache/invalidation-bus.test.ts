import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { pino } from 'pino';
import { InvalidationBus } from '../../src/cache/invalidation-bus.js';
import { connectRedis, type RedisClient } from '../../src/db/redis.js';

/**
 * Invalidations between nodes through the shared Redis: every tag a node invalidates reaches the others,
 * a burst of them travels in a few publishes, and none is carried by a publish that left before it was made.
 */

const logger = pino({ level: 'silent' });
const TAGS_CHANNEL = 'hearth:invalidate:tags';

const redis: RedisClient[] = [];
const buses: InvalidationBus[] = [];
/** What went over the tags channel, as any subscriber (another node) hears it. */
let heard: string[][] = [];

async function client(): Promise<RedisClient> {
  const made = await connectRedis(process.env.TEST_REDIS_URL!, logger);
  redis.push(made);
  return made;
}

beforeAll(async () => {
  const listener = await client();
  await listener.subscribe(TAGS_CHANNEL, (message) => heard.push((JSON.parse(message) as { tags: string[] }).tags));
});

afterAll(async () => {
  for (const bus of buses) await bus.close();
  for (const made of redis) await made.quit().catch(() => undefined);
});

async function twoNodes() {
  const a = await InvalidationBus.start(await client(), logger);
  const b = await InvalidationBus.start(await client(), logger);
  buses.push(a, b);
  const onB: string[] = [];
  b.onInvalidate((tags) => onB.push(...tags));
  return { a, onB };
}

/** Waits for subscribers to have read what was published (Redis acknowledges a publish before they read it). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('InvalidationBus over Redis', () => {
  test('closing the bus (a node stopping) warns of nothing; losing its subscription while open does', async () => {
    const warnings: string[] = [];
    const watching = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
    const closing = await InvalidationBus.start(await client(), watching);
    await closing.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warnings).toEqual([]);

    const subscriberOf = (bus: InvalidationBus) => (bus as unknown as { subscriber: RedisClient }).subscriber;
    const open = await InvalidationBus.start(await client(), watching);
    buses.push(open);
    subscriberOf(open).destroy();
    await until(() => warnings.length > 0);
    expect(warnings).toEqual(['cache invalidations unheard: caches bypassed until resubscribed']);
    expect(open.live).toBe(false);
  });

  test('500 invalidations made at once reach the other node in at most two publishes', async () => {
    const { a, onB } = await twoNodes();
    heard = [];
    const tags = Array.from({ length: 500 }, (_, i) => `workspace:burst-${i % 50}`);
    await Promise.all(tags.map((tag) => a.publish([tag])));
    // Other test files share this Redis: only this test's tags count.
    const burst = () => new Set(onB.filter((tag) => tag.startsWith('workspace:burst-')));
    await until(() => burst().size === 50 && new Set(heard.flat().filter((tag) => tag.startsWith('workspace:burst-'))).size === 50);
    expect(burst()).toEqual(new Set(tags));
    const publishes = heard.filter((message) => message.some((tag) => tag.startsWith('workspace:burst-')));
    expect(publishes.length).toBeGreaterThanOrEqual(1);
    expect(publishes.length).toBeLessThanOrEqual(2);
  });

  test('an invalidation made while a publish is on its way is not answered by that publish: it leaves in the next one', async () => {
    const { a, onB } = await twoNodes();
    heard = [];
    const first = a.publish(['session:first']);
    // The first publish has left by the next macrotask; this one is made after it.
    await new Promise((resolve) => setImmediate(resolve));
    let secondAnswered = false;
    const second = a.publish(['session:second']).then(() => (secondAnswered = true));
    await first;
    await until(() => heard.some((message) => message.includes('session:first')));
    const carriedFirst = heard.find((message) => message.includes('session:first'));
    expect(carriedFirst).toEqual(['session:first']);
    await second;
    expect(secondAnswered).toBe(true);
    // B and the listener below are two subscribers: each hears the publish in its own time.
    await until(() => onB.includes('session:second') && heard.some((message) => message.includes('session:second')));
    expect(heard.filter((message) => message.some((tag) => tag === 'session:first' || tag === 'session:second'))).toEqual([['session:first'], ['session:second']]);
  });

  test('the node that invalidates drops its own entries at once, before any publish', async () => {
    const bus = await InvalidationBus.start(await client(), logger);
    buses.push(bus);
    const here: string[] = [];
    bus.onInvalidate((tags) => here.push(...tags));
    const sent = bus.publish(['credentials:now']);
    expect(here).toEqual(['credentials:now']);
    await sent;
  });

  test("an invalidation made while this node's own Redis connection is away reaches the others once it is back", async () => {
    const publisher = await client();
    const a = await InvalidationBus.start(publisher, logger);
    const b = await InvalidationBus.start(await client(), logger);
    buses.push(a, b);
    // Other test files share this Redis: B hears their invalidations too, so only these tags count.
    const away = [`content:while-away-${process.pid}`, `credentials:while-away-${process.pid}`];
    const onB: string[] = [];
    b.onInvalidate((tags) => onB.push(...tags.filter((tag) => away.includes(tag))));
    // Only A's connection goes: B keeps its subscription and keeps trusting its caches.
    await publisher.disconnect();
    await a.publish([away[0]]);
    await a.revoke([away[1]]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(onB).toEqual([]);
    await publisher.connect();
    await until(() => away.every((tag) => onB.includes(tag)));
    expect(new Set(onB)).toEqual(new Set(away));
  });

  describe('a revocation (a rotated key, a logout, a removed member)', () => {
    const REVOKE_CHANNEL = 'hearth:invalidate:revoke';
    interface Revocation {
      from: string;
      revocation: string;
      tags: string[];
    }

    /** A node that hears revocations but says it applied one only when the test lets it (a node busy elsewhere). */
    async function slowNode() {
      const received: Revocation[] = [];
      const subscriber = await client();
      await subscriber.pSubscribe('hearth:invalidate:*', (message, channel) => {
        if (channel === REVOKE_CHANNEL) received.push(JSON.parse(message) as Revocation);
      });
      const publisher = await client();
      return {
        received,
        applied: (revocation: Revocation) => publisher.publish(`hearth:revocation-applied:${revocation.from}`, revocation.revocation),
        stop: () => subscriber.pUnsubscribe(),
      };
    }

    test('is answered only once every other node has dropped what it revokes', async () => {
      const { a, onB } = await twoNodes();
      const slow = await slowNode();
      let answered = false;
      const revoked = a.revoke(['credentials:rotated']).then(() => (answered = true));
      await until(() => slow.received.some(({ tags }) => tags.includes('credentials:rotated')));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false);
      await slow.applied(slow.received.find(({ tags }) => tags.includes('credentials:rotated'))!);
      await revoked;
      // No waiting for B here: the answer itself says B has dropped it.
      expect(onB).toContain('credentials:rotated');
      await slow.stop();
    });

    test('a node that never says so holds it up for two seconds at most, and that is logged', async () => {
      const warnings: string[] = [];
      const watching = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
      const bus = await InvalidationBus.start(await client(), watching);
      buses.push(bus);
      const silent = await slowNode();
      const startedAt = Date.now();
      await bus.revoke(['session:unconfirmed']);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_900);
      expect(Date.now() - startedAt).toBeLessThan(4_000);
      expect(warnings).toEqual(['revocation not confirmed by every node in time']);
      await silent.stop();
    });
  });
});
