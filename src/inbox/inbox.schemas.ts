import { z } from 'zod';
import { adminConversationSchema } from '../livechat/livechat.schemas.js';
import { staffAppointmentSchema } from '../appointments/appointments.schemas.js';
import { submissionSchema } from '../submissions/submissions.schemas.js';

export const INBOX_KINDS = ['chat', 'submission', 'booking'] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

export const inboxQuery = z.object({
  kind: z.enum(INBOX_KINDS).optional().describe('Only this kind; all three without it.'),
  state: z
    .enum(['waiting', 'handled'])
    .optional()
    .describe('`waiting`: OPEN chats, submissions not handled, PENDING booking requests. `handled`: closed chats, handled submissions, answered or cancelled bookings.'),
  q: z.string().trim().min(1).max(200).optional().describe("Case-insensitive part of the visitor's name or e-mail (a submission's subject too), matched literally."),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('The newest this many (1 to 100, default 50); ask for more to see further back.'),
});

const at = z.string().describe('When it last needed the team: a chat\'s last activity, a submission\'s or a booking request\'s creation.');

export const inboxSchema = z
  .object({
    items: z.array(
      z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('chat'), at, conversation: adminConversationSchema }),
        z.object({ kind: z.literal('submission'), at, submission: submissionSchema }),
        z.object({ kind: z.literal('booking'), at, appointment: staffAppointmentSchema }),
      ]),
    ),
    more: z.boolean().describe('Whether older items match too (ask for a larger `limit`).'),
  })
  .meta({ id: 'Inbox' });
