import type { Deps } from '../deps.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { fail, invalid, type FieldIssue } from '../shared/errors.js';
import { teamAppLink } from '../shared/links.js';
import type { Role } from '../shared/roles.js';
import { checkAccountPassword, createUser, findUserByEmail, openSession, type User } from '../auth/auth.service.js';
import { queueEmail } from '../email/email.service.js';
import { invitationMail } from '../email/account.templates.js';
import { findWorkspace, type Workspace } from './workspaces.service.js';
import { isMember, joinWorkspace } from './members.service.js';
import { invitationStore, type Invitation } from './invitations.model.js';

/** How long an invitation's link works. */
export const INVITATION_TTL_MS = 72 * 60 * 60_000;

/**
 * Invites `email` into the team with `role` and mails the link `${PUBLIC_URL}/console#/invitation/<token>`
 * (only the token's hash is stored). An earlier invitation to the same address is replaced: its link stops
 * working. `already_member` when a user with this e-mail is in the team.
 */
export async function invite(deps: Deps, workspace: Workspace, inviter: User, input: { email: string; role: Role }): Promise<Invitation> {
  const email = input.email.toLowerCase();
  const account = await findUserByEmail(deps, email);
  if (account && (await isMember(deps, workspace.id, account.id))) throw fail('already_member');
  const token = randomToken('inv_');
  const now = deps.clock.now();
  const store = invitationStore(deps.db);
  const invitation = await store.exclusive(workspace.id, email, async () => {
    await store.removeTo(workspace.id, email);
    return store.create(workspace.id, {
      email,
      role: input.role,
      tokenHash: sha256Hex(token),
      invitedBy: { id: inviter.id, name: inviter.name },
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      createdAt: now,
    });
  });
  const mail = invitationMail({
    workspaceName: workspace.name,
    inviterName: inviter.name,
    role: input.role,
    link: teamAppLink(deps.config, `invitation/${token}`),
    validHours: INVITATION_TTL_MS / 3_600_000,
    locale: workspace.defaultLocale,
  });
  // Listed in the workspace's outbox (recipient, subject, state: never a body); the body is blanked once sent.
  await queueEmail(deps, workspace.id, { to: email, ...mail }, { cause: 'team', sensitive: true });
  return invitation;
}

/** The workspace's open invitations (not used, revoked, replaced or expired), newest first. */
export function openInvitations(deps: Deps, workspace: Workspace): Promise<Invitation[]> {
  return invitationStore(deps.db).open(workspace.id, deps.clock.now());
}

/** Revokes an invitation: its link stops working. `invitation_not_found` when the workspace has no such one. */
export async function revokeInvitation(deps: Deps, workspace: Workspace, invitationId: string): Promise<void> {
  const store = invitationStore(deps.db);
  const found = await store.byId(workspace.id, invitationId);
  if (!found) throw fail('invitation_not_found');
  const removed = await store.exclusive(workspace.id, found.email, () => store.remove(workspace.id, found.id));
  if (!removed) throw fail('invitation_not_found');
}

async function openByToken(deps: Deps, token: string): Promise<Invitation & { tokenHash: string }> {
  const found = await invitationStore(deps.db).byHash(sha256Hex(token));
  if (!found || found.expiresAt <= deps.clock.now()) throw fail('invitation_not_found');
  return found;
}

/** What the accept page shows of a link: whom it invites where, and whether that e-mail has an account already. */
export async function describeInvitation(deps: Deps, token: string) {
  const invitation = await openByToken(deps, token);
  const workspace = await findWorkspace(deps, invitation.workspaceId);
  if (!workspace) throw fail('invitation_not_found');
  const account = await findUserByEmail(deps, invitation.email);
  return { email: invitation.email, role: invitation.role, workspace: { id: workspace.id, name: workspace.name }, accountExists: account !== null };
}

/**
 * Accepts an invitation and signs in. Without an account for the invited e-mail, `name` and `password`
 * make one. With one, `password` must be that account's password (counted as a login attempt), so a link
 * seen by someone else cannot take an account over. The link works once: under the invitation's lock it
 * is read again, the membership made (an existing member keeps their role) and the invitation deleted.
 */
export async function acceptInvitation(
  deps: Deps,
  input: { token: string; name?: string; password?: string },
  clientIp: string,
): Promise<{ token: string; user: User }> {
  const found = await openByToken(deps, input.token);
  const account = await findUserByEmail(deps, found.email);
  const joiner: Joiner = account ? { existing: await accountByPassword(deps, found.email, input.password, clientIp) } : { create: newAccount(input) };
  const store = invitationStore(deps.db);
  const user = await store.exclusive(found.workspaceId, found.email, async () => {
    const current = await store.byId(found.workspaceId, found.id);
    if (!current || current.tokenHash !== found.tokenHash || current.expiresAt <= deps.clock.now()) throw fail('invitation_not_found');
    const joining = 'existing' in joiner ? joiner.existing : await createUser(deps, { email: found.email, ...joiner.create });
    await joinWorkspace(deps, current.workspaceId, joining.id, current.role);
    await store.remove(current.workspaceId, current.id);
    return joining;
  });
  return openSession(deps, user);
}

/** Who accepts: an account that proved its password, or the account to make. */
type Joiner = { existing: User } | { create: { name: string; password: string } };

async function accountByPassword(deps: Deps, email: string, password: string | undefined, clientIp: string): Promise<User> {
  if (!password) throw invalid([{ path: 'password', message: 'is required: the password of the account with this e-mail' }]);
  const user = await checkAccountPassword(deps, email, password, clientIp);
  if (!user) throw invalid([{ path: 'password', message: 'is not the password of the account with this e-mail' }]);
  return user;
}

function newAccount({ name, password }: { name?: string; password?: string }): { name: string; password: string } {
  if (name && password) return { name, password };
  const issues: FieldIssue[] = [];
  if (!name) issues.push({ path: 'name', message: 'is required to create the account' });
  if (!password) issues.push({ path: 'password', message: 'is required to create the account' });
  throw invalid(issues);
}

export function toInvitationBody(invitation: Invitation) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    expiresAt: invitation.expiresAt.toISOString(),
    createdAt: invitation.createdAt.toISOString(),
  };
}
