import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RedisClient } from '../db/redis.js';

/** Every channel of the family; nodes subscribe to the pattern `hearth:invalidate:*`. */
export const INVALIDATE_CHANNELS = 'hearth:invalidate:*';
const TAGS_CHANNEL = 'hearth:invalidate:tags';
const PROBE_CHANNEL = 'hearth:invalidate:probe';
const SHARED_CHANNEL = 'hearth:invalidate:shared';
const REVOKE_CHANNEL = 'hearth:invalidate:revoke';
/** Where a node hears that the others applied its revocation: outside the family, so only it receives them. */
const appliedChannel = (nodeId: string) => `hearth:revocation-applied:${nodeId}`;

/** How often a live subscription proves itself, and how long an echo may take before the node stops trusting it. */
const PROBE_EVERY_MS = 5_000;
const RETRY_EVERY_MS = 500;
const PROBE_TIMEOUT_MS = 2_000;
/**
 * How long a revocation waits for the other nodes to apply it: as long as a probe may take, after which a
 * node that has not heard its own echo stops trusting its caches anyway.
 */
const REVOCATION_TIMEOUT_MS = PROBE_TIMEOUT_MS;

export type InvalidationHandler = (tags: string[]) => void;

/** A value one node remembered and hands to the others (see `share`). */
export interface SharedEntry {
  key: string;
  tags: string[];
  value: unknown;
  ttlMs?: number;
}
export type SharedHandler = (entry: SharedEntry) => void;

/**
 * Carries "these cached things changed" to every node: delivered in-process at once, and through Redis
 * pub/sub to the other nodes (and, on the same subscription, values one node hands the others: `share`, and
 * revocations, which wait until the others have applied them: `revoke`). Caches may only be trusted while `live`: without Redis a node is alone and
 * always live; with Redis, only while its subscription is proven (a probe it published came back), since
 * a node that cannot hear invalidations may be holding stale answers. When the subscription is proven
 * again after a gap, `onResync` handlers drop everything: messages of the gap may have been missed.
 */
export class InvalidationBus {
  private readonly id = randomUUID();
  private readonly handlers: InvalidationHandler[] = [];
  private readonly resyncHandlers: (() => void)[] = [];
  private readonly sharedHandlers: SharedHandler[] = [];
  private readonly probes = new Map<string, () => void>();
  /** Revocations of this node waiting for the others, by id: called once per node that applied it. */
  private readonly revocations = new Map<string, () => void>();
  private revocationSeq = 0;
  private confirmed = false;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private probeSeq = 0;
  /** The publish that left last (or is leaving), and the tags gathering for the one after it. */
  private lastPublish: Promise<void> = Promise.resolve();
  private gathering: { tags: Set<string>; sent: Promise<void> } | null = null;
  /** Tags this node could not tell the others (its own Redis connection was away): sent once it is back. */
  private readonly unsent = new Set<string>();

  private constructor(
    private readonly redis: RedisClient | undefined,
    private readonly subscriber: RedisClient | undefined,
    private readonly logger: Logger,
  ) {}

  /** Subscribes (node-redis needs a client of its own for that) before the node serves. */
  static async start(redis: RedisClient | undefined, logger: Logger): Promise<InvalidationBus> {
    if (!redis) return new InvalidationBus(undefined, undefined, logger);
    const subscriber = redis.duplicate();
    const bus = new InvalidationBus(redis, subscriber, logger);
    const distrust = () => {
      // Closing the subscription at shutdown ends it too: nothing is unheard then.
      if (bus.confirmed && !bus.closed) logger.warn('cache invalidations unheard: caches bypassed until resubscribed');
      bus.confirmed = false;
    };
    subscriber.on('error', distrust);
    subscriber.on('end', distrust);
    subscriber.on('reconnecting', distrust);
    subscriber.on('ready', () => bus.schedule(0));
    // Another node may have kept its subscription while this one's connection was away: it must still hear.
    redis.on('ready', () => bus.sendUnsent());
    await subscriber.connect();
    await subscriber.pSubscribe(INVALIDATE_CHANNELS, (message, channel) => bus.receive(channel, message));
    await subscriber.subscribe(appliedChannel(bus.id), (revocation) => bus.revocations.get(revocation)?.());
    bus.confirmed = true;
    bus.schedule(PROBE_EVERY_MS);
    return bus;
  }

