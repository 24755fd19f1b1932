import type { Job, JobWithId } from 'agenda';
import type { Deps } from '../deps.js';
import { REPLY_MAIL_JOB, sendReplyMail, type ReplyMailJobData } from './followup.service.js';
import { TEAM_DIGEST_JOB, followUpTeamDigest, sendTeamDigest, type TeamDigestJobData } from './team-digest.service.js';

/** The batched reply mail to an absent visitor and the team's away digest (see `followup.service.ts`). */
export function registerLiveChatJobs(deps: Deps): void {
  deps.jobs.agenda.define(
    REPLY_MAIL_JOB,
    async (job: Job<ReplyMailJobData>) => {
      await sendReplyMail(deps, job.attrs.data);
    },
    { lockLifetime: 30_000, removeOnComplete: true },
  );

  // One job per workspace, kept between runs (not removed on completion): a visitor message that finds it
  // idle schedules it again, whereas a removed job would take a message arriving during its run with it.
  deps.jobs.agenda.define(
    TEAM_DIGEST_JOB,
    async (job: Job<TeamDigestJobData>) => {
      // Agenda saves nextRunAt when the handler returns: a run inside the interval moves to its end.
      job.attrs.nextRunAt = await sendTeamDigest(deps, job.attrs.data);
    },
    { lockLifetime: 30_000, removeOnComplete: false },
  );
  // A visitor message during the run found the job running and left it alone; now that Agenda has stored
  // the run's end, its digest is scheduled (a run that failed is scheduled again the same way).
  deps.jobs.agenda.on(`complete:${TEAM_DIGEST_JOB}`, (job: JobWithId) => {
    const { workspaceId } = job.attrs.data as Partial<TeamDigestJobData>;
    if (!workspaceId || job.attrs.nextRunAt) return;
    followUpTeamDigest(deps, String(workspaceId)).catch((error: unknown) => deps.logger.error({ err: error, workspaceId }, 'live chat: away digest not followed up'));
  });
}
