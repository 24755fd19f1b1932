import { z } from 'zod';
import { PERSON_KEYS } from '../shared/person-keys.js';
import { adminConversationSchema } from '../livechat/livechat.schemas.js';
import { staffAppointmentSchema } from '../appointments/appointments.schemas.js';
import { submissionSchema } from '../submissions/submissions.schemas.js';

/**
 * Each key is bounded like the widest field it is compared with: `externalId` as the visitor identity (1-128),
 * `email` as a submission's (a valid address of at most 320; chats and bookings keep at most 200) and
 * `visitorSessionId` as the chat start and the booking request (1-120).
 */
export const personQuery = z
  .object({
    externalId: z.string().min(1).max(128).optional().describe("A verified identity's `externalId` (1-128 characters)."),
    email: z.email().max(320).optional().describe('An e-mail address (at most 320 characters), compared whole and in any case.'),
    visitorSessionId: z.string().min(1).max(120).optional().describe("The widget's `visitorSessionId` (1-120 characters)."),
  })
  .refine((query) => PERSON_KEYS.some((key) => query[key] !== undefined), { message: 'give at least one of externalId, email and visitorSessionId' });

const matchedBySchema = z
  .array(z.enum(PERSON_KEYS))
  .describe('The asked keys this item carries (at least one): `externalId` only from a verified identity; `email` in any case.');

export const personTimelineSchema = z
  .object({
    conversations: z.array(adminConversationSchema.extend({ matchedBy: matchedBySchema }).meta({ id: 'PersonConversation' })),
    appointments: z.array(staffAppointmentSchema.extend({ matchedBy: matchedBySchema }).meta({ id: 'PersonAppointment' })),
    submissions: z.array(submissionSchema.extend({ matchedBy: matchedBySchema }).meta({ id: 'PersonSubmission' })),
  })
  .meta({ id: 'PersonTimeline' });
