import { batch, computed, signal } from '@preact/signals';
import { api, storeToken, type ViewerRole } from './api.js';
import { call, error, start, token, workspaceId, workspaces, ws, WORKSPACE_KEY } from './store.js';

/** The admin API's member of a workspace (`Member` in the OpenAPI document). */
export interface Member {
  userId: string;
  email: string;
  name: string;
  role: MemberRole;
  joinedAt: string;
}

export type MemberRole = 'agent' | 'editor' | 'owner';
export const MEMBER_ROLES: MemberRole[] = ['agent', 'editor', 'owner'];

export interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: string;
}

/** What an invitation link is for, asked before anyone joins. */
export interface InvitationPreview {
  email: string;
  role: MemberRole;
  workspace: { id: string; name: string };
  accountExists: boolean;
}

export const members = signal<Member[]>([]);
export const invitations = signal<Invitation[]>([]);

/** The logged-in member's role in the workspace shown: what the views offer (the server decides anyway). */
export const myRole = computed<ViewerRole | null>(() => workspaces.value.find((w) => w.id === workspaceId.value)?.role ?? null);
export const runsTeam = computed(() => myRole.value === 'owner' || myRole.value === 'operator');

const memberPath = (userId: string) => `${ws()}/members/${encodeURIComponent(userId)}`;

export async function loadTeam(): Promise<void> {
  if (!workspaceId.value) return;
  try {
    const [team, open] = await Promise.all([
      call<{ items: Member[] }>('GET', `${ws()}/members`),
      runsTeam.value ? call<{ items: Invitation[] }>('GET', `${ws()}/invitations`) : Promise.resolve({ items: [] }),
    ]);
    batch(() => {
      members.value = team.items;
      invitations.value = open.items;
    });
  } catch (err) {
    error.value = err instanceof Error ? err.message : String(err);
  }
}

export async function changeRole(userId: string, role: MemberRole): Promise<void> {
  const stored = await call<Member>('PATCH', memberPath(userId), { role });
  members.value = members.value.map((m) => (m.userId === userId ? stored : m));
}

export async function removeMember(userId: string): Promise<void> {
  await call('DELETE', memberPath(userId));
  members.value = members.value.filter((m) => m.userId !== userId);
}

/** Leaving ends this member's access at once: the console moves to another workspace, or logs out. */
export async function leave(userId: string): Promise<void> {
  await call('DELETE', memberPath(userId));
  await start();
}

export async function invite(email: string, role: MemberRole): Promise<void> {
  const created = await call<Invitation>('POST', `${ws()}/invitations`, { email, role });
  invitations.value = [created, ...invitations.value.filter((i) => i.email !== created.email)];
}

export async function revokeInvitation(id: string): Promise<void> {
  await call('DELETE', `${ws()}/invitations/${encodeURIComponent(id)}`);
  invitations.value = invitations.value.filter((i) => i.id !== id);
}

export const changePassword = (currentPassword: string, newPassword: string) => call('POST', '/admin/me/password', { currentPassword, newPassword });

// Before anyone is logged in: the pages a mail's link opens.

export const requestReset = (email: string) => api(null, 'POST', '/admin/auth/password-reset', { email });
export const completeReset = (resetToken: string, password: string) => api(null, 'POST', '/admin/auth/password-reset/complete', { token: resetToken, password });
export const previewInvitation = (invitationToken: string) => api<InvitationPreview>(null, 'POST', '/admin/auth/invitation', { token: invitationToken });

/** Joins with the invitation and logs in as its member, in the invited workspace. */
export async function acceptInvitation(invitationToken: string, fields: { name?: string; password: string }, workspace: string): Promise<void> {
  const session = await api<{ token: string }>(null, 'POST', '/admin/auth/invitation/accept', { token: invitationToken, ...fields });
  storeToken(session.token);
  localStorage.setItem(WORKSPACE_KEY, workspace);
  token.value = session.token;
  await start();
}
