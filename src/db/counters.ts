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
