import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { deliveryStore, leaseStore } from './webhooks.model.js';
import { leaseTtl, scheduleRetry } from './webhooks.schedule.js';
import { OpenedTargets } from './webhooks.opened.js';
import { notSent, sendAttempt } from './webhooks.attempt.js';

/**
 * Retries go through one dispatcher per workspace (the `webhooks.retry` job, keyed by workspace), never one
 * job per delivery: hundreds of deliveries failing at once are hundreds of rows due, not hundreds of jobs
 * whose locks fight over the engine. The dispatcher sends what is due, at most
 * `WEBHOOK_CONCURRENCY_PER_WORKSPACE` at once, under a lease of its own (first attempts keep theirs), and
 * returns when its job should run next.
 */

/** Retries read from storage at once. */
const BATCH = 100;
/** A retry due this soon after the last is waited for in the same run instead of a new job run. */
const LINGER_MS = 1_000;
/** A workspace with nothing scheduled still looks once in a while: a move of its job lost to a crash is found then. */
const IDLE_RECHECK_MS = 60 * 60_000;
const RENEW_EVERY_MS = 1_000;

const leaseKey = (workspaceId: string) => `${workspaceId}:retries`;

/** One run of the workspace's retry dispatcher. `touch` keeps the job's lock alive while it works. */
export async function retryWorkspace(deps: Deps, workspaceId: string, touch: () => Promise<void>): Promise<Date> {
  const leases = leaseStore(deps.db);
  const holder = randomBytes(8).toString('hex');
  if (!(await leases.acquire(leaseKey(workspaceId), holder, leaseTtl(deps)))) {
    // Another node is at it; if it died, its lease runs out by then.
    const until = await leases.until(leaseKey(workspaceId));
    return new Date(Math.max(until?.getTime() ?? 0, Date.now()) + 100);
  }
  const held = { lost: false };
  const renewal = keepLease(deps, workspaceId, holder, touch, held);
  let next: Date | null | undefined;
  try {
    next = await sendDue(deps, workspaceId, held);
  } finally {
    clearInterval(renewal);
    if (!held.lost) await leases.release(leaseKey(workspaceId), holder).catch(() => undefined);
  }
  // A lost lease ended the run before it read when the next retry is due.
  if (next === undefined) next = await deliveryStore(deps.db).nextRetryAt(workspaceId);
  return new Date(Math.min(next?.getTime() ?? Infinity, Date.now() + IDLE_RECHECK_MS));
}

/**
 * Sends the retries due, batch by batch, waiting briefly for those due right after. Returns when the next
 * retry is due (null: none is scheduled), or undefined when the lease was lost first.
 */
async function sendDue(deps: Deps, workspaceId: string, held: { lost: boolean }): Promise<Date | null | undefined> {
  const store = deliveryStore(deps.db);
  const targets = new OpenedTargets(deps);
  while (!held.lost) {
    const due = await store.dueRetries(workspaceId, new Date(), BATCH);
    if (due.length) {
      const outcomes = await inWindow(due, deps.config.WEBHOOK_CONCURRENCY_PER_WORKSPACE, held, async (delivery) => {
        const result = await sendAttempt(deps, delivery, targets).catch((error: unknown) => notSent(deps, delivery, error));
        return { id: delivery.id, workspaceId, attempt: result.attempt, next: { state: result.state, nextAttemptAt: result.nextAttemptAt, finalReason: result.finalReason } };
      });
      // Not recorded (the engine failed): they stay due, and the job backs off before trying them again.
      await store.recordRetries(outcomes);
      continue;
    }
    const next = await store.nextRetryAt(workspaceId);
    const wait = next ? next.getTime() - Date.now() : Infinity;
    if (wait > LINGER_MS) return next;
    await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 0)));
  }
  return undefined;
}

/** `work` over `items`, `window` at a time, starting nothing more once the lease is lost; the results of those run. */
async function inWindow<T, R>(items: T[], window: number, held: { lost: boolean }, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (!held.lost && next < items.length) results.push(await work(items[next++]));
  };
  await Promise.all(Array.from({ length: Math.min(window, items.length) }, worker));
  return results;
}

function keepLease(deps: Deps, workspaceId: string, holder: string, touch: () => Promise<void>, held: { lost: boolean }): NodeJS.Timeout {
  let renewing = false;
  return setInterval(() => {
    if (renewing) return;
    renewing = true;
    void (async () => {
      try {
        if (!(await leaseStore(deps.db).renew(leaseKey(workspaceId), holder, leaseTtl(deps)))) held.lost = true;
        else await touch();
      } catch (error) {
        deps.logger.error({ err: error, workspaceId }, 'webhook retry lease not renewed');
      } finally {
        renewing = false;
      }
    })();
  }, RENEW_EVERY_MS).unref();
}

/** A retry job of versions that kept one job per delivery: its delivery joins its workspace's dispatcher. */
export async function adoptDeliveryJob(deps: Deps, deliveryId: string): Promise<void> {
  const delivery = await deliveryStore(deps.db).byId(deliveryId);
  if (delivery?.state === 'scheduled') await scheduleRetry(deps, delivery.workspaceId, delivery.nextAttemptAt ?? new Date());
}

/** Worker start: every workspace with retries to come has its dispatcher job, due by its first retry. */
export async function recoverRetries(deps: Deps): Promise<number> {
  const store = deliveryStore(deps.db);
  const workspaces = await store.workspacesWithRetries();
  for (const workspaceId of workspaces) {
    const next = await store.nextRetryAt(workspaceId);
    if (next) await scheduleRetry(deps, workspaceId, next);
  }
  return workspaces.length;
}
