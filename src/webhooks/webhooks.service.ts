import { createHmac, randomBytes } from 'node:crypto';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import type { Deps } from '../deps.js';
import type { DomainEvent } from '../events/events.js';
import { fail } from '../shared/errors.js';
import { deliveryStore, leaseStore, type Delivery, type DeliveryAttempt, type DeliveryState } from './webhooks.model.js';
import { postJson } from './webhooks.target.js';

export const DISPATCH_JOB = 'webhooks.dispatch';
export const RETRY_JOB = 'webhooks.retry';
export const MAX_ATTEMPTS = 6;
export const USER_AGENT = 'Service-Notifier/1';
/** A `Retry-After` longer than this is capped: the delivery still ends within a day. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** How long a dispatcher holds a workspace without renewing: one attempt's timeout plus a margin. */
export const leaseTtl = (deps: Deps) => deps.config.WEBHOOK_TIMEOUT_MS + 2_000;

/** The wait before retry n (1..5): base × 6^(n-1), ±20% jitter. */
export function retryDelay(retry: number, baseMs: number, random: () => number = Math.random): number {
  const nominal = baseMs * 6 ** (retry - 1);
  return Math.round(nominal * (0.8 + 0.4 * random()));
}

/** `Retry-After` in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  if (/^\s*\d+\s*$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/** The event's payload fields of the spec's table (and `decisions.md`), without `at` (set when sending). */
function payloadOf(event: DomainEvent): Record<string, unknown> {
  switch (event.event) {
    case 'post.published':
    case 'post.unpublished':
      return { event: event.event, workspaceId: event.workspaceId, postId: event.postId, slug: event.slug, title: event.title, publishedAt: event.publishedAt };
    case 'workspace.updated':
      return { event: event.event, workspaceId: event.workspaceId };
    default:
      return { event: event.event, workspaceId: event.workspaceId, navigationId: event.navigationId, key: event.key, name: event.name };
  }
}

/**
 * Standard Webhooks signature: `v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>`, keyed with the
 * URL's `secret` parameter (its UTF-8 bytes; a `whsec_` secret is base64-decoded as the standard does).
 */
export function signature(secret: string, webhookId: string, timestamp: number, body: string): string {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;
}

/** Subscriber of the event bus: stores the delivery before the publisher's request answers, then wakes a dispatcher. */
export async function recordEvent(deps: Deps, event: DomainEvent): Promise<Delivery | null> {
  const workspace = await findWorkspace(deps, event.workspaceId);
  if (!workspace?.webhookUrl) return null;
  const delivery = await deliveryStore(deps.db).create(workspace.id, {
    event: event.event,
    webhookId: `msg_${randomBytes(16).toString('hex')}`,
    payload: payloadOf(event),
    url: workspace.webhookUrl,
    state: 'pending',
  });
  try {
    // Persisted safety net: one dispatch job per workspace, due after the lease time, so the delivery goes
    // out even if this node dies right now. On a worker the dispatch below usually gets there first.
    const delay = deps.jobs.running ? leaseTtl(deps) : 0;
    await deps.jobs.enqueueUnique(DISPATCH_JOB, { workspaceId: workspace.id }, 'workspaceId', { insertOnly: true, at: new Date(Date.now() + delay) });
  } catch (error) {
    // The delivery is stored: the next event of the workspace or the next worker start dispatches it.
    deps.logger.error({ err: error, deliveryId: delivery.id }, 'could not enqueue webhook dispatch');
  }
  if (deps.jobs.running) {
    // Fast path on worker nodes: dispatch in process, without waiting for the job queue's polling.
    void dispatchWorkspace(deps, workspace.id, async () => undefined).catch((error: unknown) =>
      deps.logger.error({ err: error, workspaceId: workspace.id }, 'webhook dispatch failed; the dispatch job will retry'),
    );
  }
  return delivery;
}

interface AttemptResult {
  state: DeliveryState;
  nextAttemptAt: Date | null;
}

