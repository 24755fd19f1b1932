import { z } from 'zod';
import { pageInfoSchema } from '../shared/paging.js';
import { jsonObjectSchema } from '../workspaces/workspaces.schemas.js';

/** The spec's bounds, inclusive: the limit passes, limit + 1 fails with an issue on that field. */
export const submissionBody = z.object({
  name: z
    .string()
    .min(1)
    .max(200)
    .refine((v) => v.length === 0 || v.trim().length > 0, { message: 'must not be blank' }),
  email: z.email().max(320),
  message: z
    .string()
    .min(1)
    .max(10_000)
    .refine((v) => v.length === 0 || v.trim().length > 0, { message: 'must not be blank' }),
  phone: z.string().max(40).optional(),
  subject: z.string().max(200).optional(),
  source: z.string().max(500).optional(),
  metadata: jsonObjectSchema.optional(),
});

export const submissionCreatedSchema = z.object({ id: z.string(), createdAt: z.string() }).meta({ id: 'SubmissionCreated' });

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
  })
  .meta({ id: 'Submission' });

const positiveIntParam = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')
  .transform(Number);

export const inboxQuery = z.object({ page: positiveIntParam.optional(), limit: positiveIntParam.optional() });

export const inboxSchema = z.object({
  items: z.array(submissionSchema),
  pageInfo: pageInfoSchema,
});
