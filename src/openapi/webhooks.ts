import type { SchemaCatalog } from './json-schema.js';
import type { ZodType } from 'zod';

/** One outgoing webhook request: its name (the event type), what it is and its JSON body. */
export interface WebhookDoc {
  name: string;
  summary: string;
  description: string;
  schema: ZodType;
}

const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: 'The event id (`msg_...`): the same on every retry and redelivery; de-duplicate on it.' },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt; reject old ones to stop replays.' },
  { name: 'webhook-signature', description: '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the endpoint secret (Standard Webhooks).' },
];

/** OpenAPI 3.1 `webhooks`: one POST per event type. */
export type WebhookSection = Record<string, { post: Record<string, unknown> }>;

export function webhooksOf(docs: WebhookDoc[], catalog: SchemaCatalog): WebhookSection {
  const webhooks: WebhookSection = {};
  for (const doc of docs) {
    webhooks[doc.name] = {
      post: {
        operationId: `webhook${camel(doc.name)}`,
        summary: doc.summary,
        description: doc.description,
        tags: ['Webhook events'],
        parameters: WEBHOOK_HEADERS.map((header) => ({ ...header, in: 'header', required: true, schema: { type: 'string' } })),
        requestBody: { required: true, content: { 'application/json': { schema: catalog.convert(doc.schema, 'output', `Webhook${camel(doc.name)}`) } } },
        responses: {
          '200': { description: 'Any 2xx acknowledges the event.' },
          '429': { description: 'Retried with backoff (a `Retry-After` is honoured).' },
          '500': { description: 'Any 5xx, a timeout or a connection error is retried with backoff, 6 attempts in all; other statuses are final.' },
        },
      },
    };
  }
  return webhooks;
}

/** `appointment.requested` -> `AppointmentRequested`. */
const camel = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
