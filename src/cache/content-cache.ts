import type { Logger } from 'pino';
import { ByteLru, monotonicMs } from './lru.js';
import type { InvalidationBus } from './invalidation-bus.js';
import { PREWARM_QUIET_MS, PrewarmQueue, type DroppedAnswer, type Rebuild } from './prewarm-queue.js';

/** One serialized 200 answer: its bytes (JSON unless its headers name a Content-Type) and the headers it was sent with (ETag, Cache-Control). */
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
  /** Answers a republish dropped that were built again before any reader asked (`prewarmed`: those kept). */
  prewarmBuilds: number;
  prewarmed: number;
}

/** A key's workspace: its first line (see `ContentCache.key`). */
const workspaceOf = (key: string) => key.slice(0, key.indexOf('\n'));

/** What an entry costs beyond its body: key, headers and bookkeeping, roughly. */
const OVERHEAD_BYTES = 256;

/** The tag every cached thing of a workspace carries; publishing it drops them on every node. */
export const workspaceTag = (workspaceId: string) => `workspace:${workspaceId}`;

/**
 * What a content answer may say it depends on (`Reply.dependsOn`), beyond the workspace's settings,
 * categories and navigations (whose changes drop every answer of the workspace):
 * - `posts`: any published post (lists, feeds, the changes feed, navigations that name posts);
 * - `group:<translationGroupId>`: one post in all its locales (a post's page shows its translations);
 * - `slug:<slug>`: whichever post holds this slug (a publish may give it to another post);
 * - `media:<mediaId>`: a media item the answer shows (its URL, size, alt texts).
 * An answer that declares nothing depends on every post.
 */
export const contentTag = (workspaceId: string, dependency: string, staleAllowed = false) => `${staleAllowed ? 'content~' : 'content'}:${workspaceId}:${dependency}`;
const EVERY_POST = '*';

/** A `contentTag`'s parts, or undefined for any other tag. */
export function parseContentTag(tag: string): { workspaceId: string; dependency: string; staleAllowed: boolean } | undefined {
  if (!tag.startsWith('content')) return undefined;
  const [workspaceId, dependency] = splitOnce(tag.slice(tag.indexOf(':') + 1), ':');
  return { workspaceId, dependency, staleAllowed: tag.startsWith('content~:') };
}

/**
 * What a miss hands its builder: the generation the answer is built under. An answer is stored only while
 * its workspace is still at that generation (no write of the workspace landed meanwhile).
 */
export type BuildToken = string;

/**
 * Published content answers, by workspace + route + normalized request. Entries leave when their
 * workspace's tag or a post they depend on (`contentTag`) is invalidated (any node), on LRU pressure, or
 * after the safety TTL. While the bus is not live nothing is read or stored here: the node answers from
 * the database.
 *
 * Misses of one key are built once: the first asks the database, requests that miss the same key under
 * the same generation meanwhile wait for that answer (`joinBuild`), or take the answer a republish
 * replaced while it is within its grace (`stale`), instead of each building it again, which is what made
 * a publish's invalidation fall through to the engine all at once.
 *
 * Pre-warm: an answer a republish dropped is built again in the background (`Rebuild`, kept with it by
 * whoever stored it), before its next reader asks, when readers used it since it was last built: that
 * targets what readers actually read (the list pages with their own queries, the post's page in the forms
 * read) and nothing else. Per workspace, once its publishes pause (`PrewarmQueue`), at most `prewarmMax`
 * answers, the most recently read first. A pre-warm is a reader like any other: it builds under the
 * generation rules (an answer a later write made old is not kept) and shares the build with readers who
 * ask meanwhile. A withdrawn post's answers and a settings change are never built ahead.
 */