/** One attempt: check the target, send, classify, record. The caller schedules the retry, if any. */
export async function attemptDelivery(deps: Deps, delivery: Delivery): Promise<AttemptResult> {
  const number = delivery.attempts.length + 1;
  const now = deps.clock.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  const body = JSON.stringify({ ...delivery.payload, at: now.toISOString() });
  const secret = new URL(delivery.url).searchParams.get('secret');
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'Webhook-Id': delivery.webhookId,
    'Webhook-Timestamp': String(timestamp),
  };
  if (secret) headers['Webhook-Signature'] = signature(secret, delivery.webhookId, timestamp, body);

  const result = await postJson(delivery.url, body, headers, { timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS, allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS });
  const status = result.statusCode;
  let outcome: DeliveryAttempt['outcome'];
  let state: DeliveryState;
  let nextAttemptAt: Date | null = null;
  let finalReason: string | null = null;

  if (result.refused) {
    outcome = 'refused';
    state = 'failed';
    finalReason = `${result.error}; not retried (set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow private targets)`;
  } else if (status !== null && status >= 200 && status < 300) {
    outcome = 'delivered';
    state = 'delivered';
    finalReason = `delivered: receiver answered ${status}`;
  } else if (status === null || status === 429 || status >= 500) {
    if (number >= MAX_ATTEMPTS) {
      outcome = 'exhausted';
      state = 'failed';
      finalReason = `gave up after ${MAX_ATTEMPTS} attempts; last: ${status ?? result.error}`;
    } else {
      outcome = 'retry';
      state = 'scheduled';
      let wait = retryDelay(number, deps.config.WEBHOOK_RETRY_BASE_MS);
      const retryAfter = status === 429 ? parseRetryAfter(result.headers['retry-after']) : null;
      if (retryAfter !== null && retryAfter > wait) wait = retryAfter;
      nextAttemptAt = new Date(Date.now() + wait);
    }
  } else {
    outcome = 'rejected';
    state = 'failed';
    finalReason =
      status === 401
        ? 'receiver answered 401 (secret mismatch); not retried'
        : `receiver answered ${status}; not retried (only 429, 5xx, timeouts and connection errors are)`;
  }

  const attempt: DeliveryAttempt = { number, at: now, statusCode: status, durationMs: result.durationMs, error: result.error, outcome };
  await deliveryStore(deps.db).recordAttempt(delivery.id, attempt, { state, nextAttemptAt, finalReason });
  deps.logger.debug({ deliveryId: delivery.id, attempt: number, status, error: result.error, state }, 'webhook attempt');
  return { state, nextAttemptAt };
}

async function scheduleRetry(deps: Deps, deliveryId: string, at: Date): Promise<void> {
  await deps.jobs.enqueueUnique(RETRY_JOB, { deliveryId }, 'deliveryId', { at });
}

/**
 * The workspace's dispatcher: makes the first attempts of its `pending` deliveries one at a time, oldest
 * event first. Only the lease holder dispatches. A caller that finds the lease taken gets `busyUntil`:
 * the holder re-checks for new deliveries after releasing, and if it died the lease runs out then.
 * `touch` keeps the holder's job lock alive.
 */
export async function dispatchWorkspace(deps: Deps, workspaceId: string, touch: () => Promise<void>): Promise<{ attempted: number; busyUntil: Date | null }> {
  const leases = leaseStore(deps.db);
  const store = deliveryStore(deps.db);
  const holder = randomBytes(8).toString('hex');
  const ttl = leaseTtl(deps);
  let attempted = 0;
  if (!(await leases.acquire(workspaceId, holder, ttl))) return { attempted, busyUntil: await leases.until(workspaceId) };
  let renewedAt = Date.now();
  for (;;) {
    // A batch at a time: one query per 100 deliveries keeps a burst linear on engines that sort in memory.
    const batch = await store.pending(workspaceId, 100);
    if (batch.length === 0) {
      await leases.release(workspaceId, holder);
      // An event stored after the query above and before the release found the lease taken: look again.
      if ((await store.pending(workspaceId, 1)).length === 0) return { attempted, busyUntil: null };
      if (!(await leases.acquire(workspaceId, holder, ttl))) return { attempted, busyUntil: null };
      continue;
    }
    for (const next of batch) {
      if (Date.now() - renewedAt > 1_000) {
        if (!(await leases.renew(workspaceId, holder, ttl))) return { attempted, busyUntil: null };
        await touch();
        renewedAt = Date.now();
      }
      const result = await attemptDelivery(deps, next);
      attempted += 1;
      if (result.state === 'scheduled' && result.nextAttemptAt) await scheduleRetry(deps, next.id, result.nextAttemptAt);
    }
  }
}

