import type { Deps } from '../deps.js';
import { registerAppointmentJobs } from '../appointments/appointments.jobs.js';
import { registerEmailJobs } from '../email/email.jobs.js';
import { registerPostJobs } from '../posts/posts.jobs.js';
import { registerWebhookJobs } from '../webhooks/webhooks.jobs.js';
import type { WebhookPipeline } from '../webhooks/webhooks.pipeline.js';
import { registerLiveChatJobs } from '../livechat/livechat.jobs.js';

/**
 * Defines every job handler and subscribes the job-producing domain events. Runs on every node (an API
 * node stores jobs, a worker runs them); `recover` runs when this node starts working jobs.
 */
export function registerJobs(deps: Deps): { webhooks: WebhookPipeline; recover(): Promise<void> } {
  const email = registerEmailJobs(deps);
  const webhooks = registerWebhookJobs(deps);
  const appointments = registerAppointmentJobs(deps);
  const posts = registerPostJobs(deps);
  registerLiveChatJobs(deps);
  return {
    webhooks: webhooks.pipeline,
    async recover() {
      await email.recover();
      await webhooks.recover();
      await posts.recover();
      await appointments.recover();
    },
  };
}
