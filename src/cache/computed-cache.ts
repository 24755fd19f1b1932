import { ByteLru } from './lru.js';
import type { InvalidationBus } from './invalidation-bus.js';

interface Entry {
  value: unknown;
  tags: string[];
}

/**
 * Values a service computed at some cost (a workspace's free appointment slots), kept in this node by key
 * with the tags whose invalidation drops them on every node. Unlike the memo cache, which counts entries,
 * it is bounded by the sizes its callers declare: one value may be megabytes. While the bus is not live
 * nothing is read or stored (a node that may miss invalidations computes afresh).
 */
export class ComputedCache {
  private readonly lru: ByteLru<Entry>;
  private readonly byTag = new Map<string, Set<string>>();
  /** Bumped on every invalidation: a value computed across one is not stored (it may predate the write). */
  private generation = 0;

  constructor(
    private readonly bus: InvalidationBus,
    options: { maxBytes: number; ttlMs: number; now?: () => number },
  ) {
    this.lru = new ByteLru<Entry>({ ...options, onRemove: (key, entry) => this.unindex(key, entry.tags) });
    bus.onInvalidate((tags) => {
      this.generation += 1;
      for (const tag of tags) for (const key of [...(this.byTag.get(tag) ?? [])]) this.lru.delete(key);
    });
    bus.onResync(() => {
      this.generation += 1;
      this.lru.clear();
    });
  }

  /** The kept value (undefined when none), and the token `store` needs to keep the one computed next. */
  lookup<T>(key: string): { value: T | undefined; token: number } {
    const entry = this.bus.live ? this.lru.get(key) : undefined;
    return { value: entry?.value as T | undefined, token: this.generation };
  }

  /** Keeps `value` (about `bytes` of memory) unless an invalidation came since `lookup` handed out `token`. */
  store(key: string, value: unknown, bytes: number, tags: string[], token: number, ttlMs?: number): void {
    if (token !== this.generation || !this.bus.live) return;
    if (!this.lru.set(key, { value, tags }, bytes + key.length * 2, ttlMs)) return;
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  /** The kept value of `key`, else `compute`'s, kept with `tags` (about `bytes(value)` of memory). */
  async remember<T>(key: string, tags: string[], compute: () => Promise<T>, bytes: (value: T) => number): Promise<T> {
    const { value: kept, token } = this.lookup<T>(key);
    if (kept !== undefined) return kept;
    const value = await compute();
    this.store(key, value, bytes(value), tags, token);
    return value;
  }

  private unindex(key: string, tags: string[]): void {
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }
}

/** About the memory a plain value takes: its JSON at two bytes a character. */
export const jsonBytes = (value: unknown): number => JSON.stringify(value).length * 2;
