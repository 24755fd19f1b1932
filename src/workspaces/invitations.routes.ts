import { route } from '../http/route.js';
import { sessionSchema } from '../auth/auth.schemas.js';
import { acceptInvitation, describeInvitation, invite, openInvitations, revokeInvitation, toInvitationBody } from './invitations.service.js';
import { workspaceIdParams } from './workspaces.schemas.js';
import {
  acceptInvitationBody,
  invitationInfoSchema,
  invitationListSchema,
  invitationParams,
  invitationSchema,
  invitationTokenBody,
  inviteBody,
} from './members.schemas.js';

const tags = ['Team'];

const LINK_NOTE =
  'An unknown, revoked, replaced, already used or expired link answers 404 `invitation_not_found`; the token travels in the body (and in the URL fragment of the mailed link), never in a request path.';

export const invitationRoutes = [
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/invitations',
    summary: 'Invite someone into the team (owners)',
    description:
      'Mails `email` the link `${PUBLIC_URL}/console#/invitation/<token>` (the token in the URL fragment never reaches a request log; only its SHA-256 hash is stored). ' +
      'The link works once, for 72 hours. Inviting the same address again replaces the earlier invitation: its link stops working. ' +
      'The mail shows in the workspace\'s outbox (`GET .../emails`: recipient, subject and state, never the body). ' +
      '409 `already_member` when a user with this e-mail is already in the team.',
    tags,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    body: inviteBody,
    responses: { 201: { description: 'The invitation.', schema: invitationSchema }, 400: 'Invalid body.', 409: 'Already a member (`already_member`).' },
    handle: async ({ deps, workspace, user, body }) => ({ status: 201, body: toInvitationBody(await invite(deps, workspace, user, body)) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/invitations',
    summary: 'Open invitations (owners)',
    description: 'Invitations not yet accepted, revoked, replaced or expired, newest first.',
    tags,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    responses: { 200: { description: 'The open invitations.', schema: invitationListSchema } },
    handle: async ({ deps, workspace }) => ({ body: { items: (await openInvitations(deps, workspace)).map(toInvitationBody) } }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/invitations/:iid',
    summary: 'Revoke an invitation (owners)',
    description: 'Its link stops working at once.',
    tags,
    auth: 'member',
    role: 'owner',
    params: invitationParams,
    responses: { 204: { description: 'Revoked.' }, 404: 'No such invitation in this workspace (`invitation_not_found`).' },
    handle: async ({ deps, workspace, params }) => {
      await revokeInvitation(deps, workspace, params.iid);
      return { status: 204 };
    },
  }),
  route({
    method: 'post',
    path: '/admin/auth/invitation',
    summary: 'What an invitation link offers',
    description: `For the accept page: the invited e-mail and role, the workspace, and whether an account has that e-mail already (accepting then asks for its password). ${LINK_NOTE}`,
    tags,
    auth: 'none',
    body: invitationTokenBody,
    responses: { 200: { description: 'The invitation.', schema: invitationInfoSchema }, 400: 'Invalid body.', 404: 'No open invitation has this token (`invitation_not_found`).' },
    handle: async ({ deps, body }) => ({ body: await describeInvitation(deps, body.token) }),
  }),
  route({
    method: 'post',
    path: '/admin/auth/invitation/accept',
    summary: 'Accept an invitation and sign in',
    description:
      'Answers a session exactly as `POST /admin/auth/login` does. When no account has the invited e-mail, `name` (1 to 120 characters) and `password` (8 to 1000) are required (400 issues) and the account is made. ' +
      'When one has, `password` must be that account\'s current password (a wrong one: 400 issue on `password`; it counts as a failed login, so past the login limit: 429), so nobody who merely saw the link can take the account over. ' +
      `The membership gets the invited role (a member already in the team keeps theirs) and the link is spent: a second accept answers 404. ${LINK_NOTE}`,
    tags,
    auth: 'none',
    body: acceptInvitationBody,
    responses: {
      200: { description: 'A session token for `Authorization: Bearer`.', schema: sessionSchema },
      400: 'Invalid body; a missing name or password for a new account; a wrong password for an existing one.',
      404: 'No open invitation has this token (`invitation_not_found`).',
      409: 'An account with this e-mail was made meanwhile (`email_taken`): accept again with its password.',
      429: 'Too many failed attempts.',
    },
    handle: async ({ deps, req, body }) => ({ body: await acceptInvitation(deps, body, req.ip ?? 'unknown') }),
  }),
];
