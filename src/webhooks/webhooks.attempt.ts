import type { Deps } from '../deps.js';
import type { Delivery, DeliveryAttempt, DeliveryState } from './delivery.js';
import { postJson } from './webhooks.target.js';
import { endpointTarget, recordEndpointOutcome, type WebhookEndpoint } from './endpoints.service.js';
import { signatureWith } from './webhooks.signing.js';
import { withAt } from './webhooks.payload.js';
import { OpenedTargets, type OpenedTarget } from './webhooks.opened.js';
import { MAX_ATTEMPTS, retryAt } from './webhooks.retry-rules.js';

export const USER_AGENT = 'Service-Notifier/1';

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
      nextAttemptAt = retryAt(deps, number, status === 429 ? result.headers['retry-after'] : undefined);
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
