import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { chooseEmbeddedEngine, recordHandler } from './db/engine-choice.js';
import { EngineUnavailableError, findFerretDb, installFerretDb, superviseFerretDb, type EmbeddedEngine } from './db/embedded-engine.js';
import { randomToken } from './shared/crypto.js';
import { createNode } from './app/node.js';
import { shippedLogger } from './app/shipped-logger.js';
import { seedDemo } from './app/seed.js';
import { demoSeeders } from './app/demo-seeders.js';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_ADMIN_EMAIL = 'admin@hearth.local';

/** A development secret kept under the data directory so restarts can still decrypt stored keys. */
function persistedSecret(dataDir: string, name: string, bytes: number): string {
  const path = join(dataDir, name);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomToken('', bytes);
  writeFileSync(path, secret + '\n', { mode: 0o600 });
  return secret;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = shippedLogger(config.LOG_LEVEL);
  const dataDir = resolve(projectRoot, config.DATA_DIR);
  const embeddedDefault = config.NODE_ENV !== 'production';

  let engine: EmbeddedEngine | undefined;
  let mongoUri = config.MONGODB_URI;
  let ferretDbPostgresqlUrl = config.FERRETDB_POSTGRESQL_URL;
  if (!mongoUri && !embeddedDefault) {
    console.error('MONGODB_URI is required in production (the embedded FerretDB engine is for development only).');
    process.exit(1);
  }
  if (!mongoUri) {
    try {
      const binary = findFerretDb(config.FERRETDB_BIN) ?? installFerretDb(projectRoot, (line) => logger.info(line));
      const engineDir = join(dataDir, 'ferretdb');
      const choice = await chooseEmbeddedEngine({ setting: config.EMBEDDED_ENGINE, postgresqlUrl: config.EMBEDDED_POSTGRESQL_URL, engineDir });
      const handler = choice.engine === 'postgresql' ? 'postgresql' : 'sqlite';
      logger.info({ handler, reason: choice.reason }, `local database engine: FerretDB on ${handler === 'postgresql' ? 'PostgreSQL' : 'SQLite'} (${choice.reason})`);
      const postgresqlUrl = choice.engine === 'postgresql' ? choice.postgresqlUrl : undefined;
      engine = await superviseFerretDb({ binary, dataDir: engineDir, postgresqlUrl, pidFile: join(engineDir, 'engine.pid'), log: (line) => logger.info(line) }, {
        info: (message) => logger.info(message),
        warn: (message) => logger.warn(message),
        error: (message) => logger.error(message),
      });
      mongoUri = engine.uri;
      ferretDbPostgresqlUrl = postgresqlUrl;
      recordHandler(engineDir, handler);
      // However this process ends (a shutdown past its deadline, a crash), the engine ends with it; only a
      // SIGKILL of the server leaves it, and the next start ends it through the pid file.
      const started = engine;
      process.once('exit', () => started.kill());
    } catch (error) {
      console.error(error instanceof EngineUnavailableError ? error.message : error);
      process.exit(1);
    }
  }

  const adminEmail = config.ADMIN_EMAIL ?? (embeddedDefault ? DEFAULT_ADMIN_EMAIL : undefined);
  const adminPassword = config.ADMIN_PASSWORD ?? (embeddedDefault ? persistedSecret(dataDir, 'admin-password', 12) : undefined);
  const node = await createNode({
    config: {
      ...config,
      MONGODB_URI: mongoUri,
      FERRETDB_POSTGRESQL_URL: ferretDbPostgresqlUrl,
      KEY_ENCRYPTION_SECRET: config.KEY_ENCRYPTION_SECRET ?? persistedSecret(dataDir, 'key-encryption-secret', 32),
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: adminPassword,
    },
    logger,
  });

  if ((config.SEED_DEMO ?? embeddedDefault) && adminEmail) {
    const seed = await seedDemo(node.deps, adminEmail, demoSeeders);
    const base = config.PUBLIC_URL ?? node.url;
    const lines = [
      '',
      `Hearth is running at ${base}`,
      `  Admin login:      ${adminEmail} / ${config.ADMIN_PASSWORD ? '(ADMIN_PASSWORD)' : adminPassword}`,
      `  Demo workspace:   ${seed.workspace.name} (${seed.workspace.id})${seed.created ? ' [just seeded]' : ''}`,
      `  API key:          ${seed.apiKey}`,
      `  Publishable key:  ${seed.publishableKey ?? '(live chat not activated)'}`,
      '',
      'Try:',
      `  curl -H "X-Api-Key: ${seed.apiKey}" ${base}/external/workspace`,
      `  curl -H "X-Api-Key: ${seed.apiKey}" "${base}/external/posts?locale=en"`,
      ...(seed.publishableKey ? [`  curl "${base}/external/live-chat/config?locale=de&publishableKey=${seed.publishableKey}"`] : []),
      `  open ${base}/demo  (chat widget)   ${base}/console  (agent console)   ${base}/docs  (API reference)`,
      '',
    ];
    // Printed to the terminal on purpose, once, for the person who started the server; never logged. After
    // the log lines buffered so far, so that it is the last thing the terminal shows.
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.stdout.write(lines.join('\n') + '\n');
  } else {
    logger.info({ url: node.url }, 'Hearth listening');
  }

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; ending the engine and exiting');
      engine?.kill();
      process.exit(1);
    }, 10_000);
    deadline.unref();
    await node.stop();
    await engine?.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
