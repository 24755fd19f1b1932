import { ByteLru } from './lru.js';
import type { InvalidationBus } from './invalidation-bus.js';

/** One serialized 200 answer: its JSON bytes and the headers it was sent with (ETag, Cache-Control). */
export interface CachedAnswer {
  bytes: Buffer;
  headers: Record<string, string>;
}

export interface ContentCacheStats {
  hits: number;
  misses: number;
  /** hits / (hits + misses); 0 before the first lookup. */
  hitRatio: number;
  entries: number;
  bytes: number;
}

/** What an entry costs beyond its body: key, headers and bookkeeping, roughly. */
const OVERHEAD_BYTES = 256;

/** The tag every cached thing of a workspace carries; publishing it drops them on every node. */
export const workspaceTag = (workspaceId: string) => `workspace:${workspaceId}`;

/**
 * Published content answers, by workspace + route + normalized request. Entries leave when their
 * workspace's tag is invalidated (any node), on LRU pressure, or after the safety TTL. While the bus is
 * not live nothing is read or stored here: the node answers from the database.
 */
export class ContentCache {
  private readonly lru: ByteLru<CachedAnswer>;
  private readonly byWorkspace = new Map<string, Set<string>>();
  /** Bumped on every invalidation: an answer computed across one is not stored (it may predate the write). */
  private generation = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly bus: InvalidationBus,
    options: { maxBytes: number; ttlMs: number; now?: () => number },
  ) {
    this.lru = new ByteLru<CachedAnswer>({ ...options, onRemove: (key) => this.unindex(key) });
    bus.onInvalidate((tags) => {
      this.generation += 1;
      for (const tag of tags) {
        if (!tag.startsWith('workspace:')) continue;
        for (const key of [...(this.byWorkspace.get(tag.slice('workspace:'.length)) ?? [])]) this.lru.delete(key);
      }
    });
    bus.onResync(() => {
      this.generation += 1;
      this.lru.clear();
    });
  }

  static key(workspaceId: string, route: string, request: string): string {
    return `${workspaceId}\n${route}\n${request}`;
  }

  /** The cached answer, or undefined (counted as a miss) with the token `store` needs. */
  lookup(key: string): { hit: CachedAnswer } | { token: number } {
    const hit = this.bus.live ? this.lru.get(key) : undefined;
    if (hit) {
      this.hits += 1;
      return { hit };
    }
    this.misses += 1;
    return { token: this.generation };
  }

  /** The cached answer counted as a hit, or undefined counted as nothing (the caller falls back to `lookup`). */
  hitOnly(key: string): CachedAnswer | undefined {
    const hit = this.bus.live ? this.lru.get(key) : undefined;
    if (hit) this.hits += 1;
    return hit;
  }

  store(workspaceId: string, key: string, answer: CachedAnswer, token: number): void {
    if (token !== this.generation || !this.bus.live) return;
    if (!this.lru.set(key, answer, answer.bytes.length + key.length * 2 + OVERHEAD_BYTES)) return;
    let keys = this.byWorkspace.get(workspaceId);
    if (!keys) this.byWorkspace.set(workspaceId, (keys = new Set()));
    keys.add(key);
  }

  stats(): ContentCacheStats {
    const lookups = this.hits + this.misses;
    return { hits: this.hits, misses: this.misses, hitRatio: lookups ? this.hits / lookups : 0, entries: this.lru.entries, bytes: this.lru.bytes };
  }

  private unindex(key: string): void {
    const workspaceId = key.slice(0, key.indexOf('\n'));
    const keys = this.byWorkspace.get(workspaceId);
    keys?.delete(key);
    if (keys?.size === 0) this.byWorkspace.delete(workspaceId);
  }
}
