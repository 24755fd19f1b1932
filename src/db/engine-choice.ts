import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EngineUnavailableError } from './embedded-engine.js';
import { ensurePostgresDatabase, redactUrl } from './postgres-probe.js';

/**
 * Which engine `npm start` runs on. `MONGODB_URI` wins; else the embedded FerretDB, on PostgreSQL when
 * one is reachable (its handler keeps reads and the job queue bounded as data grows; SQLite takes one
 * writer at a time), else on SQLite. A data directory stays on the handler that holds its data: one
 * with SQLite data from an earlier start keeps SQLite, one whose data is in PostgreSQL does not start
 * on an empty SQLite when PostgreSQL is down.
 */
export type EmbeddedEngineSetting = 'auto' | 'postgresql' | 'sqlite';

export type EngineChoice =
  | { engine: 'external'; reason: string }
  | { engine: 'postgresql'; postgresqlUrl: string; created: boolean; reason: string }
  | { engine: 'sqlite'; reason: string };

export interface EngineChoiceOptions {
  mongoUri?: string;
  setting: EmbeddedEngineSetting;
  postgresqlUrl: string;
  /** The embedded engine's directory (`DATA_DIR/ferretdb`). */
  engineDir: string;
  probeTimeoutMs?: number;
}

const MARKER = 'handler';

/** The handler this directory's data was written with: its marker, else SQLite files found there. */
export function handlerOfData(engineDir: string): 'postgresql' | 'sqlite' | null {
  const marker = join(engineDir, MARKER);
  if (existsSync(marker)) {
    const written = readFileSync(marker, 'utf8').trim();
    if (written === 'postgresql' || written === 'sqlite') return written;
  }
  if (!existsSync(engineDir)) return null;
  return readdirSync(engineDir).some((name) => name.endsWith('.sqlite')) ? 'sqlite' : null;
}

/** Written once the engine runs, so later starts find the data where it is. */
export function recordHandler(engineDir: string, handler: 'postgresql' | 'sqlite'): void {
  mkdirSync(engineDir, { recursive: true });
  writeFileSync(join(engineDir, MARKER), `${handler}\n`);
}

export async function chooseEmbeddedEngine(options: EngineChoiceOptions): Promise<EngineChoice> {
  if (options.mongoUri) return { engine: 'external', reason: 'MONGODB_URI is set' };
  if (options.setting === 'sqlite') return { engine: 'sqlite', reason: 'EMBEDDED_ENGINE=sqlite' };
  const shown = redactUrl(options.postgresqlUrl);
  const tryPostgres = async () => {
    try {
      return { created: (await ensurePostgresDatabase(options.postgresqlUrl, options.probeTimeoutMs)).created, problem: null };
    } catch (error) {
      return { created: false, problem: (error as Error).message };
    }
  };

  if (options.setting === 'postgresql') {
    const { created, problem } = await tryPostgres();
    if (problem) throw new EngineUnavailableError(`EMBEDDED_ENGINE=postgresql, but ${shown} is not usable: ${problem}`);
    return { engine: 'postgresql', postgresqlUrl: options.postgresqlUrl, created, reason: 'EMBEDDED_ENGINE=postgresql' };
  }

  const existing = handlerOfData(options.engineDir);
  if (existing === 'sqlite') {
    return {
      engine: 'sqlite',
      reason: `${options.engineDir} holds SQLite data from an earlier start: kept on SQLite (EMBEDDED_ENGINE=postgresql starts on PostgreSQL, without that data)`,
    };
  }
  const { created, problem } = await tryPostgres();
  if (existing === 'postgresql') {
    if (problem) {
      throw new EngineUnavailableError(
        `the data of ${options.engineDir} is in PostgreSQL (${shown}), which is not usable: ${problem}. ` +
          'Start PostgreSQL, or set EMBEDDED_ENGINE=sqlite to start on an empty SQLite database.',
      );
    }
    return { engine: 'postgresql', postgresqlUrl: options.postgresqlUrl, created, reason: `${options.engineDir} keeps its data in PostgreSQL` };
  }
  if (problem) return { engine: 'sqlite', reason: `no PostgreSQL at ${shown} (${problem})` };
  return { engine: 'postgresql', postgresqlUrl: options.postgresqlUrl, created, reason: `PostgreSQL reachable at ${shown}${created ? ' (database created)' : ''}` };
}
