import pg from 'pg';

/**
 * Whether a PostgreSQL takes us, and the embedded engine's database on it (`pg`: every authentication
 * method and TLS the server asks for).
 */

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** The same server, another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** Runs `work` on a connection to `url`, closed afterwards; rejects within `timeoutMs` when none comes. */
export async function withPostgres<T>(url: string, timeoutMs: number, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A connection lost later is reported by the query that needed it; unhandled, it would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** SQLSTATE of a server's refusal, if it was one. */
export const sqlStateOf = (error: unknown) => (error !== null && typeof error === 'object' && 'code' in error ? String(error.code) : undefined);

/**
 * Makes sure the database `url` names exists and takes connections: connects to it, and when the server
 * says it does not exist (3D000), creates it from the `postgres` database. Rejects with the reason otherwise.
 */
export async function ensurePostgresDatabase(url: string, timeoutMs = 1_000): Promise<{ created: boolean }> {
  if (!/^postgres(ql)?:$/.test(new URL(url).protocol)) throw new Error(`not a postgres:// URL: ${redactUrl(url)}`);
  try {
    await withPostgres(url, timeoutMs, async () => undefined);
    return { created: false };
  } catch (error) {
    if (sqlStateOf(error) !== '3D000') throw error;
  }
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  await withPostgres(withDatabase(url, 'postgres'), timeoutMs, async (admin) => {
    try {
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(database)}`);
    } catch (error) {
      // Another start created it meanwhile.
      if (sqlStateOf(error) !== '42P04') throw error;
    }
  });
  await withPostgres(url, timeoutMs, async () => undefined);
  return { created: true };
}
