import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from './redis.js';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';

export interface WindowCount {
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
}

export interface Admission {
  admitted: boolean;
  /** When refused: milliseconds until the oldest admitted hit leaves the window (0 when admitted). */
  retryInMs: number;
}

export interface CounterGuard {
  key: string;
  reached: number;
}

/**
 * Fixed-window counters for rate limits and flood guards. With Redis they are shared by every node and
 * counted atomically (INCR); without it they live in this process.
 */
export interface Counters {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /**
   * A sliding-window limit: admits (and records) the hit when fewer than `limit` hits were admitted in the
   * last `windowMs`, so no span of that length ever holds more than `limit`; a refused hit is not recorded.
   * It must hold across all nodes: never counted in one node's memory while a configured Redis is
   * unreachable (null then), because per-node counts would multiply the limit by the number of nodes.
   * Without Redis configured this process is the only node and keeps the record itself.
   */
  admitWithin(key: string, windowMs: number, limit: number): Promise<Admission | null>;
  /**
   * Like `hit`, unless `guard.key`'s window has already counted `guard.reached` (then null, nothing
   * counted): a check and a count that would otherwise be two Redis round trips, in one.
   */
  hitUnless(key: string, windowMs: number, guard: CounterGuard): Promise<WindowCount | null>;
  /**
   * `hitUnless` answered at once from what this node holds (its own counts, or counts of the shared
   * counter taken ahead), so a hot path needs no promise; undefined, with nothing counted, when the
   * answer needs a round trip (then call `hitUnless`).
   */
  hitUnlessHeld(key: string, windowMs: number, guard: CounterGuard): WindowCount | null | undefined;
  /** The count of the current window without adding to it (0 when none is open). */
  peek(key: string): Promise<number>;
  reset(key: string): Promise<void>;
}

/**
 * INCRBY under a guard: nothing counted (-1) once the guard's window holds `reached` or more. Answers
 * `[count, window rest in ms, the guard's count]`.
 */
const GUARDED_INCRBY = `
local guarded = tonumber(redis.call('GET', KEYS[2]) or '0')
if guarded >= tonumber(ARGV[3]) then return {-1, 0, guarded} end
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1], 'NX')
return {count, redis.call('PTTL', KEYS[1]), guarded}`;
const GUARDED_INCRBY_SHA = createHash('sha1').update(GUARDED_INCRBY).digest('hex');

/**
 * The sliding-window log of `admitWithin`: a sorted set of admitted hits scored by time (the caller's
 * clock). Answers `[1, 0]` when the hit is admitted and recorded, `[0, ms until a slot frees]` when not.
 */
