import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import { deliveriesPageSchema, deliveriesQuery, deliveryParams, deliverySchema } from './webhooks.schemas.js';
import { listDeliveries, redeliver, toAdminDelivery } from './webhooks.admin.js';

const tags = ['Webhooks'];

export const webhooksRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/webhook-deliveries',
    summary: 'Webhook deliveries, newest first (owners)',
    description:
      'One delivery per event sent while the workspace had a `webhookUrl` (no URL, no delivery), stored before the publishing request answers, ' +
      'plus one per event and registered endpoint subscribed to it (`endpointId` set; see `/webhook-endpoints`). ' +
      'States: `pending` (first attempt not made yet), `scheduled` (a retry is due at `nextAttemptAt`), `delivered` (any 2xx), `failed`. ' +
      'Ordering: first attempts of one workspace are *started* in event order, with up to `WEBHOOK_CONCURRENCY_PER_WORKSPACE` (default 16) in flight at once, ' +
      'so they may *arrive* out of order within that window; a later event never starts before an earlier one, and never waits for an earlier one\'s retries. ' +
      'After a worker dies mid-attempt, the deliveries it had in flight are sent again (same `Webhook-Id`). ' +
      'The target `url` is shown with its `secret` parameter masked (`secret=***`); the real secret is only used to sign and send. ' +
      'Finished deliveries are pruned after `WEBHOOK_DELIVERY_RETENTION_DAYS` (default 30) and beyond the newest `WEBHOOK_DELIVERY_MAX_PER_WORKSPACE` (default 10000). ' +
      'Every attempt is listed with status code, duration and error. Retries: 429, 5xx, timeouts and connection errors, at most 6 attempts in all, ' +
      'waits of `WEBHOOK_RETRY_BASE_MS` × 6^(n-1) ±20%, a longer `Retry-After` (seconds or HTTP date, capped at 24 h) wins. Other statuses (3xx, 4xx) are final: ' +
      'redirects are not followed. A target resolving to a loopback, private, link-local or metadata address is refused and final unless `WEBHOOK_ALLOW_PRIVATE_TARGETS` is on. ' +
      '`limit` 1 to 100 (default 50); pass `nextBefore` as `before` for the next page.',
    tags,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    query: deliveriesQuery,
    responses: {
      200: { description: 'One page of deliveries.', schema: deliveriesPageSchema },
      400: 'Invalid `limit` or `before`.',
      403: 'Agents and editors may not read webhook settings.',
      404: 'Not a member, or no such workspace.',
    },
    handle: async ({ deps, workspace, query }) => ({ body: await listDeliveries(deps, workspace.id, query) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/webhook-deliveries/:did/redeliver',
    summary: 'Send an event again (owners)',
    description:
      'Creates a new delivery of the same event (same `Webhook-Id` and payload, `redeliveryOf` set) to the workspace\'s current `webhookUrl` ' +
      '(the original URL when none is set now) and attempts it at once, with a fresh budget of 6 attempts. Works on any delivery, whatever its state. Answers 202 with the new delivery.',
    tags,
    auth: 'member',
    role: 'owner',
    params: deliveryParams,
    responses: {
      202: { description: 'The new delivery, scheduled now.', schema: deliverySchema },
      403: 'Agents and editors may not redeliver.',
      404: 'No such delivery in this workspace.',
    },
    handle: async ({ deps, workspace, params: { did } }) => ({ status: 202, body: toAdminDelivery(await redeliver(deps, workspace.id, did)) }),
  }),
];
