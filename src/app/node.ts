import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Connection } from 'mongoose';
import type { Config } from '../config/config.js';
import { connectMongo, convertHexStringsToObjectIds, ensureIndexes } from '../db/mongo.js';
import { closeRedis, connectRedis } from '../db/redis.js';
import { attachDocumentLocks } from '../db/document-locks.js';
import { attachEngineTraits } from '../db/engine-traits.js';
import { indexFerretDbFilters } from '../db/postgres-filter-indexes.js';
import { redactUrl } from '../db/postgres-probe.js';
import { EventBus } from '../events/events.js';
import { Caches } from '../cache/caches.js';
import { AVAILABILITY_HORIZON_MS } from '../appointments/availability.service.js';
import { createApp, httpPipeline, type AppOptions } from './create-app.js';
import { createJobQueue } from '../jobs/jobs.js';
import { registerJobs } from './jobs.js';
import { registerListeners } from './listeners.js';
import { shippedLogger } from './shipped-logger.js';
import { registerLiveChatSockets } from '../livechat/livechat.socket.js';
import { teamPresence } from '../livechat/presence.js';
import { attachRealtime, createRealtime } from '../realtime/realtime.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { keepTickObjectShape } from '../shared/tick-object-shape.js';
import { RedisCounters } from '../db/counters.js';
import { MemoryCounters } from '../db/memory-counters.js';
import { KeyedSerial } from '../shared/keyed-serial.js';
import { SecretBox } from '../shared/crypto.js';
import type { Deps } from '../deps.js';
import { bootstrapOperator } from '../auth/auth.service.js';
import { pageExtras } from './pages.js';
import { allRoutes } from './routes.js';
import { fastPath } from '../http/fast-path.js';
import { settledWithin } from '../shared/settled-within.js';
import { appMessages } from '../http/app-messages.js';
import { answerClientError } from '../http/errors.js';
import { capConnectionsPerAddress } from '../http/connection-limits.js';
import { openObjectStorage } from '../db/open-object-storage.js';
import { upgradeOnce } from '../db/once.js';
import { fileOlderDocuments } from '../db/newest-first.js';
import { fileEmailKeysOfEarlierVersions } from '../db/email-keys.js';
import { fileSearchGramsOfEarlierVersions } from '../db/search-grams.js';
import { messageStore } from '../livechat/messages.model.js';
import { fileScheduleKeysOfEarlierVersions } from '../appointments/appointments.upgrade.js';
import { SCHEDULE_KEYS_FILED_BACK_MS } from '../appointments/schedule-keys.js';
import { upgradeWebhookStorage } from '../webhooks/webhooks.upgrade.js';
import { ByteLru } from '../cache/lru.js';

export interface NodeOptions {
  config: Config & { MONGODB_URI: string; KEY_ENCRYPTION_SECRET: string };
  clock?: Clock;
  logger?: Logger;
  /** Job polling interval; tests shorten it. */
  jobsProcessEvery?: number;
  app?: AppOptions;
  /** Serve warm published-content hits before Express parses them (default on; off, Express serves them through the same writer). */
  fastPath?: boolean;
}

export interface HearthNode {
  deps: Deps;
  app: Express;
  server: HttpServer;
  url: string;
  stop(): Promise<void>;
}

export interface Wiring {
  deps: Deps;
  /** Brings back job work a previous run left (worker nodes call it once jobs run). */
  recoverJobs(): Promise<void>;
  /** Closes what `wire` opened: jobs, database, Redis. */
  close(): Promise<void>;
}

/**
 * Wires the services of one node from real parts, without HTTP: database (indexes created), Redis,
 * Socket.IO server, job queue and its handlers, domain events, the first operator. `createNode` adds
 * the HTTP server; service tests use this alone.
 */