export class ContentCache {
  private readonly lru: ByteLru<CachedAnswer>;
  private readonly byWorkspace = new Map<string, Set<string>>();
  /** Keys by `<workspaceId>\n<dependency>`, and each key's dependencies (to unindex it). */
  private readonly byDependency = new Map<string, Set<string>>();
  private readonly dependenciesOf = new Map<string, string[]>();
  /**
   * Bumped per workspace on each of its invalidations: an answer computed across one is not stored (it
   * may predate the write). Per workspace, so a write in one never discards answers built for another;
   * `epoch` counts resyncs, which discard everything.
   */
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  /** The builds running now, by key: their token and the answer they will store (undefined: not cacheable). */
  private readonly builds = new Map<string, { token: BuildToken; answer: Promise<CachedAnswer | undefined>; joined?: boolean }>();
  /** Answers a republish replaced, until their grace ends: given to readers while their rebuild runs. */
  private readonly stale = new Map<string, { answer: CachedAnswer; until: number }>();
  private readonly staleGraceMs: number;
  private readonly now: () => number;
  private hits = 0;
  private misses = 0;
  /** How each kept answer that can be built without a reader is built again (see `store`). */
  private readonly rebuilds = new Map<string, Rebuild>();
  /**
   * Answers a pre-warm kept that no reader has read since, with when a reader last had them at the latest
   * (when the answer they read was dropped): built again only for as long as an answer lives (`ttlMs`)
   * after that, so a burst of publishes keeps what readers use warm, and nothing stays warm for nobody.
   */
  private readonly unreadPrewarms = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly prewarms: PrewarmQueue;
  /** The pre-warms building now, by key, and whether a write since then ruled out building them again. */
  private readonly prewarming = new Map<string, { dependencies: string[]; ruledOut: boolean }>();
  private prewarmBuilds = 0;
  private prewarmed = 0;
  private readonly logger?: Logger;

  constructor(
    private readonly bus: InvalidationBus,
    options: { maxBytes: number; ttlMs: number; now?: () => number; staleGraceMs?: number; prewarmMax?: number; logger?: Logger },
  ) {
    this.now = options.now ?? Date.now;
    this.staleGraceMs = options.staleGraceMs ?? 0;
    this.logger = options.logger;
    this.ttlMs = options.ttlMs;
    this.prewarms = new PrewarmQueue({ max: options.prewarmMax ?? 0, quietMs: PREWARM_QUIET_MS, now: monotonicMs, run: (workspaceId, key, dropped) => void this.prewarm(workspaceId, key, dropped) });
    this.lru = new ByteLru<CachedAnswer>({ ...options, onRemove: (key) => this.unindex(key) });
    bus.onInvalidate((tags) => {
      for (const tag of tags) {
        if (tag.startsWith('workspace:')) {
          const workspaceId = tag.slice('workspace:'.length);
          this.nextGeneration(workspaceId);
          this.prewarms.cancel(workspaceId);
          this.ruleOutRunning(workspaceId, () => true);
          for (const key of [...(this.byWorkspace.get(workspaceId) ?? [])]) this.drop(key, false);
          for (const key of this.stale.keys()) if (workspaceOf(key) === workspaceId) this.stale.delete(key);
        } else if (tag.startsWith('content')) {
          // A post changed: the answers that show it go, and those that depend on every post; the rest stay.
          const { workspaceId, dependency, staleAllowed } = parseContentTag(tag)!;
          this.nextGeneration(workspaceId);
          if (!staleAllowed) this.withdrawn(workspaceId, dependency);
          for (const held of [dependency, EVERY_POST]) {
            for (const key of [...(this.byDependency.get(`${workspaceId}\n${held}`) ?? [])]) {
              const hot = staleAllowed ? this.hotRebuildOf(key) : undefined;
              this.drop(key, staleAllowed);
              if (hot) this.prewarms.add(workspaceId, key, hot);
            }
          }
        }
      }
      this.forgetExpiredStale();
    });
    bus.onResync(() => {
      this.epoch += 1;
      this.prewarms.cancelAll();
      for (const running of this.prewarming.values()) running.ruledOut = true;
      this.lru.clear();
      this.stale.clear();
    });
  }

