import type { Deps } from '../deps.js';
import { slugFromPath } from '../shared/slug.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { fail } from '../shared/errors.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { postStore, type Post } from './posts.model.js';
import { presentDraft } from './public-posts.service.js';
import { previewTokenStore } from './preview-tokens.model.js';

// Draft preview: an owner mints a token for one post; whoever holds it may read that post's current
// draft through `GET /external/posts/:slug?preview=` with the workspace key. Only the hash is stored.

const previewTokens = (deps: Deps) => previewTokenStore(deps.db);

export const DEFAULT_PREVIEW_MINUTES = 24 * 60;
export const MAX_PREVIEW_MINUTES = 7 * 24 * 60;

/** `${siteUrl}/${locale}/${slug}`, each segment percent-encoded; null without a site URL. */
export function postUrl(siteUrl: string | null, locale: string, slug: string): string | null {
  return siteUrl ? `${siteUrl}/${encodeURIComponent(locale)}/${encodeURIComponent(slug)}` : null;
}

async function loadPost(deps: Deps, workspace: Workspace, postId: string): Promise<Post> {
  const post = await postStore(deps.db).byId(workspace.id, postId);
  if (!post) throw fail('post_not_found');
  return post;
}

/** A new token for the post; the post's previous token stops working. */
export async function mintPreviewToken(deps: Deps, workspace: Workspace, postId: string, minutes = DEFAULT_PREVIEW_MINUTES) {
  const post = await loadPost(deps, workspace, postId);
  const token = randomToken('pv_');
  const expiresAt = new Date(deps.clock.now().getTime() + minutes * 60_000);
  await previewTokens(deps).replace(workspace.id, post.id, sha256Hex(token), expiresAt);
  const link = postUrl(workspace.siteUrl, post.locale, post.draft.slug);
  return { token, expiresAt: expiresAt.toISOString(), url: link ? `${link}?preview=${encodeURIComponent(token)}` : null };
}

export async function revokePreviewToken(deps: Deps, workspace: Workspace, postId: string): Promise<void> {
  const post = await loadPost(deps, workspace, postId);
  await previewTokens(deps).revoke(workspace.id, post.id);
}

/**
 * The draft the token grants, if it is this workspace's, unexpired, and the draft's slug (and `locale`,
 * when given) is the one asked for; anything else answers as if the draft did not exist.
 */
export async function previewPost(deps: Deps, workspace: Workspace, slug: string, token: string, query: { locale?: string; include?: 'content' }) {
  const grant = await previewTokens(deps).byHash(sha256Hex(token));
  const usable = grant && grant.workspaceId === workspace.id && grant.expiresAt.getTime() > deps.clock.now().getTime();
  const post = usable ? await postStore(deps.db).byId(workspace.id, grant.postId) : null;
  if (!post || post.draft.slug !== slugFromPath(slug) || (query.locale && query.locale !== post.locale)) throw fail('published_post_not_found');
  return presentDraft(deps, workspace, post, query.include === 'content');
}
