import { randomBytes } from 'node:crypto';
import { webhookEndpointsTag } from '../cache/caches.js';
import type { Deps } from '../deps.js';
import type { DomainEvent } from '../events/events.js';
import { queueEmail } from '../email/email.service.js';
import { render } from '../email/email.templates.js';
import { fail, invalid } from '../shared/errors.js';
import { memberEmails } from '../workspaces/members.service.js';
import { endpointStore, type EndpointPatch, type WebhookEndpoint } from './endpoints.model.js';
import { MAX_ENDPOINTS } from './endpoints.schemas.js';
import { nonPublicTarget } from './webhooks.target.js';

export type { WebhookEndpoint } from './endpoints.model.js';

const HOUR = 60 * 60 * 1000;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

async function checkTarget(deps: Deps, url: string): Promise<void> {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw invalid([{ path: 'url', message: 'must not carry credentials' }]);
  if (deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS) return;
  const refused = await nonPublicTarget(url);
  if (refused) throw invalid([{ path: 'url', message: `target refused: ${refused}` }]);
}

export function toAdminEndpoint(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    failingSince: endpoint.failingSince?.toISOString() ?? null,
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

const changed = (deps: Deps, workspaceId: string) => deps.cache.invalidateWebhookEndpoints(workspaceId);

/** Registers an endpoint; the answer is the only place its secret is ever shown. */
export async function createEndpoint(deps: Deps, workspaceId: string, input: { url: string; events: string[]; description?: string | null }) {
  await checkTarget(deps, input.url);
  const store = endpointStore(deps.db);
  if ((await store.count(workspaceId)) >= MAX_ENDPOINTS) throw fail('too_many_webhook_endpoints', `A workspace may register at most ${MAX_ENDPOINTS} webhook endpoints.`);
  const secret = newSigningSecret();
  const endpoint = await store.create(workspaceId, { url: input.url, events: input.events, description: input.description ?? null, sealedSecret: deps.secretBox.seal(secret) }, deps.clock.now());
  await changed(deps, workspaceId);
  return { ...toAdminEndpoint(endpoint), secret };
}

export async function listEndpoints(deps: Deps, workspaceId: string) {
  return { items: (await endpointStore(deps.db).list(workspaceId)).map(toAdminEndpoint) };
}

export async function getEndpoint(deps: Deps, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await endpointStore(deps.db).byId(workspaceId, id);
  if (!endpoint) throw fail('webhook_endpoint_not_found');
  return endpoint;
}

export async function updateEndpoint(deps: Deps, workspaceId: string, id: string, input: { url?: string; events?: string[]; description?: string | null; enabled?: boolean }) {
  await getEndpoint(deps, workspaceId, id);
  if (input.url !== undefined) await checkTarget(deps, input.url);
  const patch: EndpointPatch = {};
  if (input.url !== undefined) patch.url = input.url;
  if (input.events !== undefined) patch.events = input.events;
  if (input.description !== undefined) patch.description = input.description;
  if (input.enabled !== undefined) {
    patch.enabled = input.enabled;
    // Enabling again starts a new failing period; disabling by hand records no automatic reason.
    Object.assign(patch, input.enabled ? { failingSince: null, disabledAt: null, disabledReason: null } : { disabledAt: deps.clock.now(), disabledReason: null });
  }
  const updated = await endpointStore(deps.db).update(workspaceId, id, patch, deps.clock.now());
  if (!updated) throw fail('webhook_endpoint_not_found');
  await changed(deps, workspaceId);
  return toAdminEndpoint(updated);
}

/** A new secret at once: deliveries attempted from now on (retries included) are signed with it. */
export async function rotateSecret(deps: Deps, workspaceId: string, id: string) {
  const secret = newSigningSecret();
  const updated = await endpointStore(deps.db).update(workspaceId, id, { sealedSecret: deps.secretBox.seal(secret) }, deps.clock.now());
  if (!updated) throw fail('webhook_endpoint_not_found');
  await changed(deps, workspaceId);
  return { ...toAdminEndpoint(updated), secret };
}

export async function deleteEndpoint(deps: Deps, workspaceId: string, id: string): Promise<void> {
  if (!(await endpointStore(deps.db).delete(workspaceId, id))) throw fail('webhook_endpoint_not_found');
  await changed(deps, workspaceId);
}

/** The workspace's endpoints, remembered per node until they change: every event of the workspace reads them. */
export function endpointsOf(deps: Deps, workspaceId: string): Promise<WebhookEndpoint[]> {
  return deps.cache.memo.remember(`webhook-endpoints:${workspaceId}`, () => [webhookEndpointsTag(workspaceId)], () => endpointStore(deps.db).list(workspaceId));
}

/** The enabled endpoints subscribed to this event. */
export async function endpointsFor(deps: Deps, event: DomainEvent): Promise<WebhookEndpoint[]> {
  const endpoints = await endpointsOf(deps, event.workspaceId);
  return endpoints.filter((endpoint) => endpoint.enabled && (endpoint.events.includes('*') || endpoint.events.includes(event.event)));
}

/** Where an endpoint's delivery goes now, and with which secret; a reason instead when it must not be sent. */
export async function endpointTarget(deps: Deps, workspaceId: string, endpointId: string): Promise<{ endpoint: WebhookEndpoint; url: string; secret: string } | { refusal: string }> {
  const endpoint = (await endpointsOf(deps, workspaceId)).find((candidate) => candidate.id === endpointId);
  if (!endpoint) return { refusal: 'the endpoint was deleted; not sent' };
  if (!endpoint.enabled) return { refusal: 'the endpoint is disabled; not sent' };
  return { endpoint, url: endpoint.url, secret: deps.secretBox.open(endpoint.sealedSecret) };
}

/**
 * After each attempt to an endpoint: a success ends its failing period; a failure starts one, or, once
 * it has lasted `WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS`, disables the endpoint and mails the owners (once:
 * only the node whose update disabled it). Writes only when the state changes.
 */
export async function recordEndpointOutcome(deps: Deps, endpoint: WebhookEndpoint, delivered: boolean): Promise<void> {
  const store = endpointStore(deps.db);
  const now = deps.clock.now();
  if (delivered) {
    if (!endpoint.failingSince) return;
    await store.markHealthy(endpoint.id);
  } else if (!endpoint.failingSince) {
    await store.markFailing(endpoint.id, now);
  } else {
    const limitMs = deps.config.WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS * HOUR;
    if (now.getTime() - endpoint.failingSince.getTime() < limitMs) return;
    const reason = `every delivery failed since ${endpoint.failingSince.toISOString()}: disabled automatically`;
    await store.disableIfEnabled(endpoint.id, reason, now);
    if (await store.claimNotice(endpoint.id, endpoint.failingSince, now)) await tellOwners(deps, endpoint, reason);
  }
  await changed(deps, endpoint.workspaceId);
}

async function tellOwners(deps: Deps, endpoint: WebhookEndpoint, reason: string): Promise<void> {
  deps.logger.warn({ workspaceId: endpoint.workspaceId, endpointId: endpoint.id }, 'webhook endpoint disabled after failing');
  const mail = render(
    'A webhook endpoint was disabled',
    'Hello,',
    [
      `The webhook endpoint ${endpoint.url}${endpoint.description ? ` (${endpoint.description})` : ''} was disabled: ${reason}.`,
      'Nothing is sent to it until it is enabled again (PATCH its `enabled` to true). Its delivery log shows the failed attempts.',
    ],
    [],
    [],
  );
  for (const to of await memberEmails(deps, endpoint.workspaceId, 'owner')) await queueEmail(deps, endpoint.workspaceId, { to, ...mail }, { cause: 'team' });
}
