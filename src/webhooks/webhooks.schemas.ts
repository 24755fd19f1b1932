import { z } from 'zod';

/** `before` of the list: a delivery id (the previous page's `nextBefore`). */
const objectId = z.string().regex(/^[0-9a-f]{24}$/i, 'must be a delivery id');

const attemptSchema = z.object({
  number: z.number().int().describe('1 to 6.'),
  at: z.string(),
  statusCode: z.number().int().nullable().describe('The receiver\'s HTTP status; null when no answer came.'),
  durationMs: z.number().int(),
  error: z.string().nullable().describe('Timeout, connection error or refused target, when no answer came.'),
  outcome: z.enum(['delivered', 'retry', 'rejected', 'exhausted', 'refused']),
});

export const deliverySchema = z
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
    endpointId: z.string().nullable().describe('The registered endpoint it went to; null for the workspace\'s `webhookUrl`.'),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryParams = z.object({ wid: z.string(), did: z.string() });

export const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(50), before: objectId.optional() });

export const deliveriesPageSchema = z.object({ items: z.array(deliverySchema), nextBefore: z.string().nullable() });
