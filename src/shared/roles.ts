/** A team member's role in one workspace: agents work chats and appointments, owners also configure. */
export type Role = 'agent' | 'owner';

const RANK: Record<Role, number> = { agent: 1, owner: 2 };

/** True when `role` may do what needs at least `least`. */
export function roleAllows(role: Role, least: Role): boolean {
  return RANK[role] >= RANK[least];
}