/** A retry job's run. Returns when the same job should run again, or null when the delivery is settled. */
export async function retryDelivery(deps: Deps, deliveryId: string): Promise<Date | null> {
  const delivery = await deliveryStore(deps.db).byId(deliveryId);
  if (!delivery || delivery.state !== 'scheduled') return null;
  if (delivery.nextAttemptAt && delivery.nextAttemptAt.getTime() > Date.now() + 50) return delivery.nextAttemptAt;
  const result = await attemptDelivery(deps, delivery);
  return result.state === 'scheduled' ? result.nextAttemptAt : null;
}

/**
 * A new delivery of the same event (same `Webhook-Id`, so receivers can de-duplicate) to the workspace's
 * current webhook URL, attempted at once with a fresh budget of attempts.
 */
export async function redeliver(deps: Deps, workspaceId: string, deliveryId: string): Promise<Delivery> {
  const store = deliveryStore(deps.db);
  const original = await store.inWorkspace(workspaceId, deliveryId);
  if (!original) throw fail('delivery_not_found');
  const workspace = await findWorkspace(deps, workspaceId);
  const url = workspace?.webhookUrl ?? original.url;
  const now = new Date();
  const copy = await store.create(workspaceId, {
    event: original.event,
    webhookId: original.webhookId,
    payload: original.payload,
    url,
    state: 'scheduled',
    nextAttemptAt: now,
    redeliveryOf: original.id,
  });
  await scheduleRetry(deps, copy.id, now);
  return copy;
}

/** On a worker start: deliveries a previous run left behind get their jobs again (idempotent). */
export async function recoverDeliveries(deps: Deps): Promise<number> {
  const unfinished = await deliveryStore(deps.db).unfinished();
  const workspaces = new Set<string>();
  for (const delivery of unfinished) {
    if (delivery.state === 'pending') workspaces.add(delivery.workspaceId);
    else await deps.jobs.enqueueUnique(RETRY_JOB, { deliveryId: delivery.id }, 'deliveryId', { insertOnly: true, at: delivery.nextAttemptAt ?? new Date() });
  }
  for (const workspaceId of workspaces) await deps.jobs.enqueueUnique(DISPATCH_JOB, { workspaceId }, 'workspaceId');
  return unfinished.length;
}

/** The URL as the admin API shows it: the secret never leaves the server again. */
export function maskSecret(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.searchParams.has('secret')) parsed.searchParams.set('secret', '***');
    return parsed.toString();
  } catch {
    return url;
  }
}

export function toAdminDelivery(delivery: Delivery) {
  return {
    id: delivery.id,
    event: delivery.event,
    webhookId: delivery.webhookId,
    url: maskSecret(delivery.url),
    state: delivery.state,
    finalReason: delivery.finalReason,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    attempts: delivery.attempts.map((a) => ({ number: a.number, at: a.at.toISOString(), statusCode: a.statusCode, durationMs: a.durationMs, error: a.error, outcome: a.outcome })),
    payload: delivery.payload,
    redeliveryOf: delivery.redeliveryOf,
    createdAt: delivery.createdAt.toISOString(),
  };
}

export async function listDeliveries(deps: Deps, workspaceId: string, options: { limit: number; before?: string }) {
  const items = await deliveryStore(deps.db).list(workspaceId, { limit: options.limit + 1, before: options.before });
  const page = items.slice(0, options.limit);
  return { items: page.map(toAdminDelivery), nextBefore: items.length > options.limit ? page[page.length - 1].id : null };
}
