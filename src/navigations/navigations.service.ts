import type { Deps } from '../deps.js';
import { fail, invalid } from '../shared/errors.js';
import { requireVersion } from '../shared/versions.js';
import { findPostHeads, publishedInGroups } from '../posts/posts.service.js';
import { postTypesByIds } from '../posts/post-types.service.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { itemTreeIssues, orderTree, toStoredItems } from './item-tree.js';
import { navigationStore, type Navigation } from './navigations.model.js';
import { isNavigationKey, type NavigationItemInput } from './navigations.schemas.js';
export type { Navigation, NavigationItem } from './navigations.model.js';

function navigationEvent(event: 'navigation.created' | 'navigation.updated' | 'navigation.deleted' | 'navigation.items.replaced', workspace: Workspace, navigation: Navigation, at: Date) {
  return { event, workspaceId: workspace.id, navigationId: navigation.id, key: navigation.key, name: navigation.name, at: at.toISOString() };
}

export const listNavigations = (deps: Deps, workspace: Workspace) => navigationStore(deps.db).list(workspace.id);

export async function getNavigation(deps: Deps, workspace: Workspace, id: string): Promise<Navigation> {
  const navigation = await navigationStore(deps.db).byId(workspace.id, id);
  if (!navigation) throw fail('navigation_not_found');
  return navigation;
}

export async function createNavigation(deps: Deps, workspace: Workspace, input: { key: string; name: string }): Promise<Navigation> {
  const created = await navigationStore(deps.db).create(workspace.id, input);
  if (!created) throw fail('navigation_key_taken');
  await deps.events.publish(navigationEvent('navigation.created', workspace, created, deps.clock.now()));
  return created;
}

/**
 * One save of a navigation, as its only writer: with `ifMatch` (the versions the editor last saw, from
 * `If-Match`) only while the navigation is still at one of them, else 412 `version_mismatch`.
 */
function saveNavigation<T>(deps: Deps, workspace: Workspace, id: string, ifMatch: readonly number[] | undefined, save: (current: Navigation) => Promise<T>): Promise<T> {
  return navigationStore(deps.db).exclusive(id, async () => {
    const current = await getNavigation(deps, workspace, id);
    requireVersion('navigation', current.version, ifMatch);
    return save(current);
  });
}

export async function renameNavigation(deps: Deps, workspace: Workspace, id: string, patch: { key?: string; name?: string }, ifMatch?: readonly number[]): Promise<Navigation> {
  const { before, updated } = await saveNavigation(deps, workspace, id, ifMatch, async (current) => {
    const renamed = await navigationStore(deps.db).rename(workspace.id, id, patch);
    if (renamed === null) throw fail('navigation_not_found');
    if (renamed === 'taken') throw fail('navigation_key_taken');
    return { before: current, updated: renamed };
  });
  if (updated.key !== before.key || updated.name !== before.name) {
    await deps.events.publish(navigationEvent('navigation.updated', workspace, updated, deps.clock.now()));
  }
  return updated;
}

export async function deleteNavigation(deps: Deps, workspace: Workspace, id: string): Promise<void> {
  const removed = await navigationStore(deps.db).remove(workspace.id, id);
  if (!removed) throw fail('navigation_not_found');
  await deps.events.publish(navigationEvent('navigation.deleted', workspace, removed, deps.clock.now()));
}

/**
 * Validates the whole tree before anything is stored (`itemTreeIssues`), then stores it in menu order.
 * Ids of this navigation's existing items are kept; other (client) ids are replaced by fresh server ids.
 */
