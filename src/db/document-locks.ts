import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import type { Logger } from 'pino';
import { AppError } from '../shared/errors.js';
import type { RedisClient } from './redis.js';

/*
 * The write discipline of every store (see CONTRIBUTING.md, "Writes"):
 *
 * - A **transition** (read a document, decide, write it, and whatever must happen exactly once with it:
 *   a publish, a close, a confirm) runs under the document's lock on every engine. MongoDB makes one
 *   update atomic but not a read followed by a write, nor a write of several documents (no transactions
 *   here); under the lock the transition sees no other writer of the document between its read and its
 *   write, so it can answer what is stored.
 * - Every **other write** of a shared document (a draft save, a chat summary, a read cursor) takes the
 *   same lock where the engine does not make a single update atomic. FerretDB 1.x runs an update as a
 *   read and a whole-document write, so two updates of different fields lose one of them (measured: 29 of
 *   30 rounds, both handlers), and a conditional update is no compare-and-set; under the lock its read
 *   and write meet no other writer. On MongoDB these writes skip the lock: the engine already keeps them.
 *
 * The lock is one per document key (`posts:<id>`), held in this process (a promise chain: waiting costs
 * no I/O) and, when Redis is configured, across nodes (a lease in Redis, renewed while held, released by
 * its holder only). Without Redis one node is the only writer: several nodes on one engine share Redis
 * anyway (README, "Scaling out"); while Redis is unreachable each node serializes only its own writes.
 * A lock is re-entrant within the async work that holds it, so a transition may call store writes that
 * take the same lock.
 */

/** How long a node's lease lasts without renewal: a node that dies holding one blocks that document this long. */
const LEASE_MS = 10_000;
const RENEW_EVERY_MS = LEASE_MS / 3;
/** A writer waits this long for a lock before it gives up with a 503 (Retry-After). */
const WAIT_MS = 15_000;
const RETRY_AFTER_SECONDS = 2;

// Renew or release only while the lease is still ours (another node may hold it after an expiry).
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

interface Held {
  keys: Set<string>;
  released: boolean;
}

export interface DocumentLocks {
  /** False on MongoDB, whose single updates are atomic; true on FerretDB 1.x. */
  readonly guardsSingleWrites: boolean;
  /** Runs `work` as the only writer of `key` (on this node and, with Redis, on every node). */
  transition<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Runs one write of a shared document: under the lock where the engine needs it, directly elsewhere. */
  write<T>(key: string, work: () => Promise<T>): Promise<T>;
}

class LockSet implements DocumentLocks {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly held = new AsyncLocalStorage<Held>();
  /**
   * Transitions under way. While none is, `held` is disabled: on Node 20 an enabled AsyncLocalStorage keeps
   * an async hook on every promise and socket of the process, warm content reads included.
   */
  private running = 0;

  constructor(
    readonly guardsSingleWrites: boolean,
    private readonly redis: RedisClient | undefined,
    private readonly logger: Logger | undefined,
  ) {}

