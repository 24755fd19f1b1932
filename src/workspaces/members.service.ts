import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { roleAllows, type Role } from '../shared/roles.js';
import { findUser, type User } from '../auth/auth.service.js';
import { findWorkspace, type Workspace } from './workspaces.service.js';
import { membershipStore } from './members.model.js';
import { userTag, workspaceTag } from '../cache/caches.js';

/**
 * A workspace as seen by a team member: `workspace_not_found` when the user is not a member (it does
 * not exist for them), `forbidden` when the membership's role is below what the action needs.
 * Operators reach every workspace.
 */
export async function accessWorkspace(deps: Deps, user: User, workspaceId: string, least: Role): Promise<{ workspace: Workspace; role: Role | 'operator' }> {
  // Remembered for a few seconds per node; a workspace update or a role change ends it on every node.
  const found = await deps.cache.memo.remember(
    `member:${workspaceId}:${user.id}`,
    () => [workspaceTag(workspaceId), userTag(user.id)],
    async () => {
      const workspace = await findWorkspace(deps, workspaceId);
      if (!workspace) return null;
      return { workspace, role: user.isOperator ? null : await membershipStore(deps.db).role(workspace.id, user.id) };
    },
  );
  if (!found) throw fail('workspace_not_found');
  const { workspace, role } = found;
  if (user.isOperator) return { workspace, role: 'operator' };
  if (!role) throw fail('workspace_not_found');
  if (!roleAllows(role, least)) throw fail('forbidden');
  return { workspace, role };
}

export async function addMember(deps: Deps, workspaceId: string, userId: string, role: Role): Promise<void> {
  if (!(await findUser(deps, userId))) throw fail('user_not_found');
  await membershipStore(deps.db).upsert(workspaceId, userId, role);
  await deps.cache.invalidateUser(userId);
}

/** E-mail addresses of the workspace's members with this role (owners are told of new bookings). */
export async function memberEmails(deps: Deps, workspaceId: string, role: Role): Promise<string[]> {
  const members = await membershipStore(deps.db).members(workspaceId);
  const users = await Promise.all(members.filter((member) => member.role === role).map((member) => findUser(deps, member.userId)));
  return users.flatMap((user) => (user ? [user.email] : []));
}

/** Whether the user belongs to the workspace's team (a membership of any role); operators need not. */
export async function isMember(deps: Deps, workspaceId: string, userId: string): Promise<boolean> {
  return (await membershipStore(deps.db).role(workspaceId, userId)) !== null;
}

/** Whether the user may work in the workspace: a member of it (any role) or an operator. */
export async function canWorkIn(deps: Deps, workspaceId: string, userId: string): Promise<boolean> {
  const user = await findUser(deps, userId);
  if (!user) return false;
  return user.isOperator || (await isMember(deps, workspaceId, userId));
}
