import type { Deps } from '../deps.js';
import { deliveryStore } from './webhooks.model.js';

export const DISPATCH_JOB = 'webhooks.dispatch';
export const RETRY_JOB = 'webhooks.retry';
export const PRUNE_JOB = 'webhooks.prune';

/** How long a dispatcher holds a workspace without renewing: one attempt's timeout plus a margin. */
export const leaseTtl = (deps: Deps) => deps.config.WEBHOOK_TIMEOUT_MS + 2_000;

/** The workspace's retry dispatcher runs no later than `at` (see `webhooks.retries.ts`). */
export async function scheduleRetry(deps: Deps, workspaceId: string, at: Date): Promise<void> {
  await deps.jobs.enqueueNoLaterThan(RETRY_JOB, { workspaceId }, 'workspaceId', at);
}

/**
 * On a worker start: workspaces with deliveries whose first attempt is still to come get their dispatch
 * job again (idempotent). Records of earlier versions still `pending` move to the pending collection first.
 */
export async function recoverFirstAttempts(deps: Deps): Promise<number> {
  const store = deliveryStore(deps.db);
  await store.movePending(await store.legacyPending());
  const workspaces = await store.workspacesWithPending();
  for (const workspaceId of workspaces) await deps.jobs.enqueueUnique(DISPATCH_JOB, { workspaceId }, 'workspaceId');
  return workspaces.length;
}

/** Finished deliveries past the retention time, then beyond the per-workspace maximum (newest kept). */
export async function pruneDeliveries(deps: Deps): Promise<{ byAge: number; byCount: number }> {
  const store = deliveryStore(deps.db);
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.WEBHOOK_DELIVERY_RETENTION_DAYS * 24 * 60 * 60 * 1000);
  const byAge = await store.pruneOlderThan(cutoff);
  const byCount = await store.pruneBeyond(deps.config.WEBHOOK_DELIVERY_MAX_PER_WORKSPACE);
  return { byAge, byCount };
}
