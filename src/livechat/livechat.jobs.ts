import type { Job } from 'agenda';
import type { Deps } from '../deps.js';
import { REPLY_MAIL_JOB, sendReplyMail, type ReplyMailJobData } from './followup.service.js';

/** The batched reply mail to an absent visitor (see `followup.service.ts`). */
export function registerLiveChatJobs(deps: Deps): void {
  deps.jobs.agenda.define(
    REPLY_MAIL_JOB,
    async (job: Job<ReplyMailJobData>) => {
      await sendReplyMail(deps, job.attrs.data);
    },
    { lockLifetime: 30_000, removeOnComplete: true },
  );
}