const ADMIT_WITHIN = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return {1, 0}`;

/** A hit's member in the log: unique even for two hits in one millisecond on two nodes. */
const hitMember = (now: number) => `${now}:${randomBytes(6).toString('base64url')}`;

/** A key this node hit at least this often in the last DEMAND_WINDOW_MS is busy: it counts ahead. */
const BUSY_HITS = 8;
const DEMAND_WINDOW_MS = 10;
/** At most this many counts are taken ahead per key, so at most this many can go unused per window. */
const MAX_AHEAD = 64;
/** How long a guard's count read from Redis (or counted here) decides for counts handed out ahead. */
const GUARD_FRESH_MS = 50;
/** Bookkeeping per key is dropped past this many keys (it only ever makes a busy key cheaper). */
const MAX_TRACKED_KEYS = 10_000;

/** What a key's demand and counts taken ahead are kept under: one key may be counted in windows of several lengths. */
const slotOf = (key: string, windowMs: number) => `${key}\n${windowMs}`;

/** The `hit`s of one key (and guard) asked for in one turn of the event loop, sent as one command. */
interface Batch {
  slot: string;
  key: string;
  windowMs: number;
  guard?: CounterGuard;
  waiters: { resolve: (count: WindowCount | null) => void; reject: (error: unknown) => void }[];
}

/** Counts of a busy key taken from Redis ahead of its hits, handed out here in order until the window ends. */
interface Range {
  next: number;
  last: number;
  resetAt: number;
}

/** A busy key's ranges, oldest first, and whether more are being taken while they run low. */
interface Reserve {
  ranges: Range[];
  topping: boolean;
}

/**
 * While Redis is unreachable the node counts in its own memory (logged once), so limits still hold per
 * node and requests never hang on a queued Redis command.
 *
 * Every count is a count of the shared Redis counter, each given once, so a limit holds across nodes
 * as with one INCR per hit, but fewer round trips carry them: the hits of one key within one turn of
 * the event loop go as one INCRBY, each caller getting its own count out of the range, in the order
 * asked; and a busy key (BUSY_HITS in DEMAND_WINDOW_MS on this node) takes up to MAX_AHEAD more counts
 * than asked, handed to its next hits without a round trip while the window lasts; once half of them
 * are used, more are taken in the background (up to MAX_AHEAD held in all), so a steady stream of hits
 * never waits for Redis. The cost: counts taken ahead and not used are lost to that window (at most
 * MAX_AHEAD per busy key and node), so a limit may bite that many hits early, never late. A guarded hit
 * is handed a count ahead only while its guard's count is known from the last GUARD_FRESH_MS (from
 * Redis, or counted on this node).
 */
export class RedisCounters implements Counters {
  private degraded = false;
  private readonly batches = new Map<string, Batch>();
  private flushScheduled = false;
  private readonly reserves = new Map<string, Reserve>();
  private readonly demand = new Map<string, { since: number; hits: number; previous: number }>();
  private readonly guards = new Map<string, { count: number; at: number }>();

  constructor(
    private readonly redis: RedisClient,
    private readonly fallback: Counters,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    if (!this.redis.isReady) return this.degrade().hit(key, windowMs);
    this.degraded = false;
    return (await this.counted(key, windowMs))!;
  }

  async hitUnless(key: string, windowMs: number, guard: CounterGuard): Promise<WindowCount | null> {
    if (!this.redis.isReady) return this.degrade().hitUnless(key, windowMs, guard);
    this.degraded = false;
    return this.counted(key, windowMs, guard);
  }

  private degrade(): Counters {
    if (!this.degraded) this.logger.warn('redis unavailable: counting rate limits in this node until it is back');
    this.degraded = true;
    return this.fallback;
  }

  hitUnlessHeld(key: string, windowMs: number, guard: CounterGuard): WindowCount | null | undefined {
    if (!this.redis.isReady) return this.degrade().hitUnlessHeld(key, windowMs, guard);
    this.degraded = false;
    const now = Date.now();
    const slot = slotOf(key, windowMs);
    const held = this.fromReserve(slot, key, windowMs, now, guard);
    if (held !== undefined) this.noteDemand(slot, now);
    return held;
  }

  /** The range of counts taken ahead for `slot` to hand out next: some left, its window lasting. */
  private usableRange(slot: string, now: number): Range | undefined {
    const ranges = this.reserves.get(slot)?.ranges;
    if (!ranges) return undefined;
    while (ranges.length > 0 && !(ranges[0].next <= ranges[0].last && ranges[0].resetAt > now)) ranges.shift();
    return ranges[0];
  }

  /** A count taken ahead for `slot`, or null under a reached guard; undefined when neither can be told here. */
  private fromReserve(slot: string, key: string, windowMs: number, now: number, guard?: CounterGuard): WindowCount | null | undefined {
    const range = this.usableRange(slot, now);
    if (!range) return undefined;
    let count: number;
    if (!guard) {
      count = range.next++;
      if (this.guards.has(key)) this.guards.set(key, { count, at: now });
    } else {
      const known = this.guards.get(guard.key);
      if (!known || now - known.at > GUARD_FRESH_MS) return undefined;
      if (known.count >= guard.reached) return null;
      count = range.next++;
    }
    this.topUp(slot, key, windowMs, guard);
    return { count, resetInMs: range.resetAt - now };
  }

  /** Takes more counts ahead in the background once half of those held are used, while the key stays busy. */
  private topUp(slot: string, key: string, windowMs: number, guard?: CounterGuard): void {
    const reserve = this.reserves.get(slot);
    if (!reserve || reserve.topping || !this.redis.isReady) return;
    const held = reserve.ranges.reduce((sum, range) => sum + Math.max(0, range.last - range.next + 1), 0);
    const wanted = Math.min(MAX_AHEAD - held, this.demand.get(slot)?.previous ?? 0);
    if (held > MAX_AHEAD / 2 || wanted < BUSY_HITS) return;
    reserve.topping = true;
    this.countBatch({ slot, key, windowMs, guard, waiters: [] }, wanted).then(
      (counted) => {
        reserve.topping = false;
        if (!counted) return;
        const at = Date.now();
        if (this.guards.has(key)) this.guards.set(key, { count: counted.count, at });
        reserve.ranges.push({ next: counted.count - wanted + 1, last: counted.count, resetAt: at + counted.resetInMs });
      },
      // Redis went away meanwhile: the next hits count as if none were held.
      () => (reserve.topping = false),
    );
  }

  private counted(key: string, windowMs: number, guard?: CounterGuard): Promise<WindowCount | null> {
    const now = Date.now();
    const slot = slotOf(key, windowMs);
    this.noteDemand(slot, now);
    const held = this.fromReserve(slot, key, windowMs, now, guard);
    if (held !== undefined) return Promise.resolve(held);
    const batchKey = guard ? `${slot}\n${guard.key}\n${guard.reached}` : slot;
    let batch = this.batches.get(batchKey);
    if (!batch) this.batches.set(batchKey, (batch = { slot, key, windowMs, guard, waiters: [] }));
    const waiters = batch.waiters;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
  }

  private noteDemand(slot: string, now: number): void {
    let demand = this.demand.get(slot);
    if (!demand) {
      if (this.demand.size >= MAX_TRACKED_KEYS) this.demand.clear();
      this.demand.set(slot, (demand = { since: now, hits: 0, previous: 0 }));
    }
    if (now - demand.since >= DEMAND_WINDOW_MS) {
      demand.previous = now - demand.since < 2 * DEMAND_WINDOW_MS ? demand.hits : 0;
      demand.hits = 0;
      demand.since = now;
    }
    demand.hits += 1;
  }

  /** Counts to take ahead for a key: none while it still holds some (a guard's refresh) or is taking more, so none are dropped unused. */
  private aheadFor(slot: string, now: number): number {
    if (this.usableRange(slot, now) || this.reserves.get(slot)?.topping) return 0;
    const previous = this.demand.get(slot)?.previous ?? 0;
    return previous >= BUSY_HITS ? Math.min(MAX_AHEAD, previous) : 0;
  }

  private flush(): void {
    this.flushScheduled = false;
    const batches = [...this.batches.values()];
    this.batches.clear();
    if (this.reserves.size >= MAX_TRACKED_KEYS) this.reserves.clear();
    if (this.guards.size >= MAX_TRACKED_KEYS) this.guards.clear();
    const now = Date.now();
    for (const batch of batches) {
      if (!this.redis.isReady) {
        // Gone since the hits were asked for: counted here, as they would have been a moment later.
        const fallback = this.degrade();
        for (const { resolve, reject } of batch.waiters) {
          (batch.guard ? fallback.hitUnless(batch.key, batch.windowMs, batch.guard) : fallback.hit(batch.key, batch.windowMs)).then(resolve, reject);
        }
        continue;
      }
      const ahead = this.aheadFor(batch.slot, now);
      const asked = batch.waiters.length + ahead;
      this.countBatch(batch, asked).then(
        (counted) => {
          const now = Date.now();
          if (counted && this.guards.has(batch.key)) this.guards.set(batch.key, { count: counted.count, at: now });
          const first = counted ? counted.count - asked + 1 : 0;
          if (counted && ahead > 0) this.reserves.set(batch.slot, { ranges: [{ next: counted.count - ahead + 1, last: counted.count, resetAt: now + counted.resetInMs }], topping: false });
          batch.waiters.forEach(({ resolve }, i) => resolve(counted && { count: first + i, resetInMs: counted.resetInMs }));
        },
        (error: unknown) => batch.waiters.forEach(({ reject }) => reject(error)),
      );
    }
  }

  /** One INCRBY of `by` for the whole batch (nothing under a reached guard): the count after it and the window's rest. */
  private async countBatch({ key, windowMs, guard }: Batch, by: number): Promise<WindowCount | null> {
    if (!guard) return this.redisHit(key, windowMs, by);
    const options = { keys: [`hearth:counter:${key}`, `hearth:counter:${guard.key}`], arguments: [String(windowMs), String(by), String(guard.reached)] };
    const [count, ttl, guarded] = (await this.redis.evalSha(GUARDED_INCRBY_SHA, options).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.redis.eval(GUARDED_INCRBY, options);
    })) as [number, number, number];
    this.guards.set(guard.key, { count: Number(guarded), at: Date.now() });
    return Number(count) < 0 ? null : { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
  }

  async admitWithin(key: string, windowMs: number, limit: number): Promise<Admission | null> {
    if (!this.redis.isReady) return null;
    const now = this.clock.now().getTime();
    try {
      const [admitted, retryInMs] = (await this.redis.eval(ADMIT_WITHIN, {
        keys: [`hearth:window:${key}`],
        arguments: [String(now), String(windowMs), String(limit), hitMember(now)],
      })) as [number, number];
      return { admitted: admitted === 1, retryInMs: Math.max(0, Number(retryInMs)) };
    } catch (error) {
      // The connection dropped under the command: treated like no connection at all.
      this.logger.warn({ err: error, key }, 'redis unavailable: a shared count could not be taken');
      return null;
    }
  }

  private async redisHit(key: string, windowMs: number, by = 1): Promise<WindowCount> {
    const fullKey = `hearth:counter:${key}`;
    const [count, , ttl] = (await this.redis
      .multi()
      .incrBy(fullKey, by)
      .pExpire(fullKey, windowMs, 'NX')
      .pTTL(fullKey)
      .exec()) as unknown as [number, unknown, number];
    return { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
  }

  async peek(key: string): Promise<number> {
    if (!this.redis.isReady) return this.fallback.peek(key);
    return Number((await this.redis.get(`hearth:counter:${key}`)) ?? 0);
  }

  async reset(key: string): Promise<void> {
    await this.fallback.reset(key);
    if (this.redis.isReady) await this.redis.del([`hearth:counter:${key}`, `hearth:window:${key}`]);
  }
}
