import type { RedisClient } from './redis.js';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';

export interface WindowCount {
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
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
  /** The count of the current window without adding to it (0 when none is open). */
  peek(key: string): Promise<number>;
  reset(key: string): Promise<void>;
}

/**
 * While Redis is unreachable the node counts in its own memory (logged once), so limits still hold per
 * node and requests never hang on a queued Redis command.
 */
export class RedisCounters implements Counters {
  private degraded = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly fallback: Counters,
    private readonly logger: Logger,
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    if (!this.redis.isReady) {
      if (!this.degraded) this.logger.warn('redis unavailable: counting rate limits in this node until it is back');
      this.degraded = true;
      return this.fallback.hit(key, windowMs);
    }
    this.degraded = false;
    return this.redisHit(key, windowMs);
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

  private async redisHit(key: string, windowMs: number): Promise<WindowCount> {
    const fullKey = `hearth:counter:${key}`;
    const [count, , ttl] = (await this.redis
      .multi()
      .incr(fullKey)
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
