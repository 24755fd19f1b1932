import type { Job } from 'agenda';
import type { Deps } from '../deps.js';
import { REMINDER_JOB, REMINDERS_DUE_JOB, REMINDERS_SWEEP_EVERY_MS, sendDueReminders, sendReminder, type ReminderJobData } from './reminders.service.js';

const SWEEP_KEY = { key: 'reminders' };

/**
 * Reminder mails: the sweep, one job kept between runs (it plans its own next run, also after a failed
 * one: a sweep that stopped would send no reminder again). The lock outlives a sweep by far; a worker that
 * dies holding it leaves the sweep to the next after expiry.
 */
export function registerAppointmentJobs(deps: Deps): { recover(): Promise<void> } {
  deps.jobs.agenda.define(
    REMINDERS_DUE_JOB,
    async (job: Job) => {
      try {
        job.attrs.nextRunAt = await sendDueReminders(deps);
      } catch (error) {
        deps.logger.error({ err: error }, 'appointment reminders: sweep failed; the next one retries');
        job.attrs.nextRunAt = new Date(deps.clock.now().getTime() + REMINDERS_SWEEP_EVERY_MS);
      }
    },
    { lockLifetime: 60_000, removeOnComplete: false },
  );
  // Reminders planned as one job each, before the sweep.
  deps.jobs.agenda.define(
    REMINDER_JOB,
    async (job: Job<ReminderJobData>) => {
      await sendReminder(deps, job.attrs.data);
    },
    { lockLifetime: 30_000, removeOnComplete: true },
  );
  return {
    async recover() {
      await deps.jobs.enqueueNoLaterThan(REMINDERS_DUE_JOB, SWEEP_KEY, 'key', deps.clock.now());
    },
  };
}
