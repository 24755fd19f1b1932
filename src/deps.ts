import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { RedisClient } from './db/redis.js';
import type { EventBus } from './events/events.js';
import type { Realtime } from './realtime/realtime.js';
import type { JobQueue } from './jobs/jobs.js';
import type { Clock } from './shared/clock.js';
import type { Counters } from './db/counters.js';
import type { SecretBox } from './shared/crypto.js';
import type { Caches } from './cache/caches.js';
import type { KeyedSerial } from './shared/keyed-serial.js';
import type { ObjectStorage } from './db/object-storage.js';
import type { ByteLru } from './cache/lru.js';
import type { CachedAnswer } from './cache/content-cache.js';

/** A resized image as delivered: kept in each node's memory (LRU by size) in front of the store. */
export interface MediaVariant {
  bytes: Buffer;
  contentType: string;
  /**
   * Its answers as the delivery route sends them (with a versioned URL: immutable; without: revalidated), made
   * on first use and kept with it, so a warm variant builds no headers (nor the writer their list) per request.
   */
  answers?: Partial<Record<'immutable' | 'revalidated', CachedAnswer>>;
}

/** Everything a service needs, wired once by `createNode`; tests build it from the same real parts. */
export interface Deps {
  config: Config;
  db: Connection;
  /** Present when REDIS_URL is set: the node then shares counters, presence and rooms with others. */
  redis?: RedisClient;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  counters: Counters;
  secretBox: SecretBox;
  realtime: Realtime;
  jobs: JobQueue;
  /** In-memory caches (published content, credentials, sessions) and their invalidation on every node. */
  cache: Caches;
  /** Work that must not overlap on this node, by key (a conversation's appends). */
  serial: KeyedSerial;
  /** Uploaded files and their variants: the disk under `DATA_DIR` or an S3-compatible store (configuration). */
  storage: ObjectStorage;
  /** Image variants recently delivered by this node, by storage key. */
  mediaVariants: ByteLru<MediaVariant>;
}
