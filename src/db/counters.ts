import { createHash } from 'node:crypto';
import type { RedisClient } from './redis.js';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';

export interface WindowCount {
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
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
   * Like `hit`, for limits that must hold across all nodes: never counted in one node's memory while a
   * configured Redis is unreachable (null then), because per-node counts would multiply the limit by the
   * number of nodes. Without Redis configured this process is the only node and counts as `hit` does.
   */
  strictHit(key: string, windowMs: number): Promise<WindowCount | null>;
  /**
   * Like `hit`, unless `guard.key`'s window has already counted `guard.reached` (then null, nothing
   * counted): a check and a count that would otherwise be two Redis round trips, in one.
   */
  hitUnless(key: string, windowMs: number, guard: CounterGuard): Promise<WindowCount | null>;
  /** The count of the current window without adding to it (0 when none is open). */
  peek(key: string): Promise<number>;
  reset(key: string): Promise<void>;
}

/** INCRBY under a guard: nothing counted (nil) once the guard's window holds `reached` or more. */
const GUARDED_INCRBY = `
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[3]) then return false end
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1], 'NX')
return {count, redis.call('PTTL', KEYS[1])}`;
const GUARDED_INCRBY_SHA = createHash('sha1').update(GUARDED_INCRBY).digest('hex');

/** The `hit`s of one key (and guard) asked for in one turn of the event loop, sent as one command. */
interface Batch {
  key: string;
  windowMs: number;
  guard?: CounterGuard;
  waiters: { resolve: (count: WindowCount | null) => void; reject: (error: unknown) => void }[];
}

/**
 * While Redis is unreachable the node counts in its own memory (logged once), so limits still hold per
 * node and requests never hang on a queued Redis command.
 *
 * The `hit`s of one key within one turn of the event loop go to Redis as one INCRBY, and each caller
 * gets its own count out of the range it returns, in the order they asked: the same counts as one
 * INCR each, for one round trip instead of many when a busy credential's requests arrive together.
 */
export class RedisCounters implements Counters {
  private degraded = false;
  private readonly batches = new Map<string, Batch>();
  private flushScheduled = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly fallback: Counters,
    private readonly logger: Logger,
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    if (!this.redis.isReady) return this.degrade().hit(key, windowMs);
    this.degraded = false;
    return (await this.batched(key, windowMs))!;
  }

  async hitUnless(key: string, windowMs: number, guard: CounterGuard): Promise<WindowCount | null> {
    if (!this.redis.isReady) return this.degrade().hitUnless(key, windowMs, guard);
    this.degraded = false;
    return this.batched(key, windowMs, guard);
  }

  private degrade(): Counters {
    if (!this.degraded) this.logger.warn('redis unavailable: counting rate limits in this node until it is back');
    this.degraded = true;
    return this.fallback;
  }

  private batched(key: string, windowMs: number, guard?: CounterGuard): Promise<WindowCount | null> {
    const batchKey = guard ? `${key}\n${windowMs}\n${guard.key}\n${guard.reached}` : `${key}\n${windowMs}`;
    let batch = this.batches.get(batchKey);
    if (!batch) this.batches.set(batchKey, (batch = { key, windowMs, guard, waiters: [] }));
    const waiters = batch.waiters;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
  }

  private flush(): void {
    this.flushScheduled = false;
    const batches = [...this.batches.values()];
    this.batches.clear();
    for (const batch of batches) {
      this.countBatch(batch).then(
        (counted) => {
          const first = counted ? counted.count - batch.waiters.length + 1 : 0;
          batch.waiters.forEach(({ resolve }, i) => resolve(counted && { count: first + i, resetInMs: counted.resetInMs }));
        },
        (error: unknown) => batch.waiters.forEach(({ reject }) => reject(error)),
      );
    }
  }

  /** One INCRBY for the whole batch (nothing under a reached guard): the count after it and the window's rest. */
  private async countBatch({ key, windowMs, guard, waiters }: Batch): Promise<WindowCount | null> {
    if (!guard) return this.redisHit(key, windowMs, waiters.length);
    const options = { keys: [`hearth:counter:${key}`, `hearth:counter:${guard.key}`], arguments: [String(windowMs), String(waiters.length), String(guard.reached)] };
    const reply = (await this.redis.evalSha(GUARDED_INCRBY_SHA, options).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.redis.eval(GUARDED_INCRBY, options);
    })) as [number, number] | null;
    return reply && { count: Number(reply[0]), resetInMs: Math.max(0, Number(reply[1])) };
  }

  async strictHit(key: string, windowMs: number): Promise<WindowCount | null> {
    if (!this.redis.isReady) return null;
    try {
      return await this.redisHit(key, windowMs);
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
    if (this.redis.isReady) await this.redis.del(`hearth:counter:${key}`);
  }
}

export class MemoryCounters implements Counters {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(private readonly clock: Clock) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.clock.now().getTime();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
      if (this.windows.size > 100_000) this.sweep(now);
    }
    window.count += 1;
    return { count: window.count, resetInMs: window.endsAt - now };
  }

  strictHit(key: string, windowMs: number): Promise<WindowCount> {
    return this.hit(key, windowMs);
  }

  async hitUnless(key: string, windowMs: number, guard: CounterGuard): Promise<WindowCount | null> {
    return (await this.peek(guard.key)) >= guard.reached ? null : this.hit(key, windowMs);
  }

  async peek(key: string): Promise<number> {
    const window = this.windows.get(key);
    return window && window.endsAt > this.clock.now().getTime() ? window.count : 0;
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
