import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { wire, type NodeOptions, type Wiring } from '../../src/app/node.js';
import type { Clock } from '../../src/shared/clock.js';
import type { Deps } from '../../src/deps.js';
import { createWorkspace, type Workspace } from '../../src/workspaces/workspaces.service.js';
import { findUserByEmail } from '../../src/auth/auth.service.js';
import { AppError, type ErrorName } from '../../src/shared/errors.js';
import { OPERATOR, uniqueDbName } from './harness.js';

/**
 * The lower test layer: the services of one node on a real database (and Redis when asked), without an
 * HTTP server, sockets or running jobs. Service tests call domain services directly with these deps;
 * HTTP tests (harness.ts) keep what the edge owns: statuses, headers, CORS, auth, the contract.
 */
export interface ServiceHarness extends Wiring {
  deps: Deps;
}

export async function startServices(
  options: { redis?: boolean; clock?: Clock; env?: Record<string, string>; dbName?: string; logger?: Logger; mongoUri?: string } = {},
): Promise<ServiceHarness> {
  const config = loadConfig({
    NODE_ENV: 'test',
    MONGODB_URI: options.mongoUri ?? process.env.TEST_MONGODB_URI,
    FERRETDB_POSTGRESQL_URL: options.mongoUri ? undefined : process.env.TEST_FERRETDB_POSTGRESQL_URL,
    MONGODB_DB: options.dbName ?? uniqueDbName('s'),
    REDIS_URL: options.redis ? process.env.TEST_REDIS_URL : undefined,
    ADMIN_EMAIL: OPERATOR.email,
    ADMIN_PASSWORD: OPERATOR.password,
    KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  return wire({ config: config as NodeOptions['config'], clock: options.clock, logger: options.logger ?? pino({ level: 'silent' }) });
}

/** A fresh workspace owned by the operator, made through the workspaces service. */
export async function newWorkspace(deps: Deps, overrides: { locales?: string[]; defaultLocale?: string } = {}): Promise<{ workspace: Workspace; apiKey: string }> {
  const operator = await findUserByEmail(deps, OPERATOR.email);
  if (!operator) throw new Error('the operator was not bootstrapped');
  return createWorkspace(deps, operator, {
    slug: `svc-${randomBytes(4).toString('hex')}`,
    name: 'Service test workspace',
    locales: overrides.locales ?? ['en', 'de'],
    defaultLocale: overrides.defaultLocale ?? 'en',
  });
}

/**
 * The AppError a service call rejects with, failing the test when it resolves or throws anything
 * else; service tests assert the catalogue name (`errorName`) where HTTP tests assert status and code.
 */
export async function failure(call: Promise<unknown>, errorName?: ErrorName): Promise<AppError> {
  let outcome: unknown;
  try {
    outcome = await call;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (errorName !== undefined && error.errorName !== errorName) {
      throw new Error(`expected ${errorName}, got ${error.errorName}: ${error.message}`);
    }
    return error;
  }
  throw new Error(`expected ${errorName ?? 'an AppError'}, but the call succeeded with ${JSON.stringify(outcome)}`);
}
