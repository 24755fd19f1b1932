import { z } from 'zod';
import { route, type RouteDef } from '../http/route.js';
import { listDeliveries, redeliver, toAdminDelivery } from './webhooks.service.js';

const tags = ['Webhooks'];
const objectId = z.string().regex(/^[0-9a-f]{24}$/i, 'must be a delivery id');

const attemptSchema = z.object({
  number: z.number().int().describe('1 to 6.'),
  at: z.string(),
  statusCode: z.number().int().nullable().describe('The receiver\'s HTTP status; null when no answer came.'),
  durationMs: z.number().int(),
  error: z.string().nullable().describe('Timeout, connection error or refused target, when no answer came.'),
  outcome: z.enum(['delivered', 'retry', 'rejected', 'exhausted', 'refused']),
});

const deliverySchema = z
  .object({
    id: z.string(),
    event: z.string(),
    webhookId: z.string().describe('The `Webhook-Id` header: one per event, the same on every retry and redelivery.'),
    url: z.string().describe('The target, with the `secret` parameter masked.'),
    state: z.enum(['pending', 'scheduled', 'delivered', 'failed']),
    finalReason: z.string().nullable().describe('Why the delivery ended as it did (null while unfinished).'),
    nextAttemptAt: z.string().nullable(),
    attempts: z.array(attemptSchema),
    payload: z.record(z.string(), z.unknown()).describe('The payload without `at`, which is the time of each sending.'),
    redeliveryOf: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

const params = z.object({ wid: z.string() });
const deliveryParams = z.object({ wid: z.string(), did: z.string() });

export const webhooksRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/webhook-deliveries',
    summary: 'Webhook deliveries, newest first (owners)',
    description:
      'One delivery per event sent while the workspace had a `webhookUrl` (no URL, no delivery). States: `pending` (first attempt not made yet; ' +
      "first attempts go out in event order per workspace), `scheduled` (a retry is due at `nextAttemptAt`), `delivered` (any 2xx), `failed`. " +
      'Every attempt is listed with status code, duration and error. Retries: 429, 5xx, timeouts and connection errors, at most 6 attempts in all, ' +
      'waits of `WEBHOOK_RETRY_BASE_MS` × 6^(n-1) ±20%, a longer `Retry-After` (seconds or HTTP date, capped at 24 h) wins. Other statuses (3xx, 4xx) are final: ' +
      'redirects are not followed. A target resolving to a loopback, private, link-local or metadata address is refused and final unless `WEBHOOK_ALLOW_PRIVATE_TARGETS` is on. ' +
      '`limit` 1 to 100 (default 50); pass `nextBefore` as `before` for the next page.',
    tags,
    auth: 'member',
    role: 'owner',
    params,
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(50), before: objectId.optional() }),
    responses: {
      200: { description: 'One page of deliveries.', schema: z.object({ items: z.array(deliverySchema), nextBefore: z.string().nullable() }) },
      400: 'Invalid `limit` or `before`.',
      403: 'Agents may not read webhook settings.',
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
      403: 'Agents may not redeliver.',
      404: 'No such delivery in this workspace.',
    },
    handle: async ({ deps, workspace, params: { did } }) => ({ status: 202, body: toAdminDelivery(await redeliver(deps, workspace.id, did)) }),
  }),
];
