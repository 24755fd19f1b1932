import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { postStore, type Post, type PostContent, type PostHead } from './posts.model.js';
import { publishedPostStore } from './published-posts.model.js';
import { recordChange } from './post-changes.service.js';
import { mediaIdsOf, requireDraftMedia } from './post-media.service.js';
import { withMediaLocks } from '../media/media.service.js';

// The publication rules in one place: what a publish copies and hashes, when `publishedAt` is stamped,
// and when `post.published` / `post.unpublished` are emitted.

/** The hash that decides whether a publish changed anything public: every field the snapshot carries. */
export function contentHash(content: PostContent): string {
  // `bodyMediaIds` is derived from the body (already hashed); an unset `imageMediaId` is left out so that posts
  // saved before media references existed keep their hash (no false "unpublished changes", no re-stamp).
  const { bodyMediaIds: _derived, imageMediaId, ...rest } = content;
  const hashed = imageMediaId === null ? rest : { ...rest, imageMediaId };
  const canonical = JSON.stringify(hashed, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/** The draft differs from what was last published. */
export function hasUnpublishedChanges(post: Post): boolean {
  return post.lastPublishedHash !== contentHash(post.draft);
}

function postEvent(event: 'post.published' | 'post.unpublished', workspace: Workspace, post: PostHead, at: Date) {
  const content = post.published ?? post.draft;
  return {
    event,
    workspaceId: workspace.id,
    postId: post.id,
    slug: content.slug,
    title: content.title,
    publishedAt: post.publishedAt ? post.publishedAt.toISOString() : null,
    at: at.toISOString(),
    translationGroupId: post.translationGroupId,
  };
}

async function loadPost(deps: Deps, workspace: Workspace, id: string): Promise<Post> {
  const post = await postStore(deps.db).byId(workspace.id, id);
  if (!post) throw fail('post_not_found');
  return post;
}

/**
 * Copies the draft to the public snapshot. `publishedAt` is re-stamped (and `post.published` emitted) on
 * the first publish, after an unpublish, and when the content hash differs from the last publish; a
 * republish of identical content changes nothing and emits nothing. One transition of the post: of
 * concurrent publishes of one draft the first publishes, the others find it published and answer the same.
 */
export async function publishPost(deps: Deps, workspace: Workspace, id: string): Promise<{ post: Post; changed: boolean }> {
  const posts = postStore(deps.db);
  return posts.exclusive(id, async () => {
    const published = publishedPostStore(deps.db);
    const post = await loadPost(deps, workspace, id);
    const hash = contentHash(post.draft);
    if (post.state === 'PUBLISHED' && post.lastPublishedHash === hash) return { post, changed: false };
    // The media the snapshot will show are locked until it is stored: none can be deleted in between.
    return withMediaLocks(deps, mediaIdsOf(post.draft), async () => {
      await requireDraftMedia(deps, workspace, post.draft);
      // The published slug is claimed in `post_slugs` (unique by `_id`) before the snapshot refers to it. A post
      // published under it holds it already: its entry goes only after its snapshot stops showing that slug,
      // and no other post takes it over meanwhile.
      const holdsSlug = post.state === 'PUBLISHED' && post.published?.slug === post.draft.slug;
      if (!holdsSlug && !(await published.claimSlug(workspace.id, post.locale, post.draft.slug, post.id))) {
        throw fail('published_slug_taken');
      }
      const now = deps.clock.now();
      const updated = await posts.setPublished(workspace.id, post, now, hash);
      if (!updated) {
        await published.releaseSlug(workspace.id, post.locale, post.draft.slug, post.id);
        throw fail('post_not_found');
      }
      // The previous snapshot's slug is released once the new snapshot is stored.
      if (post.published && post.published.slug !== post.draft.slug) await published.releaseSlug(workspace.id, post.locale, post.published.slug, post.id);
      await recordChange(deps, workspace.id, { id: post.id, slug: post.draft.slug, locale: post.locale }, 'published');
      await deps.events.publish(postEvent('post.published', workspace, updated, now));
      return { post: updated, changed: true };
    });
  });
}

/** Idempotent: unpublishing a post that is not published changes nothing and emits nothing. */
export async function unpublishPost(deps: Deps, workspace: Workspace, id: string): Promise<Post> {
  const posts = postStore(deps.db);
  return posts.exclusive(id, async () => {
    const post = await loadPost(deps, workspace, id);
    if (post.state !== 'PUBLISHED') return post;
    const updated = await posts.unpublish(workspace.id, post.id);
    if (!updated) return loadPost(deps, workspace, id);
    await recordChange(deps, workspace.id, { id: post.id, slug: (post.published ?? post.draft).slug, locale: post.locale }, 'unpublished');
    await deps.events.publish(postEvent('post.unpublished', workspace, updated, deps.clock.now()));
    return updated;
  });
}

/**
 * A deleted post that was published leaves the public site: `post.unpublished`. The change log says
 * `deleted` for every post that was ever public (a never-published draft was never seen).
 */
export async function announceDeletion(deps: Deps, workspace: Workspace, removed: PostHead): Promise<void> {
  if (removed.state !== 'DRAFT') {
    await recordChange(deps, workspace.id, { id: removed.id, slug: (removed.published ?? removed.draft).slug, locale: removed.locale }, 'deleted');
  }
  if (removed.state === 'PUBLISHED') await deps.events.publish(postEvent('post.unpublished', workspace, removed, deps.clock.now()));
}
