import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Connection } from 'mongoose';
import type { Logger } from 'pino';

/**
 * Persisted background jobs (Agenda on the same MongoDB). `enqueue` stores the job before it returns,
 * so a job survives a restart; a job whose worker died is picked up again once its lock expires.
 */
export interface JobQueue {
  agenda: Agenda;
  enqueue(name: string, data: Record<string, unknown>): Promise<void>;
  /** Starts processing on this node (worker role). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createJobQueue(db: Connection, logger: Logger, options: { processEvery?: number } = {}): JobQueue {
  const agenda = new Agenda({
    backend: new MongoBackend({ mongo: db.db as never, collection: 'jobs' }),
    processEvery: options.processEvery ?? 1000,
  } as never);
  agenda.on('error', (error: Error) => logger.error({ err: error }, 'job queue error'));
  let started = false;
  return {
    agenda,
    async enqueue(name, data) {
      await agenda.now(name, data);
    },
    async start() {
      await agenda.start();
      started = true;
    },
    async stop() {
      if (started) await agenda.stop();
      started = false;
    },
  };
}
