import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { deliveryStore, leaseStore } from './webhooks.model.js';
import type { Delivery } from './delivery.js';
import { DISPATCH_JOB, leaseTtl, scheduleRetry } from './webhooks.schedule.js';
import { OpenedTargets } from './webhooks.opened.js';
import { notSent, sendAttempt, type AttemptResult } from './webhooks.attempt.js';
import type { WebhookPipeline } from './webhooks.pipeline.js';

/**
 * The first-attempt pipeline. Publishing only stores the delivery (`webhooks.record.ts`); a worker then
 * dispatches each workspace in process under its lease: up to `WEBHOOK_CONCURRENCY_PER_WORKSPACE` POSTs in
 * flight, started in event (delivery id) order, their outcomes recorded in groups, behind the sends of a burst (see `RECORD_BEHIND_MS`). Nothing here scans the
 * delivery history: pending deliveries live in a collection that holds only those whose first attempt is
 * not recorded yet.
 */

/** First-attempt records written with one insert at most. */
const COMPLETE_BATCH = 500;
/**
 * Outcomes wait while the dispatcher has deliveries to start or this node is storing more of the workspace's
 * events, so the engine's time goes to storing them and the POSTs of a burst go out first; but not longer
 * than this, nor more than `RECORD_BEHIND_MAX` of them. A holder killed meanwhile leaves them pending: the
 * next holder sends them again (same `Webhook-Id`), so these bound the repeats a crash can cause.
 */
const RECORD_BEHIND_MS = 3_000;
const RECORD_BEHIND_MAX = 2_000;
const RENEW_EVERY_MS = 1_000;

/**
 * Persisted safety net: one dispatch job per workspace, due after the lease time on a worker (so the
 * deliveries go out even if this node dies now; the in-process dispatch usually gets there first), at
 * once on an API-only node.
 */
export function ensureDispatchJob(deps: Deps, workspaceId: string, delayMs: number): Promise<void> {
  return deps.jobs.enqueueUnique(DISPATCH_JOB, { workspaceId }, 'workspaceId', { insertOnly: true, at: new Date(Date.now() + delayMs) });
}

/**
 * The workspace's dispatcher on `node`: makes the first attempts of its pending deliveries, oldest event
 * first, up to the concurrency window at once. Only the lease holder dispatches; a dispatcher the node
 * already runs for the workspace is woken instead. A caller that finds the lease taken gets `busyUntil`:
 * the holder re-checks for new deliveries after releasing, and if it died the lease runs out then. `touch`
 * keeps the holder's job lock alive.
 */
export async function dispatchWorkspace(
  node: WebhookPipeline,
  workspaceId: string,
  touch: () => Promise<void>,
  recorded: Delivery[] = [],
): Promise<{ attempted: number; busyUntil: Date | null }> {
  const dispatch = dispatchOnNode(node, workspaceId, touch, recorded);
  node.dispatches.add(dispatch);
  try {
    return await dispatch;
  } finally {
    node.dispatches.delete(dispatch);
  }
}

/** How soon another node takes over what a closing node left pending. */
const HAND_OVER_MS = 1_000;

/** A closing node leaves its pending deliveries to the dispatch job, due soon, for any other node to run. */
async function handOver(node: WebhookPipeline, workspaceId: string, attempted: number): Promise<{ attempted: number; busyUntil: Date | null }> {
  const { deps } = node;
  if (!(await deliveryStore(deps.db).hasPending(workspaceId))) return { attempted, busyUntil: null };
  const due = new Date(Date.now() + HAND_OVER_MS);
  await deps.jobs.enqueueNoLaterThan(DISPATCH_JOB, { workspaceId }, 'workspaceId', due);
  return { attempted, busyUntil: due };
}

