import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/**
 * Just enough of PostgreSQL's wire protocol (v3) to ask a server whether it takes us and to create the
 * embedded engine's database: a startup with trust, cleartext or md5 authentication, then simple
 * queries. Not a client: no results are read, no TLS, no SCRAM (a server asking for it is reported as
 * not usable, and `npm start` stays on SQLite or takes `MONGODB_URI`).
 */
export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export class PostgresProbeError extends Error {
  constructor(
    message: string,
    /** The server's SQLSTATE when it answered with an error (`3D000`: the database does not exist). */
    readonly sqlState?: string,
  ) {
    super(message);
  }
}

export function parsePostgresUrl(url: string): PostgresTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new PostgresProbeError(`not a postgres:// URL: ${redactUrl(url)}`);
  return {
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username || 'postgres'),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres',
  };
}

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

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`, 'utf8');

function errorOf(body: Buffer): PostgresProbeError {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const code = String.fromCharCode(body[at]);
    const end = body.indexOf(0, at + 1);
    fields.set(code, body.toString('utf8', at + 1, end));
    at = end + 1;
  }
  return new PostgresProbeError(fields.get('M') ?? 'PostgreSQL answered with an error', fields.get('C'));
}

/** One connection: resolves once the server is ready for queries. */
export class PostgresSession {
  private buffered = Buffer.alloc(0);
  /** Handed the next whole message, or the connection's failure (told apart by shape: an error of another realm is no `instanceof Error` here). */
  private waiting: ((next: { frame: { type: string; body: Buffer } } | { failure: Error }) => void) | null = null;
  private failure: Error | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.deliver();
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      this.deliver();
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new PostgresProbeError('PostgreSQL closed the connection')));
  }

  static async open(target: PostgresTarget, timeoutMs: number): Promise<PostgresSession> {
    const socket = connect(target.port, target.host);
    socket.setTimeout(timeoutMs, () => socket.destroy(new PostgresProbeError(`no answer from ${target.host}:${target.port} within ${timeoutMs} ms`)));
    const session = new PostgresSession(socket);
    try {
      await session.start(target);
    } catch (error) {
      socket.destroy();
      throw error;
    }
    socket.setTimeout(0);
    return session;
  }

  private deliver(): void {
    if (!this.waiting) return;
    const take = this.waiting;
    if (this.buffered.length >= 5) {
      const length = this.buffered.readInt32BE(1);
      if (this.buffered.length >= length + 1) {
        const frame = { type: String.fromCharCode(this.buffered[0]), body: this.buffered.subarray(5, length + 1) };
        this.buffered = this.buffered.subarray(length + 1);
        this.waiting = null;
        return take({ frame });
      }
    }
    if (this.failure) {
      this.waiting = null;
      take({ failure: this.failure });
    }
  }

  private next(): Promise<{ type: string; body: Buffer }> {
    return new Promise((done, reject) => {
      this.waiting = (next) => ('failure' in next ? reject(next.failure) : done(next.frame));
      this.deliver();
    });
  }

  private async start(target: PostgresTarget): Promise<void> {
    const params = Buffer.concat([cstring('user'), cstring(target.user), cstring('database'), cstring(target.database), Buffer.from([0])]);
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(params.length + 8, 0);
    startup.writeInt32BE(196608, 4);
    this.socket.write(Buffer.concat([startup, params]));
    for (;;) {
      const { type, body } = await this.next();
      if (type === 'E') throw errorOf(body);
      if (type === 'Z') return;
      if (type !== 'R') continue;
      const code = body.readInt32BE(0);
      if (code === 0) continue;
      if (code === 3) this.socket.write(message('p', cstring(target.password)));
      else if (code === 5) {
        const inner = createHash('md5').update(target.password + target.user).digest('hex');
        const outer = createHash('md5').update(inner).update(body.subarray(4, 8)).digest('hex');
        this.socket.write(message('p', cstring(`md5${outer}`)));
      } else throw new PostgresProbeError(`PostgreSQL asks for an authentication (code ${code}, e.g. SCRAM) the start-up probe does not speak`);
    }
  }

  /** Runs one statement; rejects with the server's error. */
  async query(sql: string): Promise<void> {
    this.socket.write(message('Q', cstring(sql)));
    let failed: PostgresProbeError | null = null;
    for (;;) {
      const { type, body } = await this.next();
      if (type === 'E') failed = errorOf(body);
      if (type === 'Z') break;
    }
    if (failed) throw failed;
  }

  close(): void {
    if (!this.socket.destroyed) this.socket.end(message('X', Buffer.alloc(0)));
  }
}

/**
 * Makes sure the database `url` names exists and takes connections: connects to it, and when the server
 * says it does not exist (3D000), creates it from the `postgres` database. Rejects with the reason otherwise.
 */
export async function ensurePostgresDatabase(url: string, timeoutMs = 1_000): Promise<{ created: boolean }> {
  const target = parsePostgresUrl(url);
  try {
    (await PostgresSession.open(target, timeoutMs)).close();
    return { created: false };
  } catch (error) {
    if (!(error instanceof PostgresProbeError && error.sqlState === '3D000')) throw error;
  }
  if (!/^[A-Za-z0-9_]{1,63}$/.test(target.database)) throw new PostgresProbeError(`database name ${JSON.stringify(target.database)} is not one the start creates (letters, digits, _)`);
  const admin = await PostgresSession.open({ ...target, database: 'postgres' }, timeoutMs);
  try {
    await admin.query(`CREATE DATABASE "${target.database}"`);
  } catch (error) {
    // Another start created it meanwhile.
    if (!(error instanceof PostgresProbeError && error.sqlState === '42P04')) throw error;
  } finally {
    admin.close();
  }
  (await PostgresSession.open(target, timeoutMs)).close();
  return { created: true };
}