export async function replaceNavigationItems(deps: Deps, workspace: Workspace, id: string, items: NavigationItemInput[], ifMatch?: readonly number[]): Promise<Navigation> {
  // An unknown navigation is a 404 before the items are checked.
  await getNavigation(deps, workspace, id);
  const postIds = [...new Set(items.map((item) => item.postId).filter((pid): pid is string => !!pid))];
  const known = new Set((await findPostHeads(deps, workspace.id, postIds)).map((post) => post.id));
  const issues = itemTreeIssues(items, known);
  if (issues.length) throw invalid(issues, 'The navigation items are invalid.');
  const updated = await saveNavigation(deps, workspace, id, ifMatch, async (navigation) => {
    const stored = toStoredItems(items, new Set(navigation.items.map((item) => item.id)));
    const replaced = await navigationStore(deps.db).replaceItems(workspace.id, navigation.id, orderTree(stored));
    if (!replaced) throw fail('navigation_not_found');
    return replaced;
  });
  await deps.events.publish(navigationEvent('navigation.items.replaced', workspace, updated, deps.clock.now()));
  return updated;
}

export function toAdminNavigation(navigation: Navigation) {
  return {
    id: navigation.id,
    key: navigation.key,
    name: navigation.name,
    items: navigation.items,
    version: navigation.version,
    createdAt: navigation.createdAt.toISOString(),
    updatedAt: navigation.updatedAt.toISOString(),
  };
}

/** The public navigation: flat items; POST items carry their post with every published translation. */
export async function getPublicNavigation(deps: Deps, workspace: Workspace, key: string) {
  // A segment no key can have (a NUL, `/`, 5000 characters) is an unknown key, and never reaches the engine.
  const navigation = isNavigationKey(key) ? await navigationStore(deps.db).byKey(workspace.id, key) : null;
  if (!navigation) throw fail('navigation_not_found', 'No navigation has this key.');
  const postIds = [...new Set(navigation.items.map((item) => item.postId).filter((pid): pid is string => !!pid))];
  const posts = await findPostHeads(deps, workspace.id, postIds);
  const groupIds = [...new Set(posts.map((post) => post.translationGroupId))];
  const [published, types] = await Promise.all([
    publishedInGroups(deps, workspace.id, groupIds),
    postTypesByIds(deps, workspace.id, [...new Set(posts.map((post) => post.postTypeId))]),
  ]);
  const typeById = new Map(types.map((type) => [type.id, type]));
  const rank = (locale: string) => (workspace.locales.indexOf(locale) + 1 || Number.MAX_SAFE_INTEGER);
  // A post is linked through its published translations only: a draft, unpublished or deleted post
  // answers as if it never existed, so its item (and the items under it) is left out.
  const linkOf = new Map(
    posts.flatMap((post) => {
      const translations = published.filter((p) => p.translationGroupId === post.translationGroupId).sort((a, b) => rank(a.locale) - rank(b.locale));
      if (translations.length === 0) return [];
      return [
        [
          post.id,
          {
            id: post.id,
            canonicalSlug: translations[0].content.canonicalSlug,
            postTypeId: post.postTypeId,
            postTypeSlug: typeById.get(post.postTypeId)?.slug ?? post.type,
            locales: translations.map((p) => ({ locale: p.locale, slug: p.content.slug, title: p.content.title })),
          },
        ] as const,
      ];
    }),
  );
  // Items are stored in tree order, so a parent is decided before its children.
  const dropped = new Set<string>();
  const visible = navigation.items.filter((item) => {
    const gone = (item.parentId !== null && dropped.has(item.parentId)) || (item.type === 'POST' && !(item.postId && linkOf.has(item.postId)));
    if (gone) dropped.add(item.id);
    return !gone;
  });
  const items = visible.map((item) => ({
    id: item.id,
    parentId: item.parentId,
    position: item.position,
    type: item.type,
    customUrl: item.customUrl,
    imageUrl: item.imageUrl,
    customConfig: item.customConfig,
    labels: item.labels,
    hiddenLocales: item.hiddenLocales,
    post: (item.type === 'POST' && item.postId && linkOf.get(item.postId)) || null,
  }));
  return { key: navigation.key, name: navigation.name, items };
}
