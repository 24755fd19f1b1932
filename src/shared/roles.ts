/**
 * A team member's role in one workspace: agents work chats, appointments and submissions; editors also
 * write content (posts, post types, categories, navigations); owners also configure the workspace (settings,
 * keys, plugins, webhooks) and run its team (members, invitations).
 */
export type Role = 'agent' | 'editor' | 'owner';

/** Every role, lowest first (the membership model's enum and the request schemas). */
export const ROLES = ['agent', 'editor', 'owner'] as const satisfies readonly Role[];

const RANK: Record<Role, number> = { agent: 1, editor: 2, owner: 3 };

/** True when `role` may do what needs at least `least`. */
export function roleAllows(role: Role, least: Role): boolean {
  return RANK[role] >= RANK[least];
}
