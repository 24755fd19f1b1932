import type { Deps } from '../deps.js';
import { fail, invalid } from '../shared/errors.js';
import { rotateKey } from '../credentials/credentials.service.js';
import type { User } from '../auth/auth.service.js';
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

export async function updateWorkspace(deps: Deps, current: Workspace, patch: WorkspacePatch): Promise<Workspace> {
  const locales = patch.locales ?? current.locales;
  const defaultLocale = patch.defaultLocale ?? current.defaultLocale;
  if (!locales.includes(defaultLocale)) {
    throw invalid([{ path: 'defaultLocale', message: 'must be one of locales' }]);
  }
  const updated = await workspaceStore(deps.db).update(current.id, patch);
  if (!updated) throw fail('workspace_not_found');
  await deps.events.publish({ event: 'workspace.updated', workspaceId: updated.id, at: deps.clock.now().toISOString() });
  return updated;
}

export function findWorkspace(deps: Deps, workspaceId: string): Promise<Workspace | null> {
  return workspaceStore(deps.db).byId(workspaceId);
}

export function findWorkspaceBySlug(deps: Deps, slug: string): Promise<Workspace | null> {
  return workspaceStore(deps.db).bySlug(slug);
}

export async function workspacesOf(deps: Deps, user: User): Promise<Workspace[]> {
  const store = workspaceStore(deps.db);
  if (user.isOperator) return store.all();
  return store.byIds(await membershipStore(deps.db).workspaceIdsOf(user.id));
}

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

export function toAdminWorkspace(workspace: Workspace) {
  return {
    ...toPublicWorkspace(workspace),
    webhookUrl: workspace.webhookUrl,
    analytics: workspace.analytics,
    createdAt: workspace.createdAt.toISOString(),
    updatedAt: workspace.updatedAt.toISOString(),
  };
}

/** Fills a new workspace with a domain's demo content (the demo workspace of `npm start`). */
export type WorkspaceSeeder = (deps: Deps, workspace: Workspace) => Promise<void>;