export async function wire(options: Omit<NodeOptions, 'app'>): Promise<Wiring> {
  const { config } = options;
  const logger = options.logger ?? shippedLogger(config.LOG_LEVEL);
  const clock = options.clock ?? systemClock;
  const db = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL, logger) : undefined;
  await attachDocumentLocks(db, { redis, logger });
  const realtime = await createRealtime({ logger, redis });
  const jobs = createJobQueue(db, logger, { processEvery: options.jobsProcessEvery });
  const cache = await Caches.start(redis, logger, {
    contentMaxBytes: config.CONTENT_CACHE_MB * 1024 * 1024,
    contentTtlMs: config.CONTENT_CACHE_TTL_SECONDS * 1000,
    contentStaleGraceMs: config.CONTENT_STALE_GRACE_MS,
    contentPrewarmMax: config.CONTENT_PREWARM_MAX,
    computedMaxBytes: config.AVAILABILITY_CACHE_MB * 1024 * 1024,
    computedTtlMs: AVAILABILITY_HORIZON_MS,
    indexMaxBytes: config.PUBLISHED_POSTS_MB * 1024 * 1024,
  });

  const deps: Deps = {
    config,
    db,
    redis,
    clock,
    logger,
    events: new EventBus(),
    counters: redis ? new RedisCounters(redis, new MemoryCounters(clock), logger, clock) : new MemoryCounters(clock),
    secretBox: new SecretBox(config.KEY_ENCRYPTION_SECRET),
    realtime,
    jobs,
    cache,
    serial: new KeyedSerial(),
    storage: await openObjectStorage(config),
    // Variants are immutable (their key names the bytes and the transform), so they live until evicted.
    mediaVariants: new ByteLru({ maxBytes: config.MEDIA_VARIANT_CACHE_MB * 1024 * 1024, ttlMs: 24 * 3600_000 }),
  };
  await ensureIndexes(db);
  if (config.FERRETDB_POSTGRESQL_URL) {
    // Agenda makes its collection and index as it connects: they get theirs with the others, not at the next start.
    await settledWithin(jobs.agenda.ready, AGENDA_READY_WITHIN_MS);
    await indexEngineFilters(config.FERRETDB_POSTGRESQL_URL, config.MONGODB_DB, logger);
  }
  // The collection whose reads depend on it exists once its indexes do.
  await attachEngineTraits(db, 'appointments');
  await upgradeStorage(db, logger, clock);
  await bootstrapOperator(deps);
  const jobRegistry = registerJobs(deps);
  registerListeners(deps, { webhooks: jobRegistry.webhooks });
  registerLiveChatSockets(deps);
  const stopTeamPresence = teamPresence(deps);
  return {
    deps,
    recoverJobs: () => jobRegistry.recover(),
    close: async () => {
      stopTeamPresence();
      await jobRegistry.webhooks.finish(WEBHOOKS_FINISH_WITHIN_MS);
      await jobs.stop();
      await cache.close();
      await deps.storage.close();
      await db.close();
      if (redis) await closeRedis(redis);
    },
  };
}

/**
 * FerretDB on PostgreSQL: the indexes that serve its filters there (`db/postgres-filter-indexes.ts`). Without
 * them every answer is the same, only slower, so a failure is logged and the node starts.
 */
async function indexEngineFilters(url: string, database: string, logger: Logger): Promise<void> {
  try {
    const outcome = await indexFerretDbFilters(url, database, logger);
    if (outcome.created > 0) logger.info(outcome, 'engine indexes made for FerretDB on PostgreSQL');
  } catch (error) {
    logger.warn({ err: error, postgresql: redactUrl(url) }, 'engine indexes for FerretDB on PostgreSQL not made: its queries read whole tables');
  }
}

/** How long a starting node waits for the job queue's collection before indexing the engine's filters without it. */
const AGENDA_READY_WITHIN_MS = 5_000;

/** How long a closing node waits for its webhook attempts in flight to be answered and recorded (`main` ends a shutdown after 10 s). */
const WEBHOOKS_FINISH_WITHIN_MS = 5_000;

