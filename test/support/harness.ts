import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { createNode, type HearthNode, type NodeOptions } from '../../src/app/node.js';
import type { Clock } from '../../src/shared/clock.js';

export const OPERATOR = { email: 'operator@test.local', password: 'operator-password' };

export interface TestNodeOptions {
  /** Share a database between nodes (multi-node tests); default a fresh one per node. */
  dbName?: string;
  /** Use the run's private Redis (or a given URL); default single-node without Redis. */
  redis?: boolean | string;
  clock?: Clock;
  env?: Record<string, string>;
  jobsProcessEvery?: number;
  app?: NodeOptions['app'];
  logger?: Logger;
  /** Off: every request goes through Express (to compare its answers with the fast path's). */
  fastPath?: boolean;
}

export function uniqueDbName(prefix = 't'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** A real node on a real port, with a real database (and Redis when asked). */
export async function startTestNode(options: TestNodeOptions = {}): Promise<HearthNode> {
  const redisUrl = options.redis === true ? process.env.TEST_REDIS_URL : options.redis || undefined;
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: process.env.TEST_MONGODB_URI,
    // The PostgreSQL behind the run's engine; a node given another engine has none unless its test says.
    FERRETDB_POSTGRESQL_URL: options.env?.MONGODB_URI ? undefined : process.env.TEST_FERRETDB_POSTGRESQL_URL,
    MONGODB_DB: options.dbName ?? uniqueDbName(),
    REDIS_URL: redisUrl,
    ADMIN_EMAIL: OPERATOR.email,
    ADMIN_PASSWORD: OPERATOR.password,
    KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Every test sends from 127.0.0.1, some to nodes sharing one Redis: the key-guessing guard is
    // tested on its own (test/foundation/http.test.ts) and kept out of the others' way.
    AUTH_FAILURES_PER_MINUTE: '100000',
    // Likewise the cap on pending bookings per address (test/appointments/pending-cap.test.ts): tests that
    // book many requests in one workspace all come from 127.0.0.1.
    MAX_PENDING_BOOKINGS_PER_ADDRESS: '100000',
    LOG_LEVEL: 'silent',
    RECORD_RESPONSES_DIR: process.env.RECORD_RESPONSES_DIR,
    ...options.env,
  });
  return createNode({
    config: config as NodeOptions['config'],
    clock: options.clock,
    logger: options.logger ?? pino({ level: config.LOG_LEVEL }),
    jobsProcessEvery: options.jobsProcessEvery ?? 100,
    app: options.app,
    fastPath: options.fastPath,
  });
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** A raw body string (for malformed JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
  apiKey?: string;
  publishableKey?: string;
  token?: string;
}

/** Real HTTP against a node: JSON in, JSON (when any) out. */
export async function request<T = any>(baseUrl: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined || options.rawBody !== undefined) headers['Content-Type'] ??= 'application/json';
  if (options.apiKey) headers['X-Api-Key'] = options.apiKey;
  if (options.publishableKey) headers['X-Publishable-Key'] = options.publishableKey;
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const response = await fetch(baseUrl + path, {
    method: options.method ?? (options.body !== undefined || options.rawBody !== undefined ? 'POST' : 'GET'),
    headers,
    body: options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

export interface WorkspaceFixture {
  id: string;
  apiKey: string;
  /** The owner's session token (the operator who created it). */
  token: string;
}

export async function loginOperator(baseUrl: string): Promise<string> {
  const response = await request(baseUrl, '/admin/auth/login', { body: OPERATOR });
  if (response.status !== 200) throw new Error(`operator login failed: ${response.status} ${response.text}`);
  return response.body.token as string;
}

let workspaceCounter = 0;

/** A fresh workspace per test: tests isolate by tenant, not by wiping shared state. */
export async function createWorkspace(
  baseUrl: string,
  overrides: { locales?: string[]; defaultLocale?: string; slug?: string; name?: string } = {},
): Promise<WorkspaceFixture> {
  const token = await loginOperator(baseUrl);
  workspaceCounter += 1;
  const response = await request(baseUrl, '/admin/workspaces', {
    token,
    body: {
      slug: overrides.slug ?? `ws-${workspaceCounter}-${randomBytes(3).toString('hex')}`,
      name: overrides.name ?? `Workspace ${workspaceCounter}`,
      locales: overrides.locales ?? ['en', 'de'],
      defaultLocale: overrides.defaultLocale ?? 'en',
    },
  });
  if (response.status !== 201) throw new Error(`workspace creation failed: ${response.status} ${response.text}`);
  return { id: response.body.workspace.id, apiKey: response.body.apiKey, token };
}

/** Polls until `check` returns a value (not undefined/false) or the time runs out. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5_000, stepMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
}

/** A driver command as command monitoring reports it: `command[commandName]` names the collection. */
export interface DriverCommand {
  commandName: string;
  command: Record<string, unknown>;
}

/** Runs `work` while every driver command the node sends is handed to `seen` (engine cost, counted). */
export async function watchingCommands<T>(node: Pick<HearthNode, 'deps'>, seen: (event: DriverCommand) => void, work: () => Promise<T>): Promise<T> {
  const client = node.deps.db.getClient();
  client.on('commandStarted', seen);
  try {
    return await work();
  } finally {
    client.off('commandStarted', seen);
  }
}