async function dispatchOnNode(
  node: WebhookPipeline,
  workspaceId: string,
  touch: () => Promise<void>,
  recorded: Delivery[],
): Promise<{ attempted: number; busyUntil: Date | null }> {
  const { deps } = node;
  if (node.closing) return handOver(node, workspaceId, 0);
  const leases = leaseStore(deps.db);
  const running = node.active.get(workspaceId);
  if (running) {
    running.wake(true);
    return { attempted: 0, busyUntil: await leases.until(workspaceId) };
  }
  const holder = randomBytes(8).toString('hex');
  // Registered before the lease is asked for, so the deliveries recorded meanwhile wake this one.
  const dispatcher = new Dispatcher(deps, workspaceId, holder, touch, () => node.recording.has(workspaceId));
  dispatcher.offer(recorded);
  node.active.set(workspaceId, dispatcher);
  let attempted = 0;
  try {
    if (!(await leases.acquire(workspaceId, holder, leaseTtl(deps)))) return { attempted, busyUntil: await leases.until(workspaceId) };
    for (;;) {
      attempted += await dispatcher.drain();
      node.active.delete(workspaceId);
      if (dispatcher.stopped) return { attempted, busyUntil: null };
      await leases.release(workspaceId, holder);
      if (node.closing) return await handOver(node, workspaceId, attempted);
      // A delivery stored after the last look and before the release found the lease taken: look again.
      if (!(await deliveryStore(deps.db).hasPending(workspaceId)) || node.active.has(workspaceId)) return { attempted, busyUntil: null };
      node.active.set(workspaceId, dispatcher);
      if (node.closing) dispatcher.finish();
      dispatcher.wake(true);
      if (!(await leases.acquire(workspaceId, holder, leaseTtl(deps)))) return { attempted, busyUntil: null };
    }
  } finally {
    if (node.active.get(workspaceId) === dispatcher) node.active.delete(workspaceId);
  }
}

class Dispatcher {
  private queue: Delivery[] = [];
  /** Every delivery this holder has in hand (queued, in flight, or recorded with its group's entries not yet removed). */
  private readonly known = new Set<string>();
  /** Groups of pending entries: removed with one delete once all their deliveries are recorded. */
  private readonly batches = new Map<string, { ids: string[]; open: number }>();
  /** Groups removed while a read of the pending collection ran: that read may still return them. */
  private removedDuringFetch = new Set<string>();
  private inFlight = 0;
  private finished: { delivery: Delivery; result: AttemptResult }[] = [];
  /** When the oldest of `finished` finished. */
  private finishedSince = 0;
  private committing: Promise<void> | null = null;
  private readonly targets: OpenedTargets;
  /** Pending deliveries may be stored that this holder was not handed (at start, or stored by another node). */
  private more = true;
  private attempted = 0;
  private renewedAt = Date.now();
  private signal: (() => void) | null = null;
  /** The lease is lost or outcomes could not be written: this holder starts nothing more and keeps its lease until it runs out. */
  stopped = false;
  /** The node is closing: this holder starts nothing more, records what it sent, and releases its lease. */
  private finishing = false;

  constructor(
    private readonly deps: Deps,
    private readonly workspaceId: string,
    private readonly holder: string,
    private readonly touch: () => Promise<void>,
    /** This node still stores events of the workspace: wait for them rather than release and read them back. */
    private readonly recording: () => boolean,
  ) {
    this.targets = new OpenedTargets(deps);
  }

  wake(more = false): void {
    if (more) this.more = true;
    const signal = this.signal;
    this.signal = null;
    signal?.();
  }

  finish(): void {
    this.finishing = true;
    this.wake();
  }

  /** Deliveries just stored (in event order, after any handed before): no need to read them back. */
  offer(deliveries: Delivery[]): void {
    this.take(deliveries);
    this.wake();
  }

  private take(deliveries: Delivery[]): number {
    let taken = 0;
    for (const delivery of deliveries) {
      const batch = delivery.batch ?? delivery.id;
      if (this.known.has(delivery.id) || this.removedDuringFetch.has(batch)) continue;
      this.known.add(delivery.id);
      this.queue.push(delivery);
      const group = this.batches.get(batch) ?? { ids: [], open: 0 };
      group.ids.push(delivery.id);
      group.open += 1;
      this.batches.set(batch, group);
      taken += 1;
    }
    return taken;
  }

  /** Runs until nothing is pending, in flight or unrecorded (or it stopped); returns the attempts made. */
  async drain(): Promise<number> {
    const attemptedBefore = this.attempted;
    // Also what renews the lease while every attempt in flight waits on a slow receiver.
    const ticker = setInterval(() => this.wake(), RENEW_EVERY_MS).unref();
    try {
      await this.run();
      if (this.finishing && !this.stopped) await this.regroupUnsent();
      return this.attempted - attemptedBefore;
    } finally {
      clearInterval(ticker);
    }
  }

  private async run(): Promise<void> {
    const window = this.deps.config.WEBHOOK_CONCURRENCY_PER_WORKSPACE;
    for (;;) {
      if (Date.now() - this.renewedAt >= RENEW_EVERY_MS && !this.stopped) await this.renew();
      if (!this.stopped && !this.finishing && this.more) {
        this.more = false;
        this.removedDuringFetch = new Set();
        const found = await deliveryStore(this.deps.db).pending(this.workspaceId);
        if (this.take(found)) this.queue.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        this.removedDuringFetch = new Set();
      }
      while (!this.stopped && !this.finishing && this.inFlight < window && this.queue.length) this.start(this.queue.shift()!);
      // A stopped holder records nothing more (the deliveries stay pending for the next holder); keeping
      // them would restart an empty commit on every wake-up, forever.
      if (this.stopped) this.finished = [];
      if (this.finished.length && !this.committing && this.recordNow()) this.committing = this.commit().finally(() => ((this.committing = null), this.wake()));
      const idle = this.inFlight === 0 && !this.finished.length && !this.committing;
      if (idle && (this.stopped || this.finishing || (!this.queue.length && !this.more && !this.recording()))) return;
      await new Promise<void>((resolve) => (this.signal = resolve));
    }
  }

