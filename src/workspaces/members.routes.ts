import { route } from '../http/route.js';
import { addMember, changeMemberRole, listMembers, removeMember, type Member } from './members.service.js';
import { addMemberBody, workspaceIdParams } from './workspaces.schemas.js';
import { memberListSchema, memberParams, memberSchema, patchMemberBody } from './members.schemas.js';

const tags = ['Team'];

const LAST_OWNER = 'A workspace keeps at least one owner: demoting or removing its last owner answers 409 `last_owner` (decided under the workspace\'s lock, so two owners demoting each other at once leave one).';
const AT_ONCE = 'Takes effect at once on every node.';

const toMemberBody = (member: Member) => ({ ...member, joinedAt: member.joinedAt.toISOString() });

export const memberRoutes = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/members',
    summary: 'The team',
    description: 'Every member with their role, oldest first. Operators see the team too; they are listed only when they are members.',
    tags,
    auth: 'member',
    params: workspaceIdParams,
    responses: { 200: { description: 'The members.', schema: memberListSchema } },
    handle: async ({ deps, workspace }) => ({ body: { items: (await listMembers(deps, workspace.id)).map(toMemberBody) } }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/members',
    summary: 'Add or change a member (owners and operators)',
    description:
      'Operators may add any user. An owner may add only a user who already shares a workspace with them; any other id answers the same 404 `user_not_found` as an unknown one ' +
      '(to add anyone else, invite them: `POST /admin/workspaces/:wid/invitations`). For a member already in the team this sets the role. ' +
      `${LAST_OWNER} ${AT_ONCE}`,
    tags,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    body: addMemberBody,
    responses: { 201: { description: 'Membership stored.', schema: addMemberBody }, 400: 'Invalid body.', 404: 'No such user (`user_not_found`).', 409: 'The last owner would be demoted (`last_owner`).' },
    handle: async ({ deps, user, workspace, body }) => {
      await addMember(deps, user, workspace.id, body.userId, body.role);
      return { status: 201, body };
    },
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/members/:uid',
    summary: "Change a member's role (owners)",
    description: `${LAST_OWNER} ${AT_ONCE}`,
    tags,
    auth: 'member',
    role: 'owner',
    params: memberParams,
    body: patchMemberBody,
    responses: {
      200: { description: 'The member.', schema: memberSchema },
      400: 'Invalid body.',
      404: 'No such member of this workspace (`member_not_found`).',
      409: 'The last owner would be demoted (`last_owner`).',
    },
    handle: async ({ deps, workspace, params, body }) => ({ body: toMemberBody(await changeMemberRole(deps, workspace.id, params.uid, body.role)) }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/members/:uid',
    summary: 'Remove a member, or leave',
    description:
      'Owners and operators remove anyone; any member may remove themselves (leave); agents and editors removing someone else: 403. ' +
      `${LAST_OWNER} At once on every node the removed user's requests to the workspace answer 404 and their agent consoles of it disconnect. ` +
      'A user left in no workspace (and not an operator) is signed out: every session revoked (401), every console disconnected.',
    tags,
    auth: 'member',
    params: memberParams,
    responses: {
      204: { description: 'Removed.' },
      403: 'Only owners and operators remove someone else (`forbidden`).',
      404: 'No such member of this workspace (`member_not_found`).',
      409: 'The last owner would leave (`last_owner`).',
    },
    handle: async ({ deps, user, role, workspace, params }) => {
      await removeMember(deps, { user, role }, workspace.id, params.uid);
      return { status: 204 };
    },
  }),
];
