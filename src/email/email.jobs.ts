import nodemailer from 'nodemailer';
import type { Job } from 'agenda';
import type { Deps } from '../deps.js';
import { EMAIL_SEND_JOB, recoverOutbox, sendOutboxEmail, type MailTransport } from './email.service.js';

/** The outbox's send job. A retry moves the same job to its next time, so a mail never has two jobs. */
export function registerEmailJobs(deps: Deps): { recover(): Promise<void> } {
  const url = deps.config.SMTP_URL;
  const transport: MailTransport | null = url
    ? (nodemailer.createTransport(url, {
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      } as never))
    : null;

  deps.jobs.agenda.define(
    EMAIL_SEND_JOB,
    async (job: Job<{ emailId: string }>) => {
      const next = await sendOutboxEmail(deps, transport, String(job.attrs.data.emailId));
      // Agenda saves nextRunAt when the handler returns: the retry is stored with the job's completion.
      job.attrs.nextRunAt = next;
    },
    { lockLifetime: 60_000, removeOnComplete: true },
  );

  return {
    async recover() {
      if (!transport) return;
      const count = await recoverOutbox(deps);
      if (count) deps.logger.info({ count }, 'outbox: waiting e-mails re-enqueued');
    },
  };
}
