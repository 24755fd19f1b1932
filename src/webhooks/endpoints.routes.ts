import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import {
  createEndpointBody,
  endpointDeliveriesQuery,
  endpointDeliveryParams,
  endpointListSchema,
  endpointParams,
  endpointSchema,
  endpointWithSecretSchema,
  MAX_ENDPOINTS,
  patchEndpointBody,
} from './endpoints.schemas.js';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateSecret, toAdminEndpoint, updateEndpoint } from './endpoints.service.js';
import { deliveriesPageSchema, deliverySchema } from './webhooks.schemas.js';
import { listDeliveries, redeliver, sendTestEvent, TEST_EVENT, toAdminDelivery } from './webhooks.admin.js';

const tags = ['Webhooks'];
const base = '/admin/workspaces/:wid/webhook-endpoints';
const owner = { auth: 'member', role: 'owner' } as const;

const ABOUT =
  'Registered endpoints receive any of the events listed in this document\'s `webhooks` section (content, submissions, appointments, live chat), ' +
  'as `{type, id, timestamp, workspaceId, data}`, signed the Standard Webhooks way with the endpoint\'s own `whsec_` secret (no secret in the URL). ' +
  'They are separate from the workspace\'s `webhookUrl`, which keeps receiving the spec\'s content events only, in the spec\'s format. ' +
  'Deliveries share the workspace\'s pipeline: started in event order per endpoint, the same in-flight window, retries and delivery log. ' +
  'An endpoint whose attempts all fail for `WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS` (default 72) is disabled and the workspace owners are mailed.';

