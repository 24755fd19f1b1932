import type { Clock } from '../shared/clock.js';
import type { Admission, CounterGuard, Counters, WindowCount } from './counters.js';

/** Counters in this node's memory: a node without Redis, and any node while Redis is away (`RedisCounters`). */
export class MemoryCounters implements Counters {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  /** `admitWithin`'s record: the times of the hits admitted, oldest first. */
  private readonly logs = new Map<string, { windowMs: number; admitted: number[] }>();

  constructor(private readonly clock: Clock) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.countHit(key, windowMs);
  }

  private countHit(key: string, windowMs: number): WindowCount {
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

  async admitWithin(key: string, windowMs: number, limit: number): Promise<Admission> {
    const now = this.clock.now().getTime();
    let log = this.logs.get(key);
    if (!log) {
      log = { windowMs, admitted: [] };
      this.logs.set(key, log);
      if (this.logs.size > 100_000) this.sweepLogs(now);
    }
    while (log.admitted.length > 0 && log.admitted[0] <= now - windowMs) log.admitted.shift();
    if (log.admitted.length >= limit) return { admitted: false, retryInMs: log.admitted[0] + windowMs - now };
    log.admitted.push(now);
    return { admitted: true, retryInMs: 0 };
  }

  async hitUnless(key: string, windowMs: number, guard: CounterGuard): Promise<WindowCount | null> {
    return this.hitUnlessHeld(key, windowMs, guard);
  }

  hitUnlessHeld(key: string, windowMs: number, guard: CounterGuard): WindowCount | null {
    return this.count(guard.key) >= guard.reached ? null : this.countHit(key, windowMs);
  }

  async peek(key: string): Promise<number> {
    return this.count(key);
  }

  private count(key: string): number {
    const window = this.windows.get(key);
    return window && window.endsAt > this.clock.now().getTime() ? window.count : 0;
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
    this.logs.delete(key);
  }

  private sweepLogs(now: number): void {
    for (const [key, log] of this.logs) if ((log.admitted.at(-1) ?? 0) <= now - log.windowMs) this.logs.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
