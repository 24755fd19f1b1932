import type { Logger } from 'pino';
import type { RedisClient } from '../db/redis.js';
import { ContentCache, contentTag, workspaceTag } from './content-cache.js';
import { InvalidationBus } from './invalidation-bus.js';
import { MemoCache } from './memo-cache.js';
import { ComputedCache } from './computed-cache.js';
import { WorkspaceIndex, type IndexSource } from './workspace-index.js';

export { ContentCache, contentTag, workspaceTag } from './content-cache.js';
export { jsonBytes } from './computed-cache.js';
export type { CachedAnswer, ContentCacheStats } from './content-cache.js';
export type { Rebuild, Rebuilt } from './prewarm-queue.js';
export type { IndexSource, WorkspaceIndex } from './workspace-index.js';

/** How long a credential, session or membership lookup is remembered (invalidations end it sooner). */
export const MEMO_TTL_MS = 5_000;

/** A workspace's keys (rotation), a session (logout), a user's sessions and memberships (role change). */
export const credentialsTag = (workspaceId: string) => `credentials:${workspaceId}`;
export const sessionTag = (tokenHash: string) => `session:${tokenHash}`;
export const userTag = (userId: string) => `user:${userId}`;
/** A workspace's registered webhook endpoints (the event fan-out reads them on every event). */
export const webhookEndpointsTag = (workspaceId: string) => `webhook-endpoints:${workspaceId}`;
/** A workspace's live-chat settings (the widget's config reads them on every page view). */
export const chatSettingsTag = (workspaceId: string) => `chat-settings:${workspaceId}`;
/** A live-chat conversation's status or token (close, reopen): its remembered routing facts go. */
export const conversationTag = (conversationId: string) => `conversation:${conversationId}`;
/** What a workspace's appointment availability depends on (plugin settings, booking rules, confirmed times). */
export const availabilityTag = (workspaceId: string) => `availability:${workspaceId}`;
/** What a node remembers of one media file for its delivery (its record, found by workspace slug and id). */
export const mediaTag = (mediaId: string) => `media:${mediaId}`;

/**
 * The node's in-memory caches and the one way to invalidate them on every node. Services call the
 * `invalidate*` functions after a write that changes what the caches hold; never routes.
 */
export class Caches {
  private constructor(
    private readonly bus: InvalidationBus,
    readonly content: ContentCache,
    readonly memo: MemoCache,
    readonly computed: ComputedCache,
    private readonly indexOptions: { maxBytes: number; ttlMs: number },
  ) {}

  private readonly indexes = new Map<string, WorkspaceIndex<unknown>>();

  static async start(
    redis: RedisClient | undefined,
    logger: Logger,
    options: {
      contentMaxBytes: number;
      contentTtlMs: number;
      contentStaleGraceMs?: number;
      contentPrewarmMax?: number;
      computedMaxBytes: number;
      computedTtlMs: number;
      /** Memory for the kept published posts of workspaces (`workspaceIndex`); 0: none kept. */
      indexMaxBytes?: number;
    },
  ): Promise<Caches> {
    const bus = await InvalidationBus.start(redis, logger);
    const content = new ContentCache(bus, {
      maxBytes: options.contentMaxBytes,
      ttlMs: options.contentTtlMs,
      staleGraceMs: options.contentStaleGraceMs,
      prewarmMax: options.contentPrewarmMax,
      logger,
    });
    const computed = new ComputedCache(bus, { maxBytes: options.computedMaxBytes, ttlMs: options.computedTtlMs });
    const indexOptions = { maxBytes: options.indexMaxBytes ?? 0, ttlMs: options.contentTtlMs };
    return new Caches(bus, content, new MemoCache(bus, { ttlMs: MEMO_TTL_MS }), computed, indexOptions);
  }

  /** Whether cached answers may be used now (false while a Redis subscription is down). */
  get live(): boolean {
    return this.bus.live;
  }

  /**
   * The node's one index called `name` of each workspace's published items (made on first use with `source`):
   * kept current by the content invalidations, see `WorkspaceIndex`.
   */
  workspaceIndex<T>(name: string, source: () => IndexSource<T>): WorkspaceIndex<T> {
    let index = this.indexes.get(name) as WorkspaceIndex<T> | undefined;
    if (!index) {
      index = new WorkspaceIndex<T>(this.bus, source(), this.indexOptions);
      this.indexes.set(name, index);
    }
    return index;
  }

  /** Public content or settings of the workspace changed: its content answers and its workspace object go. */
  invalidateWorkspace(workspaceId: string): Promise<void> {
    return this.bus.publish([workspaceTag(workspaceId)]);
  }

  /**
   * One post was published, changed or withdrawn: the answers that show it (its pages in every locale,
   * whatever holds its slug, every list) go on every node; the other posts' pages stay. What a republish
   * `replaced` may be served stale for the grace while it is rebuilt; what a `withdrawn` post showed may not.
   */
  invalidatePost(workspaceId: string, post: { slug: string; translationGroupId: string }, change: 'replaced' | 'withdrawn'): Promise<void> {
    const dependencies = ['posts', `group:${post.translationGroupId}`, `slug:${post.slug}`];
    return this.bus.publish(dependencies.map((dependency) => contentTag(workspaceId, dependency, change === 'replaced')));
  }

  /** The workspace's keys changed (rotation): lookups of its old keys go on every node before this resolves. */
  invalidateCredentials(workspaceId: string): Promise<void> {
    return this.bus.revoke([credentialsTag(workspaceId)]);
  }

  /** A session ended (logout): every node forgets it before this resolves. */
  invalidateSession(tokenHash: string): Promise<void> {
    return this.bus.revoke([sessionTag(tokenHash)]);
  }

  /**
   * The user's memberships (or the user) changed: their sessions and roles are looked up again, on every
   * node before this resolves (a removed member or a lowered role must not act once more).
   */
  invalidateUser(userId: string): Promise<void> {
    return this.bus.revoke([userTag(userId)]);
  }

  /** The workspace's webhook endpoints changed: every node reads them again. */
  invalidateWebhookEndpoints(workspaceId: string): Promise<void> {
    return this.bus.publish([webhookEndpointsTag(workspaceId)]);
  }

  /** The workspace's live-chat settings changed: every node reads them again. */
  invalidateChatSettings(workspaceId: string): Promise<void> {
    return this.bus.publish([chatSettingsTag(workspaceId)]);
  }

  /** A conversation's status or token changed: what nodes remember of it is looked up again. */
  invalidateConversation(conversationId: string): Promise<void> {
    return this.bus.publish([conversationTag(conversationId)]);
  }

  /** A workspace's appointment settings, rules or confirmed times changed: its availability is computed again. */
  invalidateAvailability(workspaceId: string): Promise<void> {
    return this.bus.publish([availabilityTag(workspaceId)]);
  }

  /**
   * A media file was changed or deleted: what nodes remember of it for delivery is looked up again, and the
   * content answers that show it (they declare `media:<id>` in `dependsOn`) go.
   */
  invalidateMedia(workspaceId: string, mediaId: string): Promise<void> {
    return this.bus.publish([mediaTag(mediaId), contentTag(workspaceId, `media:${mediaId}`)]);
  }

  close(): Promise<void> {
    this.content.close();
    return this.bus.close();
  }
}
