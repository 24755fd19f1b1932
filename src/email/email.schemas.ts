import { z } from 'zod';

export const emailSchema = z
  .object({
    id: z.string(),
    to: z.string(),
    subject: z.string(),
    state: z.enum(['queued', 'sent', 'unsent', 'failed']),
    attempts: z.number().int().describe('Send attempts made so far.'),
    lastError: z.string().nullable().describe('Why the last attempt failed (SMTP answer or connection error).'),
    nextAttemptAt: z.string().nullable().describe('When a `queued` mail is tried again after a failure.'),
    sentAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'OutboxEmail' });

export const emailListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  before: z
    .string()
    .regex(/^[0-9a-f]{24}$/i, 'must be an e-mail id')
    .optional(),
});

export const emailPageSchema = z.object({ items: z.array(emailSchema), nextBefore: z.string().nullable() });

/**
 * The outbox's `:wid`. Declared here, not taken from the workspaces domain: the account mails of `auth/`
 * and the invitations of `workspaces/` queue through this domain, so it imports neither.
 */
export const workspaceIdParams = z.object({ wid: z.string() });