  write<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.guardsSingleWrites ? this.transition(key, work) : work();
  }

  async transition<T>(key: string, work: () => Promise<T>): Promise<T> {
    const outer = this.held.getStore();
    if (outer && !outer.released && outer.keys.has(key)) return work();
    const releaseLocal = await this.holdLocally(key);
    try {
      const releaseShared = this.redis ? await this.holdShared(this.redis, key) : null;
      const held: Held = { keys: new Set([...(outer && !outer.released ? outer.keys : []), key]), released: false };
      this.running += 1;
      try {
        return await this.held.run(held, work);
      } finally {
        // Work this run started and left running no longer counts as holding the lock.
        held.released = true;
        if (--this.running === 0) this.held.disable();
        await releaseShared?.();
      }
    } finally {
      releaseLocal();
    }
  }

  private warnedAt = 0;
  private warnUnshared(error: unknown): void {
    if (Date.now() - this.warnedAt < 60_000) return;
    this.warnedAt = Date.now();
    this.logger?.warn({ err: error }, 'document locks held on this node only while Redis is unreachable');
  }

  /** Waits for the holders of `key` before this one in this process; resolves with the release. */
  private async holdLocally(key: string): Promise<() => void> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }

  /** Takes the Redis lease of `key`, renewing it until released; a 503 when the wait runs out. */
  private async holdShared(redis: RedisClient, key: string): Promise<() => Promise<void>> {
    const name = `hearth:lock:${key}`;
    const token = randomBytes(12).toString('hex');
    const deadline = Date.now() + WAIT_MS;
    let pause = 2;
    for (;;) {
      let taken: string | null;
      try {
        taken = await redis.set(name, token, { condition: 'NX', expiration: { type: 'PX', value: LEASE_MS } });
      } catch (error) {
        // Redis away: this node's writes stay serialized (the lock in process), other nodes' are not until
        // Redis is back, as the rate limits count per node meanwhile (README, "Scaling out").
        this.warnUnshared(error);
        return async () => undefined;
      }
      if (taken === 'OK') break;
      if (Date.now() >= deadline) throw unavailable('Another change of this item is taking long; retry shortly.');
      await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
      pause = Math.min(pause * 2, 50);
    }
    const renew = setInterval(() => {
      redis.eval(RENEW, { keys: [name], arguments: [token, String(LEASE_MS)] }).catch((error: unknown) => this.logger?.warn({ err: error, key }, 'document lock not renewed'));
    }, RENEW_EVERY_MS);
    renew.unref();
    return async () => {
      clearInterval(renew);
      // A release that fails leaves the lease to expire on its own: slower for the next writer, never wrong.
      await redis.eval(RELEASE, { keys: [name], arguments: [token] }).catch((error: unknown) => this.logger?.warn({ err: error, key }, 'document lock not released'));
    };
  }
}

function unavailable(message: string): AppError {
  return new AppError('write_busy', message, { retryAfterSeconds: RETRY_AFTER_SECONDS });
}

// The locks belong to the database handle: every store is built from a `Connection`, and the handle's
// engine decides which writes need them.
const locksOf = new WeakMap<Connection, DocumentLocks>();

/** True when the engine behind `db` is FerretDB (its `buildInfo` names it), whose single updates are not atomic. */
export async function isFerretDb(db: Connection): Promise<boolean> {
  const info = await db.db!.admin().command({ buildInfo: 1 });
  return 'ferretdbVersion' in info || 'ferretdbFeatures' in info;
}

/** Gives `db` its locks: shared through Redis when given, in this process otherwise. */
export async function attachDocumentLocks(db: Connection, options: { redis?: RedisClient; logger?: Logger } = {}): Promise<DocumentLocks> {
  const locks = new LockSet(await isFerretDb(db), options.redis, options.logger);
  locksOf.set(db, locks);
  return locks;
}

/** The locks of `db` (in this process and guarding every write, when `attachDocumentLocks` was not called). */
export function documentLocks(db: Connection): DocumentLocks {
  let locks = locksOf.get(db);
  if (!locks) locksOf.set(db, (locks = new LockSet(true, undefined, undefined)));
  return locks;
}

/** The guarded writes of one collection's documents, each document locked by `<collection>:<id>`. */
export function documentWrites(model: Pick<Model<never>, 'db' | 'collection'>) {
  const locks = documentLocks(model.db);
  const keyOf = (id: string) => `${model.collection.collectionName}:${id}`;
  return {
    /** Runs `work` as the only writer of the document (on every engine). */
    transition: <T>(id: string, work: () => Promise<T>): Promise<T> => locks.transition(keyOf(id), work),
    /** One write of the document, guarded where the engine needs it. */
    write: <T>(id: string, work: () => Promise<T>): Promise<T> => locks.write(keyOf(id), work),
  };
}