  /** Whether caches may answer: no Redis (a lone node), or a proven subscription. */
  get live(): boolean {
    if (!this.subscriber) return true;
    return this.confirmed && this.subscriber.isReady;
  }

  onInvalidate(handler: InvalidationHandler): void {
    this.handlers.push(handler);
  }

  onResync(handler: () => void): void {
    this.resyncHandlers.push(handler);
  }

  onShared(handler: SharedHandler): void {
    this.sharedHandlers.push(handler);
  }

  /**
   * Drops the tagged entries here at once, then tells the other nodes. A failed publish (Redis away) is
   * logged, not thrown: the write has happened. Its tags are sent again once this node's connection is
   * back, since another node may have kept (or regained sooner) its subscription and still trust its caches.
   *
   * Group commit: one publish is in flight at a time, and every call made meanwhile (or in the same tick)
   * rides the next one, which is sent after all of them were made. A burst of writes (2,000 published
   * posts) costs two or three publishes instead of 2,000, each caller still waits for one that left after
   * its write, and no call is ever answered by a publish sent before it.
   */
  publish(tags: string[]): Promise<void> {
    this.deliver(tags);
    return this.tellOthers(tags);
  }

  private tellOthers(tags: string[]): Promise<void> {
    if (!this.redis) return Promise.resolve();
    if (!this.gathering) {
      const gathering = { tags: new Set<string>(), sent: Promise.resolve() };
      gathering.sent = this.lastPublish.then(() => {
        this.gathering = null;
        return this.send([...gathering.tags]);
      });
      this.lastPublish = gathering.sent;
      this.gathering = gathering;
    }
    for (const tag of tags) this.gathering.tags.add(tag);
    return this.gathering.sent;
  }

  /**
   * Like `publish`, for what must stop on every node before the write that ended it is answered (a rotated
   * key, a logout, a removed member): Redis acknowledges a publish before the other nodes have read it, so
   * the client's next request could reach one that still remembers the old answer. Every node that receives
   * a revocation drops its tags and then says so; this waits for as many of them as Redis delivered it to
   * (this node included), at most `REVOCATION_TIMEOUT_MS`. Not grouped: revocations are rare.
   */
  async revoke(tags: string[]): Promise<void> {
    this.deliver(tags);
    if (!this.redis) return;
    const revocation = `${this.id}:${++this.revocationSeq}`;
    let applied = 0;
    let receivers = Infinity;
    let settle!: () => void;
    const allApplied = new Promise<void>((resolve) => (settle = resolve));
    this.revocations.set(revocation, () => {
      if (++applied >= receivers) settle();
    });
    const timeout = setTimeout(() => {
      this.logger.warn({ tags, applied, receivers }, 'revocation not confirmed by every node in time');
      settle();
    }, REVOCATION_TIMEOUT_MS);
    try {
      receivers = await this.redis.publish(REVOKE_CHANNEL, JSON.stringify({ from: this.id, revocation, tags }));
      if (applied >= receivers) settle();
      await allApplied;
    } catch (error) {
      this.logger.warn({ err: error, tags }, 'cache revocation not published: sent as an invalidation once Redis is back');
      this.hold(tags);
    } finally {
      clearTimeout(timeout);
      this.revocations.delete(revocation);
    }
  }

  private async send(tags: string[]): Promise<void> {
    try {
      await this.redis!.publish(TAGS_CHANNEL, JSON.stringify({ from: this.id, tags }));
    } catch (error) {
      this.logger.warn({ err: error, tags }, 'cache invalidation not published: sent once Redis is back');
      this.hold(tags);
    }
  }

  private hold(tags: string[]): void {
    for (const tag of tags) this.unsent.add(tag);
    // The connection may have come back while the publish was failing: then no 'ready' is coming.
    if (this.redis?.isReady) setTimeout(() => this.sendUnsent(), RETRY_EVERY_MS).unref();
  }