  static key(workspaceId: string, route: string, request: string): string {
    return `${workspaceId}\n${route}\n${request}`;
  }

  /**
   * The cached answer, or undefined (counted as a miss) with the token `store` needs and, within its grace,
   * the answer a republish replaced (`stale`): for a reader who would otherwise wait for a rebuild.
   */
  lookup(key: string): { hit: CachedAnswer } | { token: BuildToken; stale?: CachedAnswer } {
    const hit = this.bus.live ? this.lru.get(key) : undefined;
    if (hit) {
      this.hits += 1;
      this.markRead(key);
      return { hit };
    }
    this.misses += 1;
    const stale = this.stale.get(key);
    const token = this.tokenOf(workspaceOf(key));
    return stale && stale.until > this.now() && this.bus.live ? { token, stale: stale.answer } : { token };
  }

  /**
   * The answer of a build of `key` already running under `token`'s generation, to wait for instead of
   * building it again; undefined when there is none (the caller builds and announces it with `building`).
   * The promised answer is undefined when the build ended without one to share (an error, not a 200).
   */
  joinBuild(key: string, token: BuildToken): Promise<CachedAnswer | undefined> | undefined {
    const running = this.builds.get(key);
    if (!running || running.token !== token) return undefined;
    running.joined = true;
    return running.answer;
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
    if (hit) {
      this.hits += 1;
      this.markRead(key);
    }
    return hit;
  }

  /**
   * Keeps `answer` unless its workspace changed since `token` was handed out; `dependsOn`: see `contentTag`.
   * `rebuild`: how to build it again without a reader, once a republish dropped it (pre-warm).
   */
  store(workspaceId: string, key: string, answer: CachedAnswer, token: BuildToken, dependsOn?: string[], rebuild?: Rebuild): void {
    if (token !== this.tokenOf(workspaceId) || !this.bus.live) return;
    this.stale.delete(key);
    if (!this.lru.set(key, answer, answer.bytes.length + key.length * 2 + OVERHEAD_BYTES)) return;
    addTo(this.byWorkspace, workspaceId, key);
    const dependencies = dependsOn ?? [EVERY_POST];
    this.dependenciesOf.set(key, dependencies);
    for (const dependency of dependencies) addTo(this.byDependency, `${workspaceId}\n${dependency}`, key);
    if (rebuild) this.rebuilds.set(key, rebuild);
  }

  stats(): ContentCacheStats {
    const lookups = this.hits + this.misses;
    const { prewarmBuilds, prewarmed } = this;
    return { hits: this.hits, misses: this.misses, hitRatio: lookups ? this.hits / lookups : 0, entries: this.lru.entries, bytes: this.lru.bytes, prewarmBuilds, prewarmed };
  }

  /** Stops the pre-warms waiting for their workspace's publishes to pause (the node is closing). */
  close(): void {
    this.prewarms.cancelAll();
  }

  /**
   * Builds a dropped answer again as a reader would, unless a reader is doing it or did it already. Its
   * failure is the next reader's to meet: logged at debug, nothing else. An answer a write made old during
   * the build is not kept; the write that did so dropped nothing (it was not kept yet), so it waits for the
   * workspace's next pause instead (unless that write withdrew what it shows or changed settings).
   */
  private async prewarm(workspaceId: string, key: string, dropped: DroppedAnswer): Promise<void> {
    const token = this.tokenOf(workspaceId);
    if (!this.bus.live || this.lru.peek(key) || this.builds.get(key)?.token === token) return;
    this.prewarmBuilds += 1;
    const running = { dependencies: dropped.dependencies, ruledOut: false };
    this.prewarming.set(key, running);
    const built = dropped.rebuild().catch((error: unknown) => {
      this.logger?.debug({ err: error, key }, 'pre-warm of a content answer failed');
      return undefined;
    });
    this.building(key, token, built.then((rebuilt) => rebuilt?.answer));
    const shared = this.builds.get(key)!;
    const rebuilt = await built;
    if (this.prewarming.get(key) === running) this.prewarming.delete(key);
    if (!rebuilt) return;
    if (token !== this.tokenOf(workspaceId)) {
      if (this.bus.live && !running.ruledOut) this.prewarms.add(workspaceId, key, dropped);
      return;
    }
    const joined = shared.joined === true;
    this.store(workspaceId, key, rebuilt.answer, token, rebuilt.dependsOn, dropped.rebuild);
    if (this.lru.peek(key) !== rebuilt.answer) return;
    this.prewarmed += 1;
    if (!joined) this.unreadPrewarms.set(key, dropped.readBy);
  }

