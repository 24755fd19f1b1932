import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import type { RunningService } from './services.js';

/**
 * Starts one FerretDB and one private Redis for the whole run, unless MONGODB_URI / REDIS_URL point at
 * servers already. Each test file then uses databases of its own. (Jest loads this file outside its
 * module mapper, so the TypeScript services are imported through tsx.)
 */
export default async function globalSetup(): Promise<void> {
  const { ensureSystemTools } = (await tsImport('./system-tools.ts', import.meta.url)) as typeof import('./system-tools.js');
  process.env.CHROMIUM_PATH = ensureSystemTools().chromium;
  const { startEngine, startRedis, ensureS3Server } = (await tsImport('./services.ts', import.meta.url)) as typeof import('./services.js');
  // The media tests run the S3 storage against a real S3-compatible server: built once here, before files run in parallel.
  ensureS3Server();
  const started: RunningService[] = [];
  // Nodes record every answer of a declared route here; jest.contract.config.js replays them against the OpenAPI document.
  const answers = resolve(process.env.RECORD_RESPONSES_DIR || fileURLToPath(new URL('../artifacts/answers/latest', import.meta.url)));
  mkdirSync(answers, { recursive: true });
  for (const name of readdirSync(answers)) if (/^answers-\d+\.jsonl$/.test(name)) rmSync(join(answers, name), { force: true });
  process.env.RECORD_RESPONSES_DIR = answers;
  if (process.env.MONGODB_URI) process.env.TEST_MONGODB_URI = process.env.MONGODB_URI;
  else {
    const engine = await startEngine();
    started.push(engine);
    process.env.TEST_MONGODB_URI = engine.url;
    process.env.TEST_ENGINE_KIND = engine.kind;
    if (engine.postgresqlUrl) process.env.TEST_FERRETDB_POSTGRESQL_URL = engine.postgresqlUrl;
  }
  if (process.env.REDIS_URL) process.env.TEST_REDIS_URL = process.env.REDIS_URL;
  else {
    const redis = await startRedis();
    started.push(redis);
    process.env.TEST_REDIS_URL = redis.url;
  }
  (globalThis as { __hearthServices?: RunningService[] }).__hearthServices = started;
}
