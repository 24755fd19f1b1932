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

/** A key's workspace: its first line (see `ContentCache.key`). */
const workspaceOf = (key: string) => key.slice(0, key.indexOf('\n'));

/** What an entry costs beyond its body: key, headers and bookkeeping, roughly. */
const OVERHEAD_BYTES = 256;

/** The tag every cached thing of a workspace carries; publishing it drops them on every node. */
export const workspaceTag = (workspaceId: string) => `workspace:${workspaceId}`;

/**
 * What a miss hands its builder: the generation the answer is built under. An answer is stored only while
 * its workspace is still at that generation (no write of the workspace landed meanwhile).
 */
export type BuildToken = string;

/**
 * Published content answers, by workspace + route + normalized request. Entries leave when their
 * workspace's tag is invalidated (any node), on LRU pressure, or after the safety TTL. While the bus is
 * not live nothing is read or stored here: the node answers from the database.
 *
 * Misses of one key are built once: the first asks the database, requests that miss the same key under
 * the same generation meanwhile wait for that answer (`joinBuild`) instead of each building it again,
 * which is what made a publish's invalidation fall through to the engine all at once.
 */
export class ContentCache {
  private readonly lru: ByteLru<CachedAnswer>;
  private readonly byWorkspace = new Map<string, Set<string>>();
  /**
   * Bumped per workspace on each of its invalidations: an answer computed across one is not stored (it
   * may predate the write). Per workspace, so a write in one never discards answers built for another;
   * `epoch` counts resyncs, which discard everything.
   */
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  /** The builds running now, by key: their token and the answer they will store (undefined: not cacheable). */
  private readonly builds = new Map<string, { token: BuildToken; answer: Promise<CachedAnswer | undefined> }>();
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly bus: InvalidationBus,
    options: { maxBytes: number; ttlMs: number; now?: () => number },
  ) {
    this.lru = new ByteLru<CachedAnswer>({ ...options, onRemove: (key) => this.unindex(key) });
    bus.onInvalidate((tags) => {
      for (const tag of tags) {
        if (!tag.startsWith('workspace:')) continue;
        const workspaceId = tag.slice('workspace:'.length);
        this.generations.set(workspaceId, (this.generations.get(workspaceId) ?? 0) + 1);
        for (const key of [...(this.byWorkspace.get(workspaceId) ?? [])]) this.lru.delete(key);
      }
    });
    bus.onResync(() => {
      this.epoch += 1;
      this.lru.clear();
    });
  }

  static key(workspaceId: string, route: string, request: string): string {
    return `${workspaceId}\n${route}\n${request}`;
  }

  /** The cached answer, or undefined (counted as a miss) with the token `store` needs. */
  lookup(key: string): { hit: CachedAnswer } | { token: BuildToken } {
    const hit = this.bus.live ? this.lru.get(key) : undefined;
    if (hit) {
      this.hits += 1;
      return { hit };
    }
    this.misses += 1;
    return { token: this.tokenOf(workspaceOf(key)) };
  }

  /**
   * The answer of a build of `key` already running under `token`'s generation, to wait for instead of
   * building it again; undefined when there is none (the caller builds and announces it with `building`).
   * The promised answer is undefined when the build ended without one to share (an error, not a 200).
   */
  joinBuild(key: string, token: BuildToken): Promise<CachedAnswer | undefined> | undefined {
    const running = this.builds.get(key);
    return running && running.token === token ? running.answer : undefined;
  }

  /** Announces the build of `key` under `token` until `answer` settles. */
  building(key: string, token: BuildToken, answer: Promise<CachedAnswer | undefined>): void {
    const entry = { token, answer };
    this.builds.set(key, entry);
    const done = () => {
      if (this.builds.get(key) === entry) this.builds.delete(key);
    };
    answer.then(done, done);
  }

  /** The cached answer counted as a hit, or undefined counted as nothing (the caller falls back to `lookup`). */
  hitOnly(key: string): CachedAnswer | undefined {
    const hit = this.bus.live ? this.lru.get(key) : undefined;
    if (hit) this.hits += 1;
    return hit;
  }

  store(workspaceId: string, key: string, answer: CachedAnswer, token: BuildToken): void {
    if (token !== this.tokenOf(workspaceId) || !this.bus.live) return;
    if (!this.lru.set(key, answer, answer.bytes.length + key.length * 2 + OVERHEAD_BYTES)) return;
    let keys = this.byWorkspace.get(workspaceId);
    if (!keys) this.byWorkspace.set(workspaceId, (keys = new Set()));
    keys.add(key);
  }

  stats(): ContentCacheStats {
    const lookups = this.hits + this.misses;
    return { hits: this.hits, misses: this.misses, hitRatio: lookups ? this.hits / lookups : 0, entries: this.lru.entries, bytes: this.lru.bytes };
  }

  private tokenOf(workspaceId: string): BuildToken {
    return `${this.epoch}.${this.generations.get(workspaceId) ?? 0}`;
  }

  private unindex(key: string): void {
    const workspaceId = workspaceOf(key);
    const keys = this.byWorkspace.get(workspaceId);
    keys?.delete(key);
    if (keys?.size === 0) this.byWorkspace.delete(workspaceId);
  }
}
