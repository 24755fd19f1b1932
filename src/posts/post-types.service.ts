import type { Deps } from '../deps.js';
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

export function postTypesByIds(deps: Deps, workspaceId: string, ids: string[]): Promise<PostType[]> {
  return postTypeStore(deps.db).byIds(workspaceId, ids);
}
