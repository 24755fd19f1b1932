import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { isObjectIdHex } from '../shared/ids.js';
import { roleAllows, type Role } from '../shared/roles.js';
import { NAMESPACES, rooms } from '../realtime/events.js';
import { findUser, findUsers, revokeSessionsOf, type User } from '../auth/auth.service.js';
import { findWorkspace, type Workspace } from './workspaces.service.js';
import { membershipStore } from './members.model.js';
import { workspaceStore } from './workspaces.model.js';
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

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: Date;
}

/** The workspace's team, oldest member first. */
export async function listMembers(deps: Deps, workspaceId: string): Promise<Member[]> {
  const memberships = await membershipStore(deps.db).members(workspaceId);
  const users = new Map((await findUsers(deps, memberships.map((m) => m.userId))).map((user) => [user.id, user]));
  return memberships.flatMap((m) => {
    const user = users.get(m.userId);
    return user ? [{ userId: m.userId, email: user.email, name: user.name, role: m.role, joinedAt: m.joinedAt }] : [];
  });
}

async function memberOf(deps: Deps, workspaceId: string, userId: string): Promise<Member> {
  const found = (await listMembers(deps, workspaceId)).find((member) => member.userId === userId);
  if (!found) throw fail('member_not_found');
  return found;
}

/**
 * Adds a user to the team, or changes the role of a member (`POST .../members`). Operators may add any
 * user. An owner may add only a user who already shares a workspace with them: any other id answers
 * `user_not_found` exactly as an unknown one, so no owner can probe or enrol other tenants' users
 * (invitations add anyone else). A change of role keeps the workspace's last owner (see `setRole`).
 */
export async function addMember(deps: Deps, actor: User, workspaceId: string, userId: string, role: Role): Promise<void> {
  const known = actor.isOperator ? await findUser(deps, userId) : (await sharesWorkspace(deps, actor.id, userId)) && (await findUser(deps, userId));
  if (!known) throw fail('user_not_found');
  await setRole(deps, workspaceId, userId, role, { create: true });
}

async function sharesWorkspace(deps: Deps, userId: string, otherId: string): Promise<boolean> {
  const store = membershipStore(deps.db);
  const [mine, theirs] = await Promise.all([store.workspaceIdsOf(userId), store.workspaceIdsOf(otherId)]);
  return theirs.some((id) => mine.includes(id));
}

/** A member's new role (`PATCH .../members/:uid`); `member_not_found` for anyone else. */
export async function changeMemberRole(deps: Deps, workspaceId: string, userId: string, role: Role): Promise<Member> {
  if (!isObjectIdHex(userId)) throw fail('member_not_found');
  await setRole(deps, workspaceId, userId, role, { create: false });
  return memberOf(deps, workspaceId, userId);
}

const ownersIn = (members: { role: Role }[]) => members.filter((member) => member.role === 'owner').length;

/**
 * Every change of the team runs under the workspace's document lock: the owners are counted and the
 * membership written with no other team change between, so two owners demoting (or removing) each other
 * at once leave one owner, never none (`last_owner`). The change reaches every node at once: the user's
 * remembered memberships and sessions go.
 */
async function setRole(deps: Deps, workspaceId: string, userId: string, role: Role, options: { create: boolean }): Promise<void> {
  const store = membershipStore(deps.db);
  await workspaceStore(deps.db).exclusive(workspaceId, async () => {
    const members = await store.members(workspaceId);
    const current = members.find((member) => member.userId === userId);
    if (!current && !options.create) throw fail('member_not_found');
    if (current?.role === 'owner' && role !== 'owner' && ownersIn(members) === 1) throw fail('last_owner');
    await store.upsert(workspaceId, userId, role);
  });
  await deps.cache.invalidateUser(userId);
}

/**
 * Ends a membership (`DELETE .../members/:uid`): owners and operators remove anyone, any member removes
 * themselves (leaves). The last owner cannot go (`last_owner`, decided under the workspace's lock as in
 * `setRole`). At once on every node: the user's requests to the workspace answer 404 and their agent
 * consoles of the workspace disconnect. A user left in no workspace (and no operator) is signed out
 * everywhere: every session revoked, every console disconnected.
 */
export async function removeMember(deps: Deps, actor: { user: User; role: Role | 'operator' }, workspaceId: string, userId: string): Promise<void> {
  const leaving = actor.user.id === userId;
  if (!leaving && actor.role !== 'owner' && actor.role !== 'operator') throw fail('forbidden');
  if (!isObjectIdHex(userId)) throw fail('member_not_found');
  const store = membershipStore(deps.db);
  await workspaceStore(deps.db).exclusive(workspaceId, async () => {
    const members = await store.members(workspaceId);
    const current = members.find((member) => member.userId === userId);
    if (!current) throw fail('member_not_found');
    if (current.role === 'owner' && ownersIn(members) === 1) throw fail('last_owner');
    await store.remove(workspaceId, userId);
  });
  await deps.cache.invalidateUser(userId);
  // With Redis the adapter relays the disconnect to the sockets of every node.
  deps.realtime.io.of(NAMESPACES.agent).in(rooms.member(workspaceId, userId)).disconnectSockets(true);
  const user = await findUser(deps, userId);
  if (user && !user.isOperator && (await store.workspaceIdsOf(userId)).length === 0) await revokeSessionsOf(deps, userId);
}

/**
 * Makes the user a member with `role` unless they are one already (then their role stays: an old
 * invitation never demotes anyone). The unique index decides between two joins at once.
 */
export async function joinWorkspace(deps: Deps, workspaceId: string, userId: string, role: Role): Promise<void> {
  await membershipStore(deps.db).insertIfAbsent(workspaceId, userId, role);
  await deps.cache.invalidateUser(userId);
}

/** E-mail addresses of the workspace's members with this role (owners are told of new bookings), or of all of them. */
export async function memberEmails(deps: Deps, workspaceId: string, role?: Role): Promise<string[]> {
  const members = await membershipStore(deps.db).members(workspaceId);
  const users = await Promise.all(members.filter((member) => role === undefined || member.role === role).map((member) => findUser(deps, member.userId)));
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
