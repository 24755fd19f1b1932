import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { pageInfoSchema, totalQuery } from '../shared/paging.js';
import { jsonObjectSchema } from '../workspaces/workspaces.schemas.js';

/** Text of 1 to `max` characters, not only whitespace (an empty one fails on its length alone). */
const nonBlank = (max: number) =>
  inputText()
    .min(1)
    .max(max)
    .refine((v) => v.length === 0 || v.trim().length > 0, { message: 'must not be blank' });

/** The spec's bounds, inclusive: the limit passes, limit + 1 fails with an issue on that field. */
export const submissionBody = z.object({
  name: nonBlank(200),
  email: z.email().max(320),
  message: nonBlank(10_000),
  phone: inputText().max(40).optional(),
  subject: inputText().max(200).optional(),
  source: inputText().max(500).optional(),
  metadata: jsonObjectSchema.optional(),
});

export const submissionCreatedSchema = z.object({ id: z.string(), createdAt: z.string() }).meta({ id: 'SubmissionCreated' });

const handlerSchema = z.object({ userId: z.string(), name: z.string() }).meta({ id: 'SubmissionHandler' });

export const submissionSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    message: z.string(),
    phone: z.string().nullable(),
    subject: z.string().nullable(),
    source: z.string().nullable(),
    metadata: jsonObjectSchema.nullable(),
    createdAt: z.string(),
    handledAt: z.string().nullable().describe('When a member marked it handled or answered it; null while it waits.'),
    handledBy: handlerSchema.nullable(),
  })
  .meta({ id: 'Submission' });

export const replySchema = z
  .object({
    id: z.string(),
    submissionId: z.string(),
    body: z.string(),
    author: handlerSchema,
    to: z.string().describe('The address the answer was mailed to (the sender of the submission).'),
    createdAt: z.string(),
  })
  .meta({ id: 'SubmissionReply' });

export const submissionDetailSchema = submissionSchema.extend({ replies: z.array(replySchema) }).meta({ id: 'SubmissionWithReplies' });

export const submissionParams = z.object({ wid: z.string(), sid: z.string() });

export const handledBody = z.strictObject({ handled: z.boolean() });

export const replyBody = z.strictObject({
  body: nonBlank(10_000),
});

export const submissionSettingsBody = z.strictObject({
  notifyTeam: z.boolean(),
  notificationEmail: z.email().max(320).nullable(),
});

export const submissionSettingsSchema = submissionSettingsBody.meta({ id: 'SubmissionSettings' });

const positiveIntParam = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')
  .transform(Number);

export const inboxQuery = z.object({
  page: positiveIntParam.optional(),
  limit: positiveIntParam.optional(),
  state: z.enum(['open', 'handled']).optional(),
  q: z.string().trim().min(1).max(200).optional(),
  total: totalQuery,
});

export const inboxSchema = z.object({
  items: z.array(submissionSchema),
  pageInfo: pageInfoSchema,
});
