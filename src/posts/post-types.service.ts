import type { Deps } from '../deps.js';
import { jsonBytes } from '../cache/caches.js';
import { fail } from '../shared/errors.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { postTypeStore, type PostType } from './post-types.model.js';
export type { PostType } from './post-types.model.js';

export const BLOG = { slug: 'blog', name: 'Blog' } as const;

/** `blog` exists in every workspace: created on first use, so old and new workspaces behave alike. */
export async function ensureBlogType(deps: Deps, workspaceId: string): Promise<PostType> {
  return postTypeStore(deps.db).ensure(workspaceId, { slug: BLOG.slug, name: BLOG.name, defaultConfig: null, jsonLdType: 'BlogPosting' });
}

export async function listPostTypes(deps: Deps, workspace: Workspace): Promise<PostType[]> {
  await ensureBlogType(deps, workspace.id);
  return postTypeStore(deps.db).list(workspace.id);
}

export async function createPostType(
  deps: Deps,
  workspace: Workspace,
  input: { slug: string; name: string; defaultConfig?: Record<string, unknown> | null; jsonLdType?: string | null },
): Promise<PostType> {
  if (input.slug === BLOG.slug) throw fail('post_type_exists', 'The `blog` type exists in every workspace.');
  const created = await postTypeStore(deps.db).create(workspace.id, input);
  if (!created) throw fail('post_type_exists');
  return created;
}

export async function postTypeBySlug(deps: Deps, workspaceId: string, slug: string): Promise<PostType | null> {
  if (slug === BLOG.slug) return ensureBlogType(deps, workspaceId);
  return postTypeStore(deps.db).bySlug(workspaceId, slug);
}

/**
 * The workspace's types among `ids` (unknown ids are left out), from the types kept in this node: every
 * public post answer needs its type. Types are never changed or deleted, so an id the kept list lacks is
 * newer than the list (`blog` is created on first use), which is then read again.
 */
export async function postTypesByIds(deps: Deps, workspaceId: string, ids: string[]): Promise<PostType[]> {
  const key = `post-types:${workspaceId}`;
  const { value: kept, token } = deps.cache.computed.lookup<PostType[]>(key);
  const types = kept && ids.every((id) => kept.some((type) => type.id === id)) ? kept : await postTypeStore(deps.db).list(workspaceId);
  // Under no tag: no write makes a kept type wrong (see above), so a settings change does not read them again.
  if (types !== kept) deps.cache.computed.store(key, types, jsonBytes(types), [], token);
  const wanted = new Set(ids);
  return types.filter((type) => wanted.has(type.id));
}
