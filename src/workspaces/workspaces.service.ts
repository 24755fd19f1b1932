import type { Deps } from '../deps.js';
import { fail, invalid } from '../shared/errors.js';
import { requireVersion } from '../shared/versions.js';
import { rotateKey } from '../credentials/credentials.service.js';
import type { User } from '../auth/auth.service.js';
import type { Role } from '../shared/roles.js';
import { membershipStore } from './members.model.js';
export type { Workspace } from './workspaces.model.js';
import { workspaceStore, type NewWorkspace, type Workspace, type WorkspacePatch } from './workspaces.model.js';

export async function createWorkspace(deps: Deps, creator: User, input: NewWorkspace): Promise<{ workspace: Workspace; apiKey: string }> {
  const store = workspaceStore(deps.db);
  if (await store.bySlug(input.slug)) throw fail('workspace_slug_taken');
  // The unique index decides between two creators racing for the same slug.
  const workspace = await store.create(input);
  if (!workspace) throw fail('workspace_slug_taken');
  await membershipStore(deps.db).upsert(workspace.id, creator.id, 'owner');
  const apiKey = await rotateKey(deps, workspace.id, 'workspace');
  return { workspace, apiKey };
}

/**
 * Saves the settings `patch` names, as the workspace's only writer: checked against the settings as stored
 * (two saves at once cannot leave a default locale outside the locales), and with `ifMatch` (the versions
 * the person last saw, from `If-Match`) only while the workspace is still at one of them.
 */
export async function updateWorkspace(deps: Deps, workspace: Workspace, patch: WorkspacePatch, ifMatch?: readonly number[]): Promise<Workspace> {
  const store = workspaceStore(deps.db);
  const updated = await store.exclusive(workspace.id, async () => {
    const current = await store.byId(workspace.id);
    if (!current) throw fail('workspace_not_found');
    requireVersion('workspace', current.version, ifMatch);
    const locales = patch.locales ?? current.locales;
    const defaultLocale = patch.defaultLocale ?? current.defaultLocale;
    if (!locales.includes(defaultLocale)) {
      throw invalid([{ path: 'defaultLocale', message: 'must be one of locales' }]);
    }
    const saved = await store.update(current.id, patch);
    if (!saved) throw fail('workspace_not_found');
    return saved;
  });
  await deps.events.publish({ event: 'workspace.updated', workspaceId: updated.id, at: deps.clock.now().toISOString() });
  return updated;
}

export function findWorkspace(deps: Deps, workspaceId: string): Promise<Workspace | null> {
  return workspaceStore(deps.db).byId(workspaceId);
}

export function findWorkspaceBySlug(deps: Deps, slug: string): Promise<Workspace | null> {
  return workspaceStore(deps.db).bySlug(slug);
}

/** The caller's workspaces, each with the caller's role in it (`operator` for operators: all of them). */
export async function workspacesOf(deps: Deps, user: User): Promise<{ workspace: Workspace; role: ViewerRole }[]> {
  const store = workspaceStore(deps.db);
  if (user.isOperator) return (await store.all()).map((workspace) => ({ workspace, role: 'operator' as const }));
  const members = membershipStore(deps.db);
  const workspaces = await store.byIds(await members.workspaceIdsOf(user.id));
  const roles = await Promise.all(workspaces.map((workspace) => members.role(workspace.id, user.id)));
  // A membership removed between the two reads hides the workspace.
  return workspaces.flatMap((workspace, index) => (roles[index] ? [{ workspace, role: roles[index] }] : []));
}

export type ViewerRole = Role | 'operator';

/** The public Workspace object of the spec: free-form JSON exactly as stored. */
export function toPublicWorkspace(workspace: Workspace) {
  return {
    id: workspace.id,
    slug: workspace.slug,
    name: workspace.name,
    locales: workspace.locales,
    defaultLocale: workspace.defaultLocale,
    customConfig: workspace.customConfig,
    schemaOrg: workspace.schemaOrg,
  };
}

/**
 * The workspace as a team member sees it. The webhook secret is for those who configure the workspace:
 * owners and operators see `webhookUrl` whole, agents and editors with its secret masked.
 */
export function toAdminWorkspace(workspace: Workspace, viewer: ViewerRole) {
  const configures = viewer === 'owner' || viewer === 'operator';
  return {
    ...toPublicWorkspace(workspace),
    webhookUrl: workspace.webhookUrl && !configures ? maskWebhookSecret(workspace.webhookUrl) : workspace.webhookUrl,
    analytics: workspace.analytics,
    siteUrl: workspace.siteUrl,
    version: workspace.version,
    createdAt: workspace.createdAt.toISOString(),
    updatedAt: workspace.updatedAt.toISOString(),
    role: viewer,
  };
}

const MASK = '***';

/**
 * Replaces the value of every `secret` query parameter (however its name is percent-encoded or cased)
 * and any password in the user-info with `***`; the rest of the URL is kept as written.
 */
export function maskWebhookSecret(url: string): string {
  const fragmentAt = url.indexOf('#');
  const beforeFragment = fragmentAt >= 0 ? url.slice(0, fragmentAt) : url;
  const fragment = fragmentAt >= 0 ? url.slice(fragmentAt) : '';
  const queryAt = beforeFragment.indexOf('?');
  const base = queryAt >= 0 ? beforeFragment.slice(0, queryAt) : beforeFragment;
  const maskedBase = base.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/@]*@/i, `$1${MASK}@`);
  if (queryAt < 0) return maskedBase + fragment;
  const query = beforeFragment
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equalsAt = pair.indexOf('=');
      const rawName = equalsAt >= 0 ? pair.slice(0, equalsAt) : pair;
      return decodedName(rawName).toLowerCase() === 'secret' ? `${rawName}=${MASK}` : pair;
    })
    .join('&');
  return `${maskedBase}?${query}${fragment}`;
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Fills a new workspace with a domain's demo content (the demo workspace of `npm start`). */
export type WorkspaceSeeder = (deps: Deps, workspace: Workspace) => Promise<void>;
