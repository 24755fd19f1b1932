import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { roleAllows, type Role } from '../shared/roles.js';
import { findUser, type User } from '../auth/auth.service.js';
import { findWorkspace, type Workspace } from './workspaces.service.js';
import { membershipStore } from './members.model.js';

/**
 * A workspace as seen by a team member: `workspace_not_found` when the user is not a member (it does
 * not exist for them), `forbidden` when the membership's role is below what the action needs.
 * Operators reach every workspace.
 */
export async function accessWorkspace(deps: Deps, user: User, workspaceId: string, least: Role): Promise<{ workspace: Workspace; role: Role | 'operator' }> {
  const workspace = await findWorkspace(deps, workspaceId);
  if (!workspace) throw fail('workspace_not_found');
  if (user.isOperator) return { workspace, role: 'operator' };
  const role = await membershipStore(deps.db).role(workspace.id, user.id);
  if (!role) throw fail('workspace_not_found');
  if (!roleAllows(role, least)) throw fail('forbidden');
  return { workspace, role };
}

export async function addMember(deps: Deps, workspaceId: string, userId: string, role: Role): Promise<void> {
  if (!(await findUser(deps, userId))) throw fail('user_not_found');
  await membershipStore(deps.db).upsert(workspaceId, userId, role);
}

/** E-mail addresses of the workspace's members with this role (owners are told of new bookings). */
export async function memberEmails(deps: Deps, workspaceId: string, role: Role): Promise<string[]> {
  const members = await membershipStore(deps.db).members(workspaceId);
  const users = await Promise.all(members.filter((member) => member.role === role).map((member) => findUser(deps, member.userId)));
  return users.flatMap((user) => (user ? [user.email] : []));
}
