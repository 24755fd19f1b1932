import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** The largest object one S3 put carries (5 GiB): the bound of every upload size setting. */
const MAX_STORED_OBJECT_BYTES = 5 * 1024 ** 3;

/** A PostgreSQL database's URL. */
const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL');

const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: z.url().optional(),
  MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI').optional(),
  MONGODB_DB: z.string().regex(/^[A-Za-z0-9_-]{1,60}$/).default('hearth'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Hearth <no-reply@hearth.local>'),
  KEY_ENCRYPTION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(10_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** First attempts of one workspace in flight at once (started in event order). */
  WEBHOOK_CONCURRENCY_PER_WORKSPACE: z.coerce.number().int().min(1).max(64).default(16),
  /** Finished deliveries older than this are pruned. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  /** Finished deliveries kept per workspace (the newest); older ones are pruned. */
  WEBHOOK_DELIVERY_MAX_PER_WORKSPACE: z.coerce.number().int().min(1).default(10_000),
  /** A registered webhook endpoint whose deliveries fail without a success for this long is disabled and its owners mailed. */
  WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS: z.coerce.number().min(0.001).default(72),
  /** First wait before an outbox mail is retried after an SMTP failure; later waits double (capped at 1 h). */
  EMAIL_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  /** Mails a workspace's visitors may cause per sliding hour (receipts, team notices, away digests); past it they are dropped and logged. */
  MAX_EMAILS_PER_WORKSPACE_PER_HOUR: z.coerce.number().int().min(1).default(200),
  /** Live chat e-mail continuity: at most one away digest to the team per workspace, and one reply mail per conversation, per this interval. */
  CHAT_EMAIL_INTERVAL_MINUTES: z.coerce.number().min(0.001).default(10),
  /** How long the team's away digest gathers after the first visitor message of a workspace while nobody is online. */
  CHAT_TEAM_DIGEST_DELAY_SECONDS: z.coerce.number().min(0).default(60),
  /** How long after an agent's reply to an absent visitor the reply mail waits (more replies join it; a visitor who comes back reads them live). */
  CHAT_REPLY_MAIL_DELAY_SECONDS: z.coerce.number().min(0).default(60),
  /**
   * With Redis: how long a node's word that a team is online holds unless renewed (each node renews its own
   * every third of it). A node that dies without stopping leaves its agents counted online this long at most.
   */
  CHAT_PRESENCE_LEASE_SECONDS: z.coerce.number().int().min(3).max(300).default(15),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Failed key authentications per client address per minute before that address gets 429 (key guessing). */
  /** Memory bound of the published-content cache (serialized answers, LRU by size); 0 turns it off. */
  CONTENT_CACHE_MB: z.coerce.number().min(0).default(64),
  /** Safety lifetime of a cached content answer; invalidations normally drop it much sooner. */
  CONTENT_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).default(30),
  /**
   * How long an answer a post's republish replaced may still be given to readers who would otherwise wait for
   * its rebuild (one reader rebuilds it); 0: never. Withdrawn posts and settings changes are never served stale.
   */
  CONTENT_STALE_GRACE_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /**
   * After a post's republish, how many of the answers it dropped that readers had used each node builds again
   * before they ask (per workspace, once its publishes pause, the most recently read first); 0: none.
   */
  CONTENT_PREWARM_MAX: z.coerce.number().int().min(0).max(32).default(4),
  /**
   * Memory of each node for the published posts of the workspaces read lately (the lists are answered from it,
   * kept current post by post); 0: every list asks the database.
   */
  PUBLISHED_POSTS_MB: z.coerce.number().min(0).default(256),
  /** Memory of each node for computed appointment availability (free slots per workspace, LRU by size); 0 turns it off. */
  AVAILABILITY_CACHE_MB: z.coerce.number().min(0).default(32),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(10),
  LOGIN_FAILURE_WINDOW_MINUTES: z.coerce.number().int().min(1).default(15),
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).default(24 * 7),
  BODY_LIMIT_KB: z.coerce.number().int().min(1).default(256),
  /** A request whose headers have not all arrived this long after its connection opened is answered 408 and closed. */
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(10),
  /** A request (headers and body) not received whole in this time is answered 408 and closed; answers may take longer. */
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
  /** Open connections one client address may hold on one node; 0 turns the cap off (behind a proxy, cap there). */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).default(1000),
  /** New live-chat conversations one visitor session may start per workspace per hour (resuming is free). */
  MAX_CONVERSATIONS_PER_SESSION: z.coerce.number().int().min(1).default(50),
  /** New live-chat conversations one client address may start per workspace per hour; 0 turns the cap off (behind a proxy). */
  MAX_CONVERSATIONS_PER_ADDRESS: z.coerce.number().int().min(0).default(500),
  /** Pending appointment requests one client address may hold per workspace (each is stored and mailed to the team); 0 turns the cap off. */
  MAX_PENDING_BOOKINGS_PER_ADDRESS: z.coerce.number().int().min(0).default(200),
  NODE_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('.data'),
  /** Seed the demo workspace on start; default on outside production. */
  SEED_DEMO: bool.optional(),
  FERRETDB_BIN: z.string().optional(),
  /** The embedded engine's handler when MONGODB_URI is unset: `auto` is PostgreSQL when reachable, else SQLite. */
  EMBEDDED_ENGINE: z.enum(['auto', 'postgresql', 'sqlite']).default('auto'),
  EMBEDDED_POSTGRESQL_URL: postgresUrl.default('postgres://postgres@127.0.0.1:5432/hearth'),
  /**
   * When MONGODB_URI is a FerretDB on PostgreSQL: that PostgreSQL database. The node adds there the indexes that
   * serve FerretDB's filters (`db/postgres-filter-indexes.ts`). `npm start` sets it for its embedded engine.
   */
  FERRETDB_POSTGRESQL_URL: postgresUrl.optional(),
  /**
   * Media uploads: the largest file accepted (bytes); a bigger upload is refused while it streams (413). At
   * most 5 GiB, what one S3 put carries.
   */
  MEDIA_MAX_BYTES: z.coerce.number().int().min(1).max(MAX_STORED_OBJECT_BYTES).default(20 * 1024 * 1024),
  /** Chat attachments: the largest file a visitor or agent may attach (bytes); a bigger upload is refused while it streams (413). */
  CHAT_ATTACHMENT_MAX_BYTES: z.coerce.number().int().min(1).max(MAX_STORED_OBJECT_BYTES).default(10 * 1024 * 1024),
  /** Memory of each node for resized images recently delivered (LRU by size); 0 keeps none (the store still does). */
  MEDIA_VARIANT_CACHE_MB: z.coerce.number().min(0).default(64),
  /** Media storage: an S3-compatible store when the bucket is set, else the disk under `DATA_DIR/media`. */
  S3_BUCKET: z.string().min(3).max(63).optional(),
  /** S3-compatible endpoint URL (MinIO, versitygw, R2, ...); AWS itself when unset. */
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Test runs only: append every answer of a declared route here, for the OpenAPI contract test. */
  RECORD_RESPONSES_DIR: z.string().min(1).optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once at boot; a wrong value names the variable that carries it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  if (parsed.data.NODE_ENV === 'production' && !parsed.data.KEY_ENCRYPTION_SECRET) {
    throw new ConfigError(['KEY_ENCRYPTION_SECRET: required in production (at least 32 characters)']);
  }
  return parsed.data;
}

/** Every variable with its default, for `.env.example` and the README. */
export const configVariables = Object.keys(configSchema.shape) as (keyof Config)[];
