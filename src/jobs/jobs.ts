import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import { settledWithin } from '../shared/settled-within.js';
import { documentLocks } from '../db/document-locks.js';

/**
 * Persisted background jobs (Agenda on the same MongoDB). `enqueue` stores the job before it returns,
 * so a job survives a restart; a job whose worker died is picked up again once its lock expires.
 */
export interface JobQueue {
  agenda: Agenda;
  enqueue(name: string, data: Record<string, unknown>): Promise<void>;
  /**
   * Stores the one job of `name` whose `data[key]` is `data[key]`, due at `at` (default now). Calling it
   * again for the same entity moves that job instead of adding a second one, so recovery can call it
   * freely; `insertOnly` leaves an existing job untouched.
   */
  enqueueUnique(name: string, data: Record<string, unknown>, key: string, options?: { at?: Date; insertOnly?: boolean }): Promise<void>;
  /**
   * The one job of `name` for `data[key]` runs no later than `at`: created there, moved earlier (or, left
   * unscheduled by a failed run, scheduled again), never later. A job running now is not moved (Agenda
   * saves its own next run when it ends): its owner asks again once it has ended (`complete:<name>`).
   */
  enqueueNoLaterThan(name: string, data: Record<string, unknown>, key: string, at: Date): Promise<void>;
  /** Starts processing on this node (worker role). */
  start(): Promise<void>;
  /**
   * Takes no more jobs, and waits (up to `RUNS_END_WITHIN_MS`) for the runs under way to end and store
   * their outcome: the database closes after this.
   */
  stop(): Promise<void>;
  /**
   * Stops polling at once without unlocking or finishing the jobs in hand: what a crashed worker leaves
   * behind. Tests use it to show another worker picks those jobs up once their locks expire.
   */
  abandon(): void;
  readonly running: boolean;
}

/**
 * How long a stopping node waits for its job runs to end. While a one-off job runs, its stored next run is
 * empty; the run stores the next one (a dispatch handed over, a retry's time) when it ends. A run cut off
 * by the database closing leaves its job due never again.
 */
const RUNS_END_WITHIN_MS = 2_000;

export function createJobQueue(db: Connection, logger: Logger, options: { processEvery?: number } = {}): JobQueue {
  const agenda = new Agenda({
    backend: new MongoBackend({ mongo: db.db as never, collection: 'jobs' }),
    processEvery: options.processEvery ?? 1000,
  });
  agenda.on('error', (error: Error) => logger.error({ err: error }, 'job queue error'));
  agenda.on('fail', (error: Error, job: { attrs: { name: string } }) => logger.error({ err: error, job: job.attrs.name }, 'job failed'));
  let started = false;
  // Agenda emits `complete` once a run's outcome is stored.
  let runs = 0;
  let runsEnded: (() => void) | undefined;
  agenda.on('start', () => (runs += 1));
  agenda.on('complete', () => {
    runs -= 1;
    if (runs === 0) runsEnded?.();
  });
  /** The one job of `name` for the entity `data[key]` names. */
  const uniqueFilter = (name: string, data: Record<string, unknown>, key: string) => ({ name, [`data.${key}`]: data[key] });
  return {
    agenda,
    get running() {
      return started;
    },
    async enqueue(name, data) {
      await agenda.now(name, data);
    },
    async enqueueUnique(name, data, key, opts = {}) {
      await agenda
        .create(name, data)
        .unique(uniqueFilter(name, data, key), { insertOnly: opts.insertOnly ?? false })
        .schedule(opts.at ?? new Date())
        .save();
    },
    async enqueueNoLaterThan(name, data, key, at) {
      const filter = uniqueFilter(name, data, key);
      // Two callers for one entity must not undo each other's move (a conditional update is no compare-and-set on FerretDB).
      await documentLocks(db).write(`jobs:${name}:${String(data[key])}`, async () => {
        await agenda.create(name, data).unique(filter, { insertOnly: true }).schedule(at).save();
        // A job with no next run and no lock is one whose run failed (Agenda then leaves it unscheduled): due again.
        await db.db!.collection('jobs').updateOne({ ...filter, $or: [{ nextRunAt: { $gt: at } }, { nextRunAt: null, lockedAt: null }] }, { $set: { nextRunAt: at } });
      });
    },
    async start() {
      await agenda.start();
      started = true;
    },
    async stop() {
      if (!started) return;
      started = false;
      // Unlocks the jobs it holds but does not wait for the runs under way.
      await agenda.stop(false);
      if (runs === 0) return;
      const ended = await settledWithin(new Promise<void>((resolve) => (runsEnded = resolve)), RUNS_END_WITHIN_MS);
      if (!ended) logger.warn({ runs }, 'job runs still under way as the node stops: what they store when they end may be lost');
    },
    abandon() {
      (agenda as unknown as { jobProcessor?: { stop(): unknown } }).jobProcessor?.stop();
      started = false;
    },
  };
}
