import type { Job, JobWithId } from 'agenda';
import type { Deps } from '../deps.js';
import { dispatchWorkspace } from './webhooks.dispatch.js';
import { WebhookPipeline } from './webhooks.pipeline.js';
import { adoptDeliveryJob, recoverRetries, retryWorkspace } from './webhooks.retries.js';
import { DISPATCH_JOB, PRUNE_JOB, RETRY_JOB, leaseTtl, recoverFirstAttempts, scheduleRetry } from './webhooks.schedule.js';
import { pruneDeliveries } from './webhooks.prune.js';
import { deliveryStore } from './webhooks.model.js';

/** How often finished deliveries past the retention limits are deleted. */
const PRUNE_EVERY = '1 hour';

/**
 * Webhook jobs. `webhooks.dispatch` (one per workspace; the persisted safety net behind the in-process
 * dispatch of worker nodes, and the only path on API-only nodes) makes first attempts in event order;
 * `webhooks.retry` (one per workspace) makes the retries due and moves itself to the next retry time, which
 * Agenda stores together with the run's completion; `webhooks.prune` (one, every hour) deletes finished
 * deliveries older than `WEBHOOK_DELIVERY_RETENTION_DAYS` or beyond `WEBHOOK_DELIVERY_MAX_PER_WORKSPACE`.
 * Runs once per node: the node's pipeline, shared by the dispatch job and the bus's webhook recorder
 * (`app/listeners.ts`), is made here.
 */
export function registerWebhookJobs(deps: Deps): { pipeline: WebhookPipeline; recover(): Promise<void> } {
  const ttl = leaseTtl(deps);
  const pipeline = new WebhookPipeline(deps);

  deps.jobs.agenda.define(
    DISPATCH_JOB,
    async (job: Job<{ workspaceId: string }>) => {
      try {
        const { busyUntil } = await dispatchWorkspace(pipeline, String(job.attrs.data.workspaceId), () => job.touch());
        // Another dispatcher holds the workspace: look again when its lease would run out (if it died).
        if (busyUntil) job.attrs.nextRunAt = new Date(Math.max(busyUntil.getTime(), Date.now()) + 100);
      } catch (error) {
        // Run again once the lease this run may still hold has run out.
        deps.logger.error({ err: error, workspaceId: job.attrs.data.workspaceId }, 'webhook dispatch failed; will run again');
        job.attrs.nextRunAt = new Date(Date.now() + ttl + 500);
      }
    },
    // A dead holder's job is picked up again only after its lease has surely expired.
    { lockLifetime: ttl + 2_000, removeOnComplete: true, concurrency: 10 },
  );

  deps.jobs.agenda.define(
    RETRY_JOB,
    async (job: Job<{ workspaceId?: string; deliveryId?: string }>) => {
      const { workspaceId, deliveryId } = job.attrs.data;
      try {
        if (workspaceId) job.attrs.nextRunAt = await retryWorkspace(deps, String(workspaceId), () => job.touch());
        else if (deliveryId) await adoptDeliveryJob(deps, String(deliveryId));
      } catch (error) {
        // Back off (an engine too busy to answer gets time to recover) rather than run again at once.
        deps.logger.error({ err: error, workspaceId, deliveryId }, 'webhook retries failed; will run again');
        job.attrs.nextRunAt = new Date(Date.now() + ttl + Math.round(Math.random() * ttl));
      }
    },
    { lockLifetime: ttl + 2_000, removeOnComplete: true, concurrency: 10 },
  );
  // A retry scheduled while the run ran found its job running and left it alone; now that Agenda has saved
  // the run's own next time, bring it forward if that retry is due sooner.
  deps.jobs.agenda.on(`complete:${RETRY_JOB}`, (job: JobWithId) => {
    const { workspaceId } = job.attrs.data as { workspaceId?: string };
    if (!workspaceId) return;
    void deliveryStore(deps.db)
      .nextRetryAt(String(workspaceId))
      .then((next) => next && scheduleRetry(deps, String(workspaceId), next))
      .catch((error: unknown) => deps.logger.error({ err: error, workspaceId }, 'webhook retry time not checked'));
  });

  deps.jobs.agenda.define(
    PRUNE_JOB,
    async () => {
      const pruned = await pruneDeliveries(deps);
      if (pruned.byAge || pruned.byCount) deps.logger.info(pruned, 'webhooks: old deliveries pruned');
    },
    { lockLifetime: 10 * 60_000, removeOnComplete: false, concurrency: 1 },
  );

  return {
    pipeline,
    async recover() {
      const count = (await recoverFirstAttempts(deps)) + (await recoverRetries(deps));
      if (count) deps.logger.info({ count }, 'webhooks: workspaces with unfinished deliveries re-enqueued');
      await deps.jobs.agenda.every(PRUNE_EVERY, PRUNE_JOB);
    },
  };
}
