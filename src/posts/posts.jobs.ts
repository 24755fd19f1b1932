import { exponential, type Job } from 'agenda';
import type { Deps } from '../deps.js';
import { recoverSchedules, runScheduledChange, SCHEDULED_CHANGE_JOB, type ScheduledChangeJobData } from './schedule.service.js';

/**
 * Scheduled publishes/unpublishes. A worker that dies holding one leaves it to the next after the lock
 * expires. Only infrastructure failures throw (the rules' own refusals end the job), and a run is safe to
 * repeat, so those are retried with backoff (5 s doubling, up to 5 min apart: about 15 minutes in all).
 */
export function registerPostJobs(deps: Deps): { recover(): Promise<void> } {
  deps.jobs.agenda.define(
    SCHEDULED_CHANGE_JOB,
    async (job: Job<ScheduledChangeJobData>) => {
      await runScheduledChange(deps, job.attrs.data);
    },
    { lockLifetime: 30_000, removeOnComplete: true, backoff: exponential({ delay: 5_000, maxDelay: 300_000, maxRetries: 8 }) },
  );
  return {
    async recover() {
      const count = await recoverSchedules(deps);
      if (count) deps.logger.info({ count }, 'scheduled post changes: jobs ensured');
    },
  };
}