  private sendUnsent(): void {
    if (this.unsent.size === 0 || this.closed) return;
    const tags = [...this.unsent];
    this.unsent.clear();
    void this.tellOthers(tags);
  }

  /**
   * Hands a value this node has just remembered to the other nodes. It travels on the invalidations'
   * subscription, so every node sees it and any later invalidation of its tags in the order Redis ran the
   * publishes: awaited before the write that made the value is answered, no change of it can overtake it.
   * Best effort: a node that misses it loads the value itself when it needs it.
   */
  async share(entry: SharedEntry): Promise<void> {
    if (!this.redis) return;
    try {
      await this.redis.publish(SHARED_CHANNEL, JSON.stringify({ from: this.id, entry }));
    } catch (error) {
      this.logger.warn({ err: error, key: entry.key }, 'remembered value not shared');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    // Nothing to flush on a subscriber; `quit` would wait for a Redis that may be away at shutdown.
    if (this.subscriber?.isOpen) this.subscriber.destroy();
  }

  private deliver(tags: string[]): void {
    for (const handler of this.handlers) handler(tags);
  }

  private receive(channel: string, message: string): void {
    if (channel === PROBE_CHANNEL) {
      this.probes.get(message)?.();
      return;
    }
    if (channel === SHARED_CHANNEL) return this.receiveShared(message);
    if (channel === REVOKE_CHANNEL) return this.receiveRevocation(message);
    if (channel !== TAGS_CHANNEL) return;
    try {
      const { from, tags } = JSON.parse(message) as { from: string; tags: string[] };
      if (from !== this.id && Array.isArray(tags)) this.deliver(tags);
    } catch {
      this.logger.warn({ channel }, 'unreadable cache invalidation ignored');
    }
  }

  /** Applies another node's revocation and tells it so (this node's own was applied when it was made). */
  private receiveRevocation(message: string): void {
    try {
      const { from, revocation, tags } = JSON.parse(message) as { from: string; revocation: string; tags: string[] };
      if (from === this.id) return this.revocations.get(revocation)?.();
      if (typeof from !== 'string' || typeof revocation !== 'string' || !Array.isArray(tags)) return;
      this.deliver(tags);
      this.redis?.publish(appliedChannel(from), revocation).catch(() => undefined);
    } catch {
      this.logger.warn('unreadable cache revocation ignored');
    }
  }

  private receiveShared(message: string): void {
    try {
      const { from, entry } = JSON.parse(message) as { from: string; entry: SharedEntry };
      if (from === this.id || typeof entry?.key !== 'string' || !Array.isArray(entry.tags)) return;
      for (const handler of this.sharedHandlers) handler(entry);
    } catch {
      this.logger.warn('unreadable shared cache value ignored');
    }
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.probe(), ms);
    this.timer.unref();
  }

  /** Publishes a probe and waits for it to come back through the subscription. */
  private async probe(): Promise<void> {
    const token = `${this.id}:${++this.probeSeq}`;
    const echoed = new Promise<boolean>((resolve) => {
      const timeout = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      timeout.unref();
      this.probes.set(token, () => {
        clearTimeout(timeout);
        resolve(true);
      });
    });
    let heard = false;
    try {
      if (this.redis?.isReady && this.subscriber?.isReady) {
        await this.redis.publish(PROBE_CHANNEL, token);
        heard = await echoed;
      }
    } catch {
      heard = false;
    } finally {
      this.probes.delete(token);
    }
    if (this.closed) return;
    if (heard && !this.confirmed) {
      // Entries cached before the gap may be stale: start over, then trust the caches again.
      for (const handler of this.resyncHandlers) handler();
      this.confirmed = true;
      this.logger.info('cache invalidations heard again: caches cleared and back in use');
    } else if (!heard && this.confirmed) {
      this.logger.warn('cache invalidation probe not echoed: caches bypassed');
      this.confirmed = false;
    }
    this.schedule(this.confirmed ? PROBE_EVERY_MS : RETRY_EVERY_MS);
  }
}
