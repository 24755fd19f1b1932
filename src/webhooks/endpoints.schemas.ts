import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { EVENT_NAMES } from '../events/events.js';
import { deliveriesQuery } from './webhooks.schemas.js';

/** Registered endpoints a workspace may have at once. */
export const MAX_ENDPOINTS = 20;

const eventList = z
  .array(z.union([z.enum(EVENT_NAMES), z.literal('*')]))
  .min(1)
  .max(EVENT_NAMES.length)
  .refine((events) => !events.includes('*') || events.length === 1, 'use ["*"] alone for every event')
  .refine((events) => new Set(events).size === events.length, 'lists an event twice')
  .describe(`Event names, or \`["*"]\` for every event (present and future). Known names: ${EVENT_NAMES.map((name) => `\`${name}\``).join(', ')}.`);

const url = z.url({ protocol: /^https?$/ }).max(2000).describe('An absolute http(s) URL with no credentials; it must not resolve to a loopback, private, link-local or metadata address (unless the server allows private targets).');

export const createEndpointBody = z.object({
  url,
  events: eventList,
  description: inputText().trim().max(500).nullable().optional(),
});

export const patchEndpointBody = z.object({
  url: url.optional(),
  events: eventList.optional(),
  description: inputText().trim().max(500).nullable().optional(),
  enabled: z.boolean().optional().describe('`false` disables the endpoint (nothing is sent to it); `true` enables it again and forgets its failing period.'),
});

export const endpointParams = z.object({ wid: z.string(), eid: z.string() });
export const endpointDeliveryParams = z.object({ wid: z.string(), eid: z.string(), did: z.string() });
export const endpointDeliveriesQuery = deliveriesQuery;

export const endpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    failingSince: z.string().nullable().describe('Since when every attempt has failed (null after a success).'),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable().describe('Set when the endpoint was disabled automatically after failing for `WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS`.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const endpointWithSecretSchema = endpointSchema
  .extend({ secret: z.string().describe('The signing secret (`whsec_<base64>`): shown only in this answer.') })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const endpointListSchema = z.object({ items: z.array(endpointSchema) });
