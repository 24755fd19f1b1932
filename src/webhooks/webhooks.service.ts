import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import type { Deps } from '../deps.js';
import { isContentEvent, type DomainEvent } from '../events/events.js';
import { fail } from '../shared/errors.js';
import { deliveryStore, newDeliveryId } from './webhooks.model.js';
import type { Delivery, DeliveryAttempt, DeliveryState } from './delivery.js';
import { parseTarget, postJson, type ParsedTarget } from './webhooks.target.js';
import { endpointTarget, getEndpoint, recordEndpointOutcome, type WebhookEndpoint } from './endpoints.service.js';

export const DISPATCH_JOB = 'webhooks.dispatch';
export const RETRY_JOB = 'webhooks.retry';
export const PRUNE_JOB = 'webhooks.prune';
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
export function payloadOf(event: DomainEvent): Record<string, unknown> {
  if (!isContentEvent(event)) return { event: event.event, workspaceId: event.workspaceId, ...event.data };
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

/** What a registered endpoint receives: `{type, id, timestamp, workspaceId, data}` (see the OpenAPI `webhooks`). */
export function envelopeOf(event: DomainEvent, webhookId: string): Record<string, unknown> {
  const { event: type, workspaceId, ...data } = payloadOf(event);
  return { type, id: webhookId, timestamp: event.at, workspaceId, data };
}

/**
 * Standard Webhooks signature: `v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>`, keyed with the
 * URL's `secret` parameter (its UTF-8 bytes; a `whsec_` secret is base64-decoded as the standard does).
 */
export function signature(secret: string, webhookId: string, timestamp: number, body: string): string {
  return signatureWith(signingKey(secret), webhookId, timestamp, body);
}

/** `signature` with the secret's key imported already: a burst signs thousands of deliveries with the same few secrets. */
export function signatureWith(key: KeyObject, webhookId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;
}

function signingKey(secret: string): KeyObject {
  return createSecretKey(standardSecretBytes(secret) ?? Buffer.from(secret, 'utf8'));
}

/**
 * The key bytes of a Standard Webhooks secret: `whsec_` and the canonical base64 of at least 16 bytes (as
 * endpoints are minted). Anything else is keyed by its own text: `whsec_`, `whsec_!!!` or `whsec_a` decode
 * to no bytes at all, and an empty key would let anyone forge the signature.
 */
function standardSecretBytes(secret: string): Buffer | undefined {
  if (!secret.startsWith('whsec_')) return undefined;
  const encoded = secret.slice('whsec_'.length);
  const bytes = Buffer.from(encoded, 'base64');
  return bytes.length >= 16 && bytes.toString('base64') === encoded ? bytes : undefined;
}

/** A target as delivery records keep it: masked for display, sealed for sending. */
export interface StoredTarget {
  url: string;
  sealedUrl: string;
}

/**
 * Sealing costs a cipher run: a group of records to one URL shares one `StoredTarget` (the same
 * ciphertext in several records reveals only that they go to the same URL, which `url` shows anyway).
 */
export function storedTarget(deps: Deps, url: string): StoredTarget {
  return { url: maskSecret(url), sealedUrl: deps.secretBox.seal(url) };
}

/** A new delivery record, its target stored masked for display and sealed for sending. */
export function newDelivery(
  deps: Deps,
  workspaceId: string,
  fields: {
    event: string;
    webhookId: string;
    payload: Record<string, unknown>;
    url: string | StoredTarget;
    state: DeliveryState;
    nextAttemptAt?: Date;
    redeliveryOf?: string;
    endpointId?: string | null;
  },
): Delivery {
  const now = deps.clock.now();
  const target = typeof fields.url === 'string' ? storedTarget(deps, fields.url) : fields.url;
  return {
    id: newDeliveryId(),
    workspaceId,
    event: fields.event,
    webhookId: fields.webhookId,
    payload: fields.payload,
    url: target.url,
    sealedUrl: target.sealedUrl,
    state: fields.state,
    attempts: [],
    nextAttemptAt: fields.nextAttemptAt ?? null,
    finalReason: null,
    redeliveryOf: fields.redeliveryOf ?? null,
    endpointId: fields.endpointId ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The URL to POST to (with its secret); records of earlier versions kept it in `url`. */
function targetOf(deps: Deps, delivery: Delivery): string {
  return delivery.sealedUrl ? deps.secretBox.open(delivery.sealedUrl) : delivery.url;
}

/** What a dispatcher keeps, at most, of each kind: it sees few distinct targets and secrets. */
const OPENED_TARGETS_MAX = 64;
const PARSED_TARGETS_MAX = 256;
const SIGNING_KEYS_MAX = 256;

/** A target ready to post to; no `signingKey`: its URL has no secret and deliveries go unsigned. */
export interface OpenedTarget {
  target: ParsedTarget;
  signingKey: KeyObject | null;
}

/**
 * The targets a dispatcher has opened. The spec URL's by sealed value: the records of a group share one
 * (see `storedTarget`), so a burst opens each URL once instead of once per delivery. Each URL is parsed
 * and each secret's HMAC key imported once too: a registered endpoint's URL and secret are read anew for
 * every delivery (a rotation applies at once), but they are the same few.
 */
export class OpenedTargets {
  private readonly opened = new Map<string, OpenedTarget>();
  private readonly parsed = new Map<string, ParsedTarget>();
  private readonly signingKeys = new Map<string, KeyObject>();

  constructor(private readonly deps: Deps) {}

  /** The spec URL the delivery was recorded with. */
  of(delivery: Delivery): OpenedTarget {
    return kept(this.opened, OPENED_TARGETS_MAX, delivery.sealedUrl ?? delivery.url, () => {
      const url = targetOf(this.deps, delivery);
      return this.to(url, new URL(url).searchParams.get('secret'));
    });
  }

  /** A URL and secret as read now (a registered endpoint's). */
  to(url: string, secret: string | null): OpenedTarget {
    return {
      target: kept(this.parsed, PARSED_TARGETS_MAX, url, () => parseTarget(url)),
      signingKey: secret ? kept(this.signingKeys, SIGNING_KEYS_MAX, secret, () => signingKey(secret)) : null,
    };
  }
}

/** `cache`'s value for `key`, made on the first ask; a full cache starts over rather than track which entry is oldest. */
function kept<V>(cache: Map<string, V>, max: number, key: string, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= max) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/**
 * The spec's payload with `at` (the time of sending) as its last field, added to the stored payload's JSON
 * text: a copy of the payload object with one more key costs a burst more than the whole JSON text.
 */
function withAt(payloadJson: string, now: Date): string {
  return `${payloadJson.slice(0, -1)}${payloadJson === '{}' ? '' : ','}"at":"${now.toISOString()}"}`;
}

export interface AttemptResult {
  attempt: DeliveryAttempt;
  state: DeliveryState;
  nextAttemptAt: Date | null;
  finalReason: string | null;
}

/** One attempt: check the target, send, classify. Nothing is written: the caller records it. */
export async function sendAttempt(deps: Deps, delivery: Delivery, targets: OpenedTargets = new OpenedTargets(deps)): Promise<AttemptResult> {
  const number = delivery.attempts.length + 1;
  const now = deps.clock.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  let body: string;
  let opened: OpenedTarget;
  let endpoint: WebhookEndpoint | null = null;
  if (delivery.endpointId) {
    // A registered endpoint: its current URL and secret (a rotation applies to retries too); the envelope as stored.
    const current = await endpointTarget(deps, delivery.workspaceId, delivery.endpointId);
    if ('refusal' in current) return notSentTo(now, number, current.refusal);
    endpoint = current.endpoint;
    opened = targets.to(current.url, current.secret);
    body = JSON.stringify(delivery.payload);
  } else {
    body = withAt(JSON.stringify(delivery.payload), now);
    opened = targets.of(delivery);
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'Webhook-Id': delivery.webhookId,
    'Webhook-Timestamp': String(timestamp),
  };
  if (opened.signingKey) headers['Webhook-Signature'] = signatureWith(opened.signingKey, delivery.webhookId, timestamp, body);

  const result = await postJson(opened.target, body, headers, { timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS, allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS });
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
  if (endpoint) {
    await recordEndpointOutcome(deps, endpoint, outcome === 'delivered').catch((error: unknown) =>
      deps.logger.error({ err: error, endpointId: endpoint.id }, 'webhook endpoint health not recorded'),
    );
  }
  // `url` is the masked one: the secret never reaches the logs.
  deps.logger.debug({ deliveryId: delivery.id, url: delivery.url, attempt: number, status, error: result.error, state }, 'webhook attempt');
  return { attempt, state, nextAttemptAt, finalReason };
}

/** An attempt that could not even be made (an unreadable target): final, so it is not tried forever. */
export function notSent(deps: Deps, delivery: Delivery, error: unknown): AttemptResult {
  return notSentTo(deps.clock.now(), delivery.attempts.length + 1, `not sent: ${error instanceof Error ? error.message : String(error)}`);
}

/** An attempt not made: the endpoint is gone or disabled. Final. */
function notSentTo(now: Date, number: number, reason: string): AttemptResult {
  return { attempt: { number, at: now, statusCode: null, durationMs: 0, error: reason, outcome: 'refused' }, state: 'failed', nextAttemptAt: null, finalReason: reason };
}

/** The workspace's retry dispatcher runs no later than `at` (see `webhooks.retries.ts`). */
export async function scheduleRetry(deps: Deps, workspaceId: string, at: Date): Promise<void> {
  await deps.jobs.enqueueNoLaterThan(RETRY_JOB, { workspaceId }, 'workspaceId', at);
}

/**
 * A new delivery of the same event (same `Webhook-Id`, so receivers can de-duplicate) to the workspace's
 * current webhook URL, attempted at once with a fresh budget of attempts.
 */
export async function redeliver(deps: Deps, workspaceId: string, deliveryId: string, endpointId?: string): Promise<Delivery> {
  const store = deliveryStore(deps.db);
  const original = await store.inWorkspace(workspaceId, deliveryId);
  if (!original || (endpointId !== undefined && original.endpointId !== endpointId)) throw fail('delivery_not_found');
  // A registered endpoint's delivery goes to that endpoint as it is now (its URL, its secret).
  const url = original.endpointId ? (await getEndpoint(deps, workspaceId, original.endpointId)).url : ((await findWorkspace(deps, workspaceId))?.webhookUrl ?? targetOf(deps, original));
  const now = new Date();
  const copy = newDelivery(deps, workspaceId, {
    event: original.event,
    webhookId: original.webhookId,
    payload: original.payload,
    url,
    state: 'scheduled',
    nextAttemptAt: now,
    redeliveryOf: original.id,
    endpointId: original.endpointId,
  });
  await store.create(copy);
  await scheduleRetry(deps, workspaceId, now);
  return copy;
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
    endpointId: delivery.endpointId,
    createdAt: delivery.createdAt.toISOString(),
  };
}

export async function listDeliveries(deps: Deps, workspaceId: string, options: { limit: number; before?: string; endpointId?: string }) {
  const items = await deliveryStore(deps.db).list(workspaceId, { limit: options.limit + 1, before: options.before, endpointId: options.endpointId });
  const page = items.slice(0, options.limit);
  return { items: page.map(toAdminDelivery), nextBefore: items.length > options.limit ? page[page.length - 1].id : null };
}
