import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import { inboxQuery, inboxSchema } from './inbox.schemas.js';
import { visitorInbox } from './inbox.service.js';

export const inboxRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/inbox',
    summary: 'Everything visitors sent, newest first',
    description: [
      "The team app's inbox: chats, form submissions and booking requests in one list, newest first by `at` (a chat's last activity, a submission's or a request's creation). Each item names its `kind` and carries the record in the shape of its own admin list (`GET .../conversations`, `.../submissions`, `.../appointments`).",
      '`kind`, `state` and `q` filter as their descriptions say; `limit` (1 to 100, default 50) asks for the newest that many, and `more` says whether older ones match too. Any member (owner, editor or agent) may read it.',
    ].join('\n\n'),
    tags: ['Inbox'],
    auth: 'member',
    params: workspaceIdParams,
    query: inboxQuery,
    responses: {
      200: { description: 'The newest items.', schema: inboxSchema },
      400: 'An unknown kind or state, an empty or too long search, or a limit out of bounds (field-level issues).',
      404: 'Not a member, or no such workspace.',
    },
    handle: async ({ deps, workspace, query }) => ({ body: await visitorInbox(deps, workspace, query) }),
  }),
];