/** Data written by earlier versions, brought to today's shape before the node serves. */
async function upgradeStorage(db: Connection, logger: Logger, clock: Clock): Promise<void> {
  // Webhook deliveries and outbox mails stored their workspace id as a hex string before 0.2. The look for
  // strings decodes every delivery on FerretDB (a type filter never reaches its storage), so it runs once.
  await upgradeOnce(db, 'workspace-ids-as-object-ids', async () => {
    for (const collection of ['webhook_deliveries', 'email_outbox']) {
      const converted = await convertHexStringsToObjectIds(db, collection, 'workspaceId');
      if (converted > 0) logger.info({ collection, converted }, 'stored workspace ids upgraded to ObjectId');
    }
  });
  await upgradeWebhookStorage(db, logger);
  // Chat messages stored before they carried `unread`.
  await upgradeOnce(db, 'livechat-messages-unread-flag', async () => {
    const flagged = await messageStore(db).flagUnreadOfEarlierVersions();
    if (flagged > 0) logger.info({ flagged }, 'chat messages flagged read or unread');
  });
  // Newest-first lists read a bucket at a time since 0.9 (`db/newest-first.ts`): what came before, below.
  await upgradeOnce(db, 'newest-first-buckets', async () => {
    for (const [collection, field] of [['posts', 'listBucket'], ['submissions', 'listBucket'], ['livechat_conversations', 'activityBucket']]) {
      const filed = await fileOlderDocuments(db.collection(collection), field);
      if (filed > 0) logger.info({ collection, filed }, 'documents stored before newest-first buckets filed below them');
    }
  });
  // The staff's booking requests (and the inbox's) read a bucket at a time since 1.x: those stored before, below.
  await upgradeOnce(db, 'appointment-list-buckets', async () => {
    const filed = await fileOlderDocuments(db.collection('appointments'), 'listBucket');
    if (filed > 0) logger.info({ collection: 'appointments', filed }, 'documents stored before newest-first buckets filed below them');
  });
  // The admin posts list's `q` reads posts by their search grams since 1.x, the inbox's `q` its records since
  // 1.x (`shared/search-grams.ts`).
  const fileSearchGrams = async (collection: string, fields: string[]) => {
    const filed = await fileSearchGramsOfEarlierVersions(db.collection(collection), fields, (count) => {
      if (count % 10_000 === 0) logger.info({ collection, filed: count }, 'records stored before search grams: filing theirs');
    });
    if (filed > 0) logger.info({ collection, filed }, 'records stored before search grams filed');
  };
  await upgradeOnce(db, 'post-search-grams', () => fileSearchGrams('posts', ['title', 'slug']));
  await upgradeOnce(db, 'inbox-search-grams', async () => {
    await fileSearchGrams('livechat_conversations', ['visitorName', 'visitorEmail']);
    await fileSearchGrams('submissions', ['name', 'email', 'subject']);
    await fileSearchGrams('appointments', ['visitorName', 'visitorEmail']);
  });
  // The person timeline reads records by the lowercased e-mail since 1.x (`shared/person-keys.ts`).
  await upgradeOnce(db, 'person-email-keys', async () => {
    for (const [collection, emailField, keyField] of [['appointments', 'visitorEmail', 'visitorEmailKey'], ['livechat_conversations', 'visitorEmail', 'visitorEmailKey'], ['submissions', 'email', 'emailKey']]) {
      const filed = await fileEmailKeysOfEarlierVersions(db.collection(collection), emailField, keyField, (count) => {
        if (count % 10_000 === 0) logger.info({ collection, filed: count }, 'records stored before e-mail keys: filing theirs');
      });
      if (filed > 0) logger.info({ collection, filed }, 'records stored before e-mail keys filed');
    }
  });
  // Availability, booking and the calendar feed read confirmed appointments by the day (or month) of their start
  // since 1.x (`appointments/schedule-keys.ts`): those stored before, that a read can still reach, are filed now.
  await upgradeOnce(db, 'appointment-schedule-keys', async () => {
    const filed = await fileScheduleKeysOfEarlierVersions(db, new Date(clock.now().getTime() - SCHEDULE_KEYS_FILED_BACK_MS));
    if (filed > 0) logger.info({ filed }, 'confirmed appointments stored before schedule keys filed under theirs');
  });
}

/** Wires one server node from real parts and starts listening; `stop` shuts it down gracefully. */
export async function createNode(options: NodeOptions): Promise<HearthNode> {
  keepTickObjectShape();
  const { config } = options;
  const wiring = await wire(options);
  const { deps } = wiring;
  const { realtime, jobs } = deps;

  const pipeline = httpPipeline(deps, options.app?.routes ?? allRoutes);
  const app = createApp(deps, pipeline, { extras: pageExtras, ...options.app });
  const server = createServer(
    {
      ...appMessages(app),
      // Node refuses a headers timeout longer than the request's, which bounds the headers anyway.
      headersTimeout: Math.min(config.HTTP_HEADERS_TIMEOUT_SECONDS, config.HTTP_REQUEST_TIMEOUT_SECONDS) * 1000,
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      // Node checks both timeouts on this period (30 s by default, which would let a trickle outlive them).
      connectionsCheckingInterval: Math.min(1000, config.HTTP_HEADERS_TIMEOUT_SECONDS * 500),
    },
    options.fastPath !== false ? fastPath(deps, pipeline, app) : app,
  );
  server.on('clientError', answerClientError);
  capConnectionsPerAddress(server, config.MAX_CONNECTIONS_PER_ADDRESS);
  attachRealtime(realtime, server);
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  if (config.NODE_ROLE !== 'api') {
    await jobs.start();
    // Work left behind by a previous run (mails kept unsent, deliveries not yet attempted) gets its jobs.
    await wiring.recoverJobs();
  }

  const { port } = server.address() as AddressInfo;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  let stopping: Promise<void> | undefined;

  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish, then close sockets, jobs and connections.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections turn idle once their in-flight request is answered; close them then.
      const reapIdle = setInterval(() => server.closeIdleConnections(), 50);
      const force = setTimeout(() => server.closeAllConnections(), 8_000);
      await realtime.close();
      await closed;
      clearInterval(reapIdle);
      clearTimeout(force);
      await wiring.close();
    })());

  return { deps, app, server, url: `http://${host}:${port}`, stop };
}