export const endpointsRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: base,
    summary: 'Register a webhook endpoint (owners)',
    description: `${ABOUT} Answers 201 with the signing secret, shown only here (and on rotation). At most ${MAX_ENDPOINTS} endpoints per workspace (409 \`too_many_webhook_endpoints\`). A target that is or resolves to a non-public address is 400 unless \`WEBHOOK_ALLOW_PRIVATE_TARGETS\` is on.`,
    tags,
    ...owner,
    params: workspaceIdParams,
    body: createEndpointBody,
    responses: {
      201: { description: 'The endpoint with its secret.', schema: endpointWithSecretSchema },
      400: 'Invalid URL, unknown event name, or a non-public target.',
      409: 'Too many endpoints (`too_many_webhook_endpoints`).',
    },
    handle: async ({ deps, workspace, body }) => ({ status: 201, body: await createEndpoint(deps, workspace.id, body) }),
  }),
  route({
    method: 'get',
    path: base,
    summary: 'Webhook endpoints (owners)',
    description: `${ABOUT} Oldest first; secrets are never shown again.`,
    tags,
    ...owner,
    params: workspaceIdParams,
    responses: { 200: { description: 'Every endpoint of the workspace.', schema: endpointListSchema } },
    handle: async ({ deps, workspace }) => ({ body: await listEndpoints(deps, workspace.id) }),
  }),
  route({
    method: 'get',
    path: `${base}/:eid`,
    summary: 'One webhook endpoint (owners)',
    description: 'Its settings and health (`failingSince`, `disabledAt`, `disabledReason`); not its secret.',
    tags,
    ...owner,
    params: endpointParams,
    responses: { 200: { description: 'The endpoint.', schema: endpointSchema }, 404: 'No such endpoint in this workspace.' },
    handle: async ({ deps, workspace, params: { eid } }) => ({ body: toAdminEndpoint(await getEndpoint(deps, workspace.id, eid)) }),
  }),
  route({
    method: 'patch',
    path: `${base}/:eid`,
    summary: 'Change a webhook endpoint (owners)',
    description: 'Any of `url`, `events`, `description`, `enabled`. Deliveries not yet attempted go to the endpoint as it is at the attempt; a disabled endpoint receives nothing (its pending deliveries end as `failed`).',
    tags,
    ...owner,
    params: endpointParams,
    body: patchEndpointBody,
    responses: {
      200: { description: 'The endpoint.', schema: endpointSchema },
      400: 'Invalid URL, unknown event name, or a non-public target.',
      404: 'No such endpoint in this workspace.',
    },
    handle: async ({ deps, workspace, params: { eid }, body }) => ({ body: await updateEndpoint(deps, workspace.id, eid, body) }),
  }),
  route({
    method: 'post',
    path: `${base}/:eid/rotate-secret`,
    summary: "Replace a webhook endpoint's signing secret (owners)",
    description: 'The old secret stops at once: every attempt from now on, retries included, is signed with the new one, shown only in this answer.',
    tags,
    ...owner,
    params: endpointParams,
    responses: { 200: { description: 'The endpoint with its new secret.', schema: endpointWithSecretSchema }, 404: 'No such endpoint in this workspace.' },
    handle: async ({ deps, workspace, params: { eid } }) => ({ body: await rotateSecret(deps, workspace.id, eid) }),
  }),
  route({
    method: 'delete',
    path: `${base}/:eid`,
    summary: 'Delete a webhook endpoint (owners)',
    description: 'Its deliveries not yet attempted end as `failed`; its delivery log stays until pruned.',
    tags,
    ...owner,
    params: endpointParams,
    responses: { 204: 'Deleted.', 404: 'No such endpoint in this workspace.' },
    handle: async ({ deps, workspace, params: { eid } }) => {
      await deleteEndpoint(deps, workspace.id, eid);
      return { status: 204 };
    },
  }),
  route({
    method: 'get',
    path: `${base}/:eid/deliveries`,
    summary: "A webhook endpoint's deliveries, newest first (owners)",
    description: 'As `GET /admin/workspaces/{wid}/webhook-deliveries` (same states, attempts and paging), for this endpoint only.',
    tags,
    ...owner,
    params: endpointParams,
    query: endpointDeliveriesQuery,
    responses: { 200: { description: 'One page of deliveries.', schema: deliveriesPageSchema }, 404: 'No such endpoint in this workspace.' },
    handle: async ({ deps, workspace, params: { eid }, query }) => {
      await getEndpoint(deps, workspace.id, eid);
      return { body: await listDeliveries(deps, workspace.id, { ...query, endpointId: eid }) };
    },
  }),
  route({
    method: 'post',
    path: `${base}/:eid/deliveries/:did/redeliver`,
    summary: 'Send an event to a webhook endpoint again (owners)',
    description: 'A new delivery of the same event (same `webhook-id` and payload, `redeliveryOf` set) to the endpoint as it is now, attempted at once with a fresh budget of 6 attempts. Answers 202.',
    tags,
    ...owner,
    params: endpointDeliveryParams,
    responses: { 202: { description: 'The new delivery, scheduled now.', schema: deliverySchema }, 404: 'No such endpoint or delivery in this workspace.' },
    handle: async ({ deps, workspace, params: { eid, did } }) => {
      await getEndpoint(deps, workspace.id, eid);
      return { status: 202, body: toAdminDelivery(await redeliver(deps, workspace.id, did, eid)) };
    },
  }),
  route({
    method: 'post',
    path: `${base}/:eid/test`,
    summary: 'Send a test event to a webhook endpoint (owners)',
    description: `A \`${TEST_EVENT}\` delivery to this endpoint only, whatever its \`events\` filter: \`{type: "${TEST_EVENT}", id, timestamp, workspaceId, data: {endpointId}}\`, signed with its secret, attempted at once with the usual retries and listed in its deliveries. A disabled endpoint is not sent to: the delivery ends \`failed\` (\`the endpoint is disabled; not sent\`). Answers 202 with the delivery.`,
    tags,
    ...owner,
    params: endpointParams,
    responses: { 202: { description: 'The test delivery, scheduled now.', schema: deliverySchema }, 404: 'No such endpoint in this workspace.' },
    handle: async ({ deps, workspace, params: { eid } }) => ({ status: 202, body: toAdminDelivery(await sendTestEvent(deps, workspace.id, eid)) }),
  }),
];
