import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import { personQuery, personTimelineSchema } from './people.schemas.js';
import { PERSON_TIMELINE_LIMIT, personTimeline } from './people.service.js';

export const peopleRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/people',
    summary: "A person's conversations, appointments and submissions",
    description: [
      "What the workspace knows about one person, for the team app's side panel: the records carrying ANY of the given keys (at least one of `externalId`, `email`, `visitorSessionId`; none is a 400).",
      '`externalId` links conversations and appointments of a verified identity only. `email` is compared whole and in any case with the e-mail of a conversation (from a verified identity or typed by the visitor: `visitor.verified` tells which), of an appointment and of a submission. `visitorSessionId` links conversations and appointments made from that widget session. Submissions carry only an e-mail.',
      `Each list is newest first (by creation) and holds at most ${PERSON_TIMELINE_LIMIT} items, each in the shape of its admin list (\`GET .../conversations\`, \`GET .../appointments\`, \`GET .../submissions\`) plus \`matchedBy\`, the given keys it carries. Only this workspace's records; any member (owner or agent) may read it.`,
    ].join('\n\n'),
    tags: ['People'],
    auth: 'member',
    params: workspaceIdParams,
    query: personQuery,
    responses: {
      200: { description: "The person's records.", schema: personTimelineSchema },
      400: 'No key given, or a key empty, malformed or over its bound (field-level issues).',
      404: 'Not a member, or no such workspace.',
    },
    handle: async ({ deps, workspace, query }) => ({ body: await personTimeline(deps, workspace.id, query) }),
  }),
];