  /**
   * A finishing holder has every attempt it made recorded; the groups it sent in part would still leave only
   * whole, and the next holder would send their recorded deliveries again: what it did not send moves to a
   * group of its own.
   */
  private async regroupUnsent(): Promise<void> {
    for (const [batch, entry] of this.batches) {
      const unsent = this.queue.filter((delivery) => (delivery.batch ?? delivery.id) === batch);
      if (unsent.length === entry.ids.length) continue;
      try {
        await deliveryStore(this.deps.db).regroupPending(batch, unsent);
      } catch (error) {
        // The group stays (or both do): the next holder sends the recorded ones again, with the same Webhook-Id.
        this.deps.logger.warn({ err: error, workspaceId: this.workspaceId }, 'webhook deliveries not regrouped; some may be sent again');
      }
    }
  }

  /** Outcomes are recorded once nothing waits to start or is being stored, or once they have waited long enough (or are many). */
  private recordNow(): boolean {
    return this.finishing || (!this.queue.length && !this.recording()) || this.finished.length >= RECORD_BEHIND_MAX || Date.now() - this.finishedSince >= RECORD_BEHIND_MS;
  }

  /** Started in queue (event) order; the POST leaves before the next one is started. */
  private start(delivery: Delivery): void {
    this.inFlight += 1;
    this.attempted += 1;
    void sendAttempt(this.deps, delivery, this.targets)
      .catch((error: unknown) => notSent(this.deps, delivery, error))
      .then((result) => {
        if (!this.finished.length) this.finishedSince = Date.now();
        this.finished.push({ delivery, result });
      })
      .finally(() => {
        this.inFlight -= 1;
        this.wake();
      });
  }

  /**
   * Writes the first attempts finished so far in groups: records in, retries scheduled, then fully
   * recorded groups of pending entries out. Those finishing meanwhile wait for the next `recordNow`.
   */
  private async commit(): Promise<void> {
    const store = deliveryStore(this.deps.db);
    const finished = this.finished;
    this.finished = [];
    while (finished.length && !this.stopped) {
      const group = finished.splice(0, COMPLETE_BATCH);
      const now = this.deps.clock.now();
      const records: Delivery[] = group.map(({ delivery, result }) => ({
        ...delivery,
        state: result.state,
        attempts: [result.attempt],
        nextAttemptAt: result.nextAttemptAt,
        finalReason: result.finalReason,
        updatedAt: now,
      }));
      try {
        await store.completeFirstAttempts(records);
        const firstRetry = Math.min(...records.map((record) => (record.state === 'scheduled' ? (record.nextAttemptAt?.getTime() ?? Infinity) : Infinity)));
        if (firstRetry < Infinity) await scheduleRetry(this.deps, this.workspaceId, new Date(firstRetry));
        for (const record of records) {
          const batch = record.batch ?? record.id;
          const entry = this.batches.get(batch);
          if (!entry || --entry.open > 0) continue;
          await store.removePendingBatch(batch);
          this.batches.delete(batch);
          this.removedDuringFetch.add(batch);
          for (const id of entry.ids) this.known.delete(id);
        }
      } catch (error) {
        // Still pending in storage: once this holder's lease has run out, the next one sends them again.
        this.deps.logger.error({ err: error, workspaceId: this.workspaceId }, 'webhook outcomes not recorded; they will be sent again');
        this.stopped = true;
      }
    }
  }

  private async renew(): Promise<void> {
    this.renewedAt = Date.now();
    try {
      if (!(await leaseStore(this.deps.db).renew(this.workspaceId, this.holder, leaseTtl(this.deps)))) {
        this.stopped = true;
        return;
      }
      await this.keepJob();
      await this.touch();
    } catch (error) {
      this.deps.logger.error({ err: error, workspaceId: this.workspaceId }, 'webhook dispatch lease not renewed');
    }
  }

  /** The safety net exists while this holder works (a job run that finished just before it started may have removed it). */
  private async keepJob(): Promise<void> {
    if (this.deps.jobs.running) await ensureDispatchJob(this.deps, this.workspaceId, leaseTtl(this.deps)).catch(() => undefined);
  }
}
