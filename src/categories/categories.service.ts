import type { Deps } from '../deps.js';
import { jsonBytes, workspaceTag } from '../cache/caches.js';
import { fail } from '../shared/errors.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { categoryStore, type Category } from './categories.model.js';
export type { Category } from './categories.model.js';

export const listCategories = (deps: Deps, workspace: Workspace) => categoryStore(deps.db).list(workspace.id);

/**
 * The workspace's categories, by slug, kept in this node until one changes (each change invalidates the
 * workspace): every public post answer shows its category, and a cold one should not read them again.
 */
export function workspaceCategories(deps: Deps, workspaceId: string): Promise<Category[]> {
  return deps.cache.computed.remember(`categories:${workspaceId}`, [workspaceTag(workspaceId)], () => categoryStore(deps.db).list(workspaceId), jsonBytes);
}

/** The workspace's categories among `ids`, by slug (unknown ids are left out). */
export async function categoriesByIds(deps: Deps, workspaceId: string, ids: string[]): Promise<Category[]> {
  const wanted = new Set(ids);
  return (await workspaceCategories(deps, workspaceId)).filter((category) => wanted.has(category.id));
}

export function findCategory(deps: Deps, workspaceId: string, id: string): Promise<Category | null> {
  return categoryStore(deps.db).byId(workspaceId, id);
}

export async function createCategory(deps: Deps, workspace: Workspace, input: { slug: string; name: string }): Promise<Category> {
  const created = await categoryStore(deps.db).create(workspace.id, input);
  if (!created) throw fail('category_slug_taken');
  // Categories show in `/external/categories?locale=*` and inside every published post that uses them.
  await deps.cache.invalidateWorkspace(workspace.id);
  return created;
}

export async function updateCategory(deps: Deps, workspace: Workspace, id: string, patch: { slug?: string; name?: string }): Promise<Category> {
  const updated = await categoryStore(deps.db).update(workspace.id, id, patch);
  if (updated === null) throw fail('category_not_found');
  if (updated === 'taken') throw fail('category_slug_taken');
  await deps.cache.invalidateWorkspace(workspace.id);
  return updated;
}

export async function deleteCategory(deps: Deps, workspace: Workspace, id: string): Promise<void> {
  if (!(await categoryStore(deps.db).remove(workspace.id, id))) throw fail('category_not_found');
  await deps.cache.invalidateWorkspace(workspace.id);
}
