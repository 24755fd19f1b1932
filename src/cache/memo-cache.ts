import { ByteLru, monotonicMs } from './lru.js';
import type { InvalidationBus } from './invalidation-bus.js';

/** Share of the default lifetime after which a hit reloads its entry in the background. */
export const REFRESH_AFTER = 0.8;

/** Enough for every credential and session of a busy node; each entry counts as one unit. */
const MAX_ENTRIES = 50_000;

interface Memo {
  value: unknown;
  tags: string[];
  /** When a hit reloads it in the background (entries on the default lifetime only). */
  refreshAt: number;
}

/**
 * Which tags were invalidated since a load began: a load is kept only if none of its value's tags was, so
 * a burst of unrelated changes (every content publish) does not throw away every session load in flight.
 */
class InvalidationLog {
  private seq = 0;
  private everything = 0;
  private readonly byTag = new Map<string, number>();
  private readonly loading = new Map<number, number>();

  begin(): number {
    this.loading.set(this.seq, (this.loading.get(this.seq) ?? 0) + 1);
    return this.seq;
  }

  /** Ends the load begun at `since`: whether a value under `tags` it read may still be current. */
  end(since: number, tags: string[]): boolean {
    const current = this.everything <= since && tags.every((tag) => (this.byTag.get(tag) ?? 0) <= since);
    const left = this.loading.get(since)! - 1;
    if (left) this.loading.set(since, left);
    else this.loading.delete(since);
    this.forgetUnneeded();
    return current;
  }

  invalidated(tags: string[]): void {
    this.seq += 1;
    for (const tag of tags) this.byTag.set(tag, this.seq);
  }

  invalidatedEverything(): void {
    this.everything = this.seq += 1;
  }

  /** Only loads still running need to know about earlier invalidations. */
  private forgetUnneeded(): void {
    if (!this.loading.size) return this.byTag.clear();
    if (this.byTag.size < 1_000) return;
    const oldest = Math.min(...this.loading.keys());
    for (const [tag, seq] of this.byTag) if (seq <= oldest) this.byTag.delete(tag);
  }
}

/**
 * Short-lived answers of hot point lookups (key -> workspace, session -> user, membership roles), each
 * with the tags whose invalidation drops it on every node. Misses (null) are never kept, so a new
 * credential works at once; a revoked one stops as soon as its tag is published (or the TTL runs out).
 *
 * Entries on the default lifetime (what every request looks up: credentials, sessions, memberships) are
 * reloaded in the background by the first hit in the last fifth of their lifetime, so a key in steady use never
 * makes a request wait on its reload; the answer served meanwhile is no older than the lifetime.
 */
export class MemoCache {
  private readonly lru: ByteLru<Memo>;
  /** The keys remembered under each tag: most tags name one entry (a conversation, a session), kept without a Set. */
  private readonly byTag = new Map<string, string | Set<string>>();
  private readonly refreshing = new Set<string>();
  private readonly invalidations = new InvalidationLog();
  private readonly now: () => number;

  constructor(
    private readonly bus: InvalidationBus,
    private readonly options: { ttlMs: number; now?: () => number },
  ) {
    this.now = options.now ?? monotonicMs;
    this.lru = new ByteLru<Memo>({ maxBytes: MAX_ENTRIES, ttlMs: options.ttlMs, now: this.now, onRemove: (key, memo) => this.unindex(key, memo.tags) });
    bus.onInvalidate((tags) => {
      this.invalidations.invalidated(tags);
      for (const tag of tags) for (const key of this.keysOf(tag)) this.lru.delete(key);
    });
    bus.onResync(() => {
      this.invalidations.invalidatedEverything();
      this.lru.clear();
    });
    bus.onShared(({ key, tags, value, ttlMs }) => {
      if (this.bus.live) this.store(key, value, tags, ttlMs);
    });
  }

  /** The remembered value of `key` without loading anything (undefined when not remembered or not live). */
  peek<T>(key: string): T | undefined {
    return this.bus.live ? (this.lru.get(key)?.value as T | undefined) : undefined;
  }

  /**
   * The remembered value of `key`, else `load()`'s, remembered (when not null) under `tagsOf(value)`, for
   * `ttlMs` when given (entries every change of which is invalidated may live longer than the default).
   */
  async remember<T>(key: string, tagsOf: (value: NonNullable<T>) => string[], load: () => Promise<T>, ttlMs?: number): Promise<T> {
    if (this.bus.live) {
      const memo = this.lru.get(key);
      if (memo) {
        if (memo.refreshAt <= this.now() && !this.refreshing.has(key)) this.refresh(key, tagsOf, load);
        return memo.value as T;
      }
    }
    return this.load(key, tagsOf, load, ttlMs);
  }

  private async load<T>(key: string, tagsOf: (value: NonNullable<T>) => string[], load: () => Promise<T>, ttlMs?: number): Promise<T> {
    const since = this.invalidations.begin();
    let value: T;
    try {
      value = await load();
    } catch (error) {
      this.invalidations.end(since, []);
      throw error;
    }
    if (value === null || value === undefined) {
      this.invalidations.end(since, []);
      // A key that is gone is dropped too, so a refresh cannot keep serving it.
      this.lru.delete(key);
      return value;
    }
    const tags = tagsOf(value);
    // An invalidation of its tags while loading may concern what was just read: keep nothing then.
    if (this.invalidations.end(since, tags) && this.bus.live) this.store(key, value, tags, ttlMs);
    return value;
  }

  /** A background reload of a hit late in its lifetime; a failure leaves the entry to expire as it would have. */
  private refresh<T>(key: string, tagsOf: (value: NonNullable<T>) => string[], load: () => Promise<T>): void {
    this.refreshing.add(key);
    this.load(key, tagsOf, load)
      .catch(() => undefined)
      .finally(() => this.refreshing.delete(key));
  }

  /**
   * Remembers a value this node has just written (so it is current) here and on every other node, before
   * anyone else can ask for it: what a new record's first readers would each have loaded from the engine.
   * Plain JSON values only (they travel through Redis); awaited before the write is answered (see
   * `InvalidationBus.share` for why that keeps its later invalidations behind it).
   */
  async share<T extends object>(key: string, tags: string[], value: T, ttlMs?: number): Promise<void> {
    if (!this.bus.live) return;
    this.store(key, value, tags, ttlMs);
    await this.bus.share({ key, tags, value, ttlMs });
  }

  private store(key: string, value: unknown, tags: string[], ttlMs: number | undefined): void {
    // Entries with a lifetime of their own are invalidated on every change and reloaded only when they
    // expire; the others late in their lifetime, so about as often as they would expire.
    const refreshAt = ttlMs === undefined ? this.now() + this.options.ttlMs * REFRESH_AFTER : Infinity;
    this.lru.set(key, { value, tags, refreshAt }, 1, ttlMs);
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (keys === undefined || keys === key) this.byTag.set(tag, key);
      else if (typeof keys === 'string') this.byTag.set(tag, new Set([keys, key]));
      else keys.add(key);
    }
  }

  private keysOf(tag: string): string[] {
    const keys = this.byTag.get(tag);
    return keys === undefined ? [] : typeof keys === 'string' ? [keys] : [...keys];
  }

  private unindex(key: string, tags: string[]): void {
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (keys === key) this.byTag.delete(tag);
      else if (typeof keys === 'object') {
        keys.delete(key);
        if (keys.size === 0) this.byTag.delete(tag);
      }
    }
  }
}
