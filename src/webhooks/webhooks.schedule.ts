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

/** On a worker start: workspaces with deliveries whose first attempt is still to come get their dispatch job again (idempotent). */
export async function recoverFirstAttempts(deps: Deps): Promise<number> {
  const workspaces = await deliveryStore(deps.db).workspacesWithPending();
  for (const workspaceId of workspaces) await deps.jobs.enqueueUnique(DISPATCH_JOB, { workspaceId }, 'workspaceId');
  return workspaces.length;
}