  /**
   * How to build `key` again when a republish drops it: a live answer a reader built or read since it was
   * last built ahead (a reader had it by now, at the latest), or one built ahead that readers had lately.
   */
  private hotRebuildOf(key: string): DroppedAnswer | undefined {
    const rebuild = this.rebuilds.get(key);
    const recency = this.lru.recency(key);
    if (!rebuild || recency === undefined || !this.lru.peek(key)) return undefined;
    const now = this.now();
    const readBy = this.unreadPrewarms.get(key) ?? now;
    if (now - readBy >= this.ttlMs) return undefined;
    return { rebuild, dependencies: this.dependenciesOf.get(key) ?? [EVERY_POST], recency, readBy };
  }

  /**
   * A post was withdrawn (or a media item changed): what showed it is neither served stale nor built ahead;
   * a list waiting to be built ahead stays (it is built without the post).
   */
  private withdrawn(workspaceId: string, dependency: string): void {
    for (const key of this.stale.keys()) if (workspaceOf(key) === workspaceId) this.stale.delete(key);
    if (dependency === 'posts') return;
    this.prewarms.forget(workspaceId, dependency);
    this.ruleOutRunning(workspaceId, (dependencies) => dependencies.includes(dependency));
  }

  private ruleOutRunning(workspaceId: string, showing: (dependencies: string[]) => boolean): void {
    for (const [key, running] of this.prewarming) if (workspaceOf(key) === workspaceId && showing(running.dependencies)) running.ruledOut = true;
  }

  private markRead(key: string): void {
    if (this.unreadPrewarms.size !== 0) this.unreadPrewarms.delete(key);
  }

  private tokenOf(workspaceId: string): BuildToken {
    return `${this.epoch}.${this.generations.get(workspaceId) ?? 0}`;
  }

  /** Drops a cached answer; one a republish replaced is kept aside for the grace when that is allowed. */
  private drop(key: string, staleAllowed: boolean): void {
    const answer = staleAllowed && this.staleGraceMs > 0 ? this.lru.peek(key) : undefined;
    this.lru.delete(key);
    if (answer) this.stale.set(key, { answer, until: this.now() + this.staleGraceMs });
    else this.stale.delete(key);
  }

  private forgetExpiredStale(): void {
    const now = this.now();
    for (const [key, entry] of this.stale) if (entry.until <= now) this.stale.delete(key);
  }

  private nextGeneration(workspaceId: string): void {
    this.generations.set(workspaceId, (this.generations.get(workspaceId) ?? 0) + 1);
  }

  private unindex(key: string): void {
    const workspaceId = workspaceOf(key);
    removeFrom(this.byWorkspace, workspaceId, key);
    for (const dependency of this.dependenciesOf.get(key) ?? []) removeFrom(this.byDependency, `${workspaceId}\n${dependency}`, key);
    this.dependenciesOf.delete(key);
    this.rebuilds.delete(key);
    this.unreadPrewarms.delete(key);
  }
}

function addTo(index: Map<string, Set<string>>, name: string, key: string): void {
  let keys = index.get(name);
  if (!keys) index.set(name, (keys = new Set()));
  keys.add(key);
}

function removeFrom(index: Map<string, Set<string>>, name: string, key: string): void {
  const keys = index.get(name);
  keys?.delete(key);
  if (keys?.size === 0) index.delete(name);
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return [text.slice(0, at), text.slice(at + separator.length)];
}
