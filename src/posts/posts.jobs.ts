import type { Job } from 'agenda';
import type { Deps } from '../deps.js';
import { recoverSchedules, runScheduledChange, SCHEDULED_CHANGE_JOB, type ScheduledChangeJobData } from './schedule.service.js';

/** Scheduled publishes/unpublishes. A worker that dies holding one leaves it to the next after the lock expires. */
export function registerPostJobs(deps: Deps): { recover(): Promise<void> } {
  deps.jobs.agenda.define(
    SCHEDULED_CHANGE_JOB,
    async (job: Job<ScheduledChangeJobData>) => {
      await runScheduledChange(deps, job.attrs.data);
    },
    { lockLifetime: 30_000, removeOnComplete: true },
  );
  return {
    async recover() {
      const count = await recoverSchedules(deps);
      if (count) deps.logger.info({ count }, 'scheduled post changes: jobs ensured');
    },
  };
}
