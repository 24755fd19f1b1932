import { route, type RouteDef } from '../http/route.js';
import { emailListQuery, emailPageSchema, workspaceIdParams } from './email.schemas.js';
import { listEmails } from './email.service.js';

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
    query: emailListQuery,
    responses: {
      200: { description: 'One page of the outbox.', schema: emailPageSchema },
      400: 'Invalid `limit` or `before`.',
      404: 'Not a member, or no such workspace.',
    },
    handle: async ({ deps, workspace, query }) => ({ body: await listEmails(deps, workspace.id, query) }),
  }),
];
