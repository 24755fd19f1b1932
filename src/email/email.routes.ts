import { z } from 'zod';
import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import { listEmails } from './email.service.js';

const emailSchema = z
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

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  before: z
    .string()
    .regex(/^[0-9a-f]{24}$/i, 'must be an e-mail id')
    .optional(),
});

export const emailRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/emails',
    summary: 'The outgoing mail log',
    description:
      'Newest first. States: `queued` (waiting to be sent, or to be retried after an SMTP failure: `lastError` and `nextAttemptAt` say why and when), ' +
      '`sent`, `unsent` (no SMTP server configured: kept, and sent once a worker with `SMTP_URL` starts), `failed` (rejected by the SMTP server with a 5xx, or 12 attempts used). ' +
      'Mail bodies are not listed. `limit` 1 to 100 (default 50); pass `nextBefore` of a page as `before` for the next one. Members of any role may read it (agents handle appointments).',
    tags: ['E-mail'],
    auth: 'member',
    params: workspaceIdParams,
    query: listQuery,
    responses: {
      200: { description: 'One page of the outbox.', schema: z.object({ items: z.array(emailSchema), nextBefore: z.string().nullable() }) },
      400: 'Invalid `limit` or `before`.',
      404: 'Not a member, or no such workspace.',
    },
    handle: async ({ deps, workspace, query }) => ({ body: await listEmails(deps, workspace.id, query) }),
  }),
];
