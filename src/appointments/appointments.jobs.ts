import type { Job } from 'agenda';
import type { Deps } from '../deps.js';
import { REMINDER_JOB, sendReminder, type ReminderJobData } from './reminders.service.js';

/** Reminder mails. The lock outlives a send by far; a worker that dies holding it leaves the job to the next after expiry. */
export function registerAppointmentJobs(deps: Deps): void {
  deps.jobs.agenda.define(
    REMINDER_JOB,
    async (job: Job<ReminderJobData>) => {
      await sendReminder(deps, job.attrs.data);
    },
    { lockLifetime: 30_000, removeOnComplete: true },
  );
}
