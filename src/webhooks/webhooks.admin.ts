import { randomBytes } from 'node:crypto';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { deliveryStore } from './webhooks.model.js';
import type { Delivery } from './delivery.js';
import { getEndpoint } from './endpoints.service.js';
import { maskSecret, newDelivery, targetOf } from './webhooks.sealing.js';
import { scheduleRetry } from './webhooks.schedule.js';

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
  const now = deps.clock.now();
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

/** The event name of a test delivery: never published on the bus, so no other endpoint receives it. */
export const TEST_EVENT = 'webhook.test';

/**
 * A `webhook.test` delivery to one endpoint, whatever its event filter (its owner asked for it): an envelope
 * like any other (`{type, id, timestamp, workspaceId, data}`), signed with the endpoint's secret, attempted at
 * once with the usual retries, and listed in its delivery log.
 */
export async function sendTestEvent(deps: Deps, workspaceId: string, endpointId: string): Promise<Delivery> {
  const endpoint = await getEndpoint(deps, workspaceId, endpointId);
  const now = deps.clock.now();
  const webhookId = `msg_${randomBytes(16).toString('hex')}`;
  const delivery = newDelivery(deps, workspaceId, {
    event: TEST_EVENT,
    webhookId,
    payload: { type: TEST_EVENT, id: webhookId, timestamp: now.toISOString(), workspaceId, data: { endpointId: endpoint.id } },
    url: endpoint.url,
    state: 'scheduled',
    nextAttemptAt: now,
    endpointId: endpoint.id,
  });
  await deliveryStore(deps.db).create(delivery);
  await scheduleRetry(deps, workspaceId, now);
  return delivery;
}

/** A delivery as the admin API shows it. */
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
