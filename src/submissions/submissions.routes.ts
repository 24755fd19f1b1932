import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import { inboxQuery, inboxSchema, submissionBody, submissionCreatedSchema } from './submissions.schemas.js';
import { inbox, submit } from './submissions.service.js';

export const submissionRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/external/submissions',
    summary: 'Store a contact-form submission',
    description: [
      'Bounds (inclusive): `name` 1-200, `email` a valid address of at most 320, `message` 1-10000, `phone` at most 40 (no format), `subject` at most 200, `source` at most 500. `name` and `message` must not be only whitespace.',
      '`metadata` must be a JSON object; it is stored and shown in the inbox exactly as sent. Values are stored as sent (not trimmed). Each failing field is one issue in the 400 answer.',
    ].join('\n\n'),
    tags: ['External: engagement'],
    auth: 'workspaceKey',
    body: submissionBody,
    responses: {
      201: { description: 'Stored.', schema: submissionCreatedSchema },
      400: 'Missing required field, invalid e-mail or oversize field (field-level issues).',
      401: 'Missing, unknown, revoked or wrong-kind key.',
    },
    handle: async ({ deps, workspace, body }) => {
      const stored = await submit(deps, workspace, body);
      return { status: 201, body: { id: stored.id, createdAt: stored.createdAt.toISOString() } };
    },
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/submissions',
    summary: 'The submissions inbox',
    description: 'Newest first; `page` (default 1) and `limit` (default 50, clamped to 100), positive integers. Agents and owners may read it.',
    tags: ['Submissions'],
    auth: 'member',
    params: workspaceIdParams,
    query: inboxQuery,
    responses: { 200: { description: 'A page of submissions.', schema: inboxSchema }, 400: 'Invalid paging.', 404: 'Not a member, or no such workspace.' },
    handle: async ({ deps, workspace, query }) => ({ body: await inbox(deps, workspace, query) }),
  }),
];
