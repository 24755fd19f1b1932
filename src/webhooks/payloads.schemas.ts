import { z } from 'zod';
import type { AppointmentData, ConversationData, EventName, MessageData, SubmissionData } from '../events/events.js';

/**
 * What a registered endpoint receives, per event: the envelope `{type, id, timestamp, workspaceId, data}`
 * and each event's `data`. These schemas are the OpenAPI document's `webhooks` section.
 */

const iso = () => z.string().describe('ISO 8601 UTC.');

const postData = z.object({
  postId: z.string(),
  slug: z.string(),
  title: z.string(),
  publishedAt: iso().nullable().describe('ISO 8601 UTC: when the post was (last) published, on `post.unpublished` too.'),
});

const navigationData = z.object({ navigationId: z.string(), key: z.string(), name: z.string() });

const workspaceData = z.object({}).describe('Nothing beyond `workspaceId`: read the workspace again.');

const submissionData = z.object({
  submissionId: z.string(),
  name: z.string(),
  email: z.string(),
  subject: z.string().nullable(),
  message: z.string(),
  phone: z.string().nullable(),
  source: z.string().nullable(),
  createdAt: iso(),
}) satisfies z.ZodType<SubmissionData>;

const appointmentData = z.object({
  appointmentId: z.string(),
  status: z.string().describe('The status after the change: PENDING, CONFIRMED, REJECTED or CANCELLED.'),
  requestedAt: iso(),
  scheduledAt: iso().nullable().describe('The confirmed start (null unless confirmed).'),
  previousScheduledAt: iso().nullable().describe('`appointment.rescheduled` only: the start before the move.'),
  durationMinutes: z.number().int(),
  timezone: z.string(),
  visitorName: z.string(),
  visitorEmail: z.string(),
  declineReason: z.string().nullable().describe('The team\'s reason on `appointment.declined`, the visitor\'s on a cancellation by manage link.'),
  by: z.enum(['visitor', 'team']),
}) satisfies z.ZodType<AppointmentData>;

const conversationData = z.object({
  conversationId: z.string(),
  status: z.enum(['OPEN', 'CLOSED']),
  visitorName: z.string().nullable(),
  visitorEmail: z.string().nullable(),
  pageUrl: z.string().nullable(),
  locale: z.string().nullable(),
  createdAt: iso(),
}) satisfies z.ZodType<ConversationData>;

const messageData = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  sender: z.literal('VISITOR'),
  body: z.string().describe('Empty when the message only carries files.'),
  createdAt: iso(),
  attachments: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        contentType: z.string(),
        size: z.number().int(),
        url: z.string().describe('Signed, unguessable URL of the file (no credential needed: keep it private).'),
        width: z.number().int().optional(),
        height: z.number().int().optional(),
      }),
    )
    .optional()
    .describe('Only on messages that carry files.'),
}) satisfies z.ZodType<MessageData>;

const EVENTS: Record<EventName, { summary: string; data: z.ZodType }> = {
  'post.published': { summary: 'A post is published (first time or after unarchive).', data: postData },
  'post.unpublished': { summary: 'A post is unpublished or deleted.', data: postData },
  'navigation.created': { summary: 'A navigation is created.', data: navigationData },
  'navigation.updated': { summary: "A navigation's name or key changes.", data: navigationData },
  'navigation.deleted': { summary: 'A navigation is removed.', data: navigationData },
  'navigation.items.replaced': { summary: "A navigation's item tree is saved.", data: navigationData },
  'workspace.updated': { summary: "The workspace's settings change.", data: workspaceData },
  'submission.created': { summary: 'A visitor sends a contact form.', data: submissionData },
  'appointment.requested': { summary: 'A visitor requests an appointment.', data: appointmentData },
  'appointment.confirmed': { summary: 'The team confirms a requested appointment.', data: appointmentData },
  'appointment.declined': { summary: 'The team declines a requested appointment.', data: appointmentData },
  'appointment.cancelled': { summary: 'The visitor cancels (a pending request by its cancellation link, a confirmed appointment by its manage link), or the team cancels a confirmed appointment (`by: "team"`).', data: appointmentData },
  'appointment.rescheduled': { summary: 'A confirmed appointment moves to another time (by the team or by the visitor\'s manage link).', data: appointmentData },
  'conversation.created': { summary: 'A visitor starts a new live-chat conversation (not on resume).', data: conversationData },
  'conversation.closed': { summary: 'The team closes a conversation.', data: conversationData },
  'message.created': { summary: "A visitor's live-chat message is stored (the team's messages are not sent).", data: messageData },
};

export interface WebhookEventDoc {
  name: string;
  summary: string;
  description: string;
  schema: z.ZodType;
}

const DESCRIPTION =
  'POSTed as JSON to every enabled registered endpoint (`/admin/workspaces/{wid}/webhook-endpoints`) that subscribed to this event or to `*`. ' +
  'Signed the Standard Webhooks way: headers `webhook-id` (the payload `id`, the same on every retry and redelivery), `webhook-timestamp` (Unix seconds of the attempt) and ' +
  '`webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64-decoded part of the endpoint\'s `whsec_` secret. ' +
  'Answer 2xx to acknowledge; 429, 5xx, timeouts and connection errors are retried (6 attempts), other statuses are final.';

/** One entry per event name, its payload schema with that `type`. */
export function webhookEventDocs(): WebhookEventDoc[] {
  return Object.entries(EVENTS).map(([name, { summary, data }]) => ({
    name,
    summary,
    description: DESCRIPTION,
    schema: z
      .object({
        type: z.literal(name),
        id: z.string().describe('The event id (`msg_...`), equal to the `webhook-id` header.'),
        timestamp: iso().describe('When the event happened.'),
        workspaceId: z.string(),
        data: data,
      })
      .meta({ id: `WebhookEvent_${name.replace(/\./g, '_')}` }),
  }));
}
