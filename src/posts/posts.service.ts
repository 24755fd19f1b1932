import { Types } from 'mongoose';
import type { Deps } from '../deps.js';
import { requireVersion } from '../shared/versions.js';
import { fail, invalid, type FieldIssue } from '../shared/errors.js';
import { pageInfoOf } from '../shared/paging.js';
import { findCategory } from '../categories/categories.service.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { renderMarkdown, sanitizeContentHtml } from './markdown.js';
import { BLOG, postTypeBySlug } from './post-types.service.js';
import { postStore, type Post, type PostContent, type PostHead, type PostState } from './posts.model.js';
import { publishedPostStore, type PublishedPost } from './published-posts.model.js';
import { postScheduleStore } from './post-schedules.model.js';
import { announceDeletion, hasUnpublishedChanges } from './publication.service.js';
import { bodyMediaIdsOf, mediaIssues } from './post-media.service.js';
export type { Post, PostContent, PostHead, PostState } from './posts.model.js';
export type { PublishedPost } from './published-posts.model.js';

export const ADMIN_DEFAULT_PAGE_SIZE = 50;
export const ADMIN_MAX_PAGE_SIZE = 100;

export interface CreatePostInput {
  type?: string;
  locale: string;
  slug: string;
  canonicalSlug?: string;
  translationOf?: string;
  title: string;
  metaDescription?: string;
  imageUrl?: string;
  imageMediaId?: string | null;
  tags?: string[];
  categoryId?: string | null;
  authorName?: string;
  customConfig?: Record<string, unknown>;
  contentMarkdown?: string | null;
  contentHtml?: string | null;
  jsonLd?: Record<string, unknown> | null;
}

export type PostPatch = Partial<Omit<PostContent, 'canonicalSlug' | 'bodyMediaIds'>>;

/** HTML given is sanitized; markdown alone renders (and sanitizes) the HTML. */
function resolveHtml(markdown: string | null | undefined, html: string | null | undefined): string | null | undefined {
  if (html !== undefined && html !== null) return sanitizeContentHtml(html);
  if (html === null) return markdown ? renderMarkdown(markdown) : null;
  if (markdown !== undefined) return markdown === null ? null : renderMarkdown(markdown);
  return undefined;
}

async function checkCategory(deps: Deps, workspaceId: string, categoryId: string | null | undefined): Promise<void> {
  if (!categoryId) return;
  if (!(await findCategory(deps, workspaceId, categoryId))) {
    throw invalid([{ path: 'categoryId', message: 'no such category in this workspace' }]);
  }
}

export async function createPost(deps: Deps, workspace: Workspace, input: CreatePostInput): Promise<Post> {
  const posts = postStore(deps.db);
  const issues: FieldIssue[] = [];
  if (!workspace.locales.includes(input.locale)) issues.push({ path: 'locale', message: `must be one of the workspace locales (${workspace.locales.join(', ')})` });
  const type = await postTypeBySlug(deps, workspace.id, input.type ?? BLOG.slug);
  if (!type) issues.push({ path: 'type', message: 'no such post type in this workspace' });
  let translationGroupId = new Types.ObjectId().toHexString();
  let canonicalSlug = input.canonicalSlug ?? input.slug;
  if (input.translationOf) {
    const original = await posts.byId(workspace.id, input.translationOf);
    if (!original) issues.push({ path: 'translationOf', message: 'no such post in this workspace' });
    else {
      const group = await posts.inGroup(workspace.id, original.translationGroupId);
      if (group.some((post) => post.locale === input.locale)) {
        throw fail('translation_exists', `This translation group already has a post in ${input.locale}.`);
      }
      if (type && original.type !== type.slug) issues.push({ path: 'type', message: 'must be the type of the post it translates' });
      if (input.canonicalSlug && input.canonicalSlug !== original.draft.canonicalSlug) {
        issues.push({ path: 'canonicalSlug', message: 'translations share the canonicalSlug of their group' });
      }
      translationGroupId = original.translationGroupId;
      canonicalSlug = original.draft.canonicalSlug;
    }
  }
  await checkCategory(deps, workspace.id, input.categoryId).catch((error: { issues?: FieldIssue[] }) => issues.push(...(error.issues ?? [])));
  const contentHtml = resolveHtml(input.contentMarkdown, input.contentHtml) ?? null;
  const bodyMediaIds = bodyMediaIdsOf(input.contentMarkdown ?? null, contentHtml);
  const bodyPath = input.contentHtml ? 'contentHtml' : 'contentMarkdown';
  issues.push(...(await mediaIssues(deps, workspace, { imageMediaId: input.imageMediaId, bodyMediaIds, bodyPath })));
  if (issues.length) throw invalid(issues);
  if (await posts.slugUsedByOther(workspace.id, input.locale, input.slug, null)) {
    throw fail('post_slug_taken');
  }
  const draft: PostContent = {
    slug: input.slug,
    canonicalSlug,
    title: input.title,
    metaDescription: input.metaDescription ?? '',
    imageUrl: input.imageUrl ?? '',
    imageMediaId: input.imageMediaId?.toLowerCase() ?? null,
    tags: input.tags ?? [],
    categoryId: input.categoryId ?? null,
    authorName: input.authorName ?? '',
    customConfig: input.customConfig ?? type!.defaultConfig ?? {},
    contentMarkdown: input.contentMarkdown ?? null,
    contentHtml,
    jsonLd: input.jsonLd ?? null,
    bodyMediaIds,
  };
  const created = await posts.create(workspace.id, { type: type!.slug, postTypeId: type!.id, locale: input.locale, translationGroupId, draft });
  if (!created) throw fail('post_slug_taken');
  return created;
}

export async function getPost(deps: Deps, workspace: Workspace, id: string): Promise<Post> {
  const post = await postStore(deps.db).byId(workspace.id, id);
  if (!post) throw fail('post_not_found');
  return post;
}

export type AdminListState = PostState | 'SCHEDULED';

/**
 * A page of posts, newest created first, each with its pending scheduled changes. `SCHEDULED` lists the
 * posts with a scheduled publish waiting, whatever their state; `q` is a literal part of the draft's title
 * or slug, any case.
 */
export async function listPostsAdmin(
  deps: Deps,
  workspace: Workspace,
  query: { type?: string; locale?: string; state?: AdminListState; q?: string; translationGroupId?: string; view?: 'summary'; page?: number; limit?: number },
) {
  const request = { page: query.page ?? 1, limit: Math.min(query.limit ?? ADMIN_DEFAULT_PAGE_SIZE, ADMIN_MAX_PAGE_SIZE) };
  const schedules = postScheduleStore(deps.db);
  const { state, q, view, ...filter } = query;
  const summary = view === 'summary';
  const ids = state === 'SCHEDULED' ? (await schedules.pending(workspace.id)).filter((entry) => entry.action === 'publish').map((entry) => entry.postId) : undefined;
  // A summary reads no bodies and counts nothing (each a scan on FerretDB): one post more says whether a next page exists.
  const { items: found, total } = await postStore(deps.db).list(
    workspace.id,
    { ...filter, state: state === 'SCHEDULED' ? undefined : state, q: q || undefined, ids },
    request,
    summary,
  );
  const items = found.slice(0, request.limit);
  const pending = items.length ? await schedules.pending(workspace.id, items.map((post) => post.id)) : [];
  return { items: items.map((post) => ({ post, scheduled: pending.filter((entry) => entry.postId === post.id) })), summary, pageInfo: pageInfoOf(request, total) };
}

/**
 * Saves the fields `patch` names and only those, as one transition of the post: with `ifMatch` (the
 * versions the editor last saw, from `If-Match`), only while the post is still at one of them, else 412
 * `version_mismatch` carrying the current version. The answer is the post as stored.
 */
export async function editDraft(deps: Deps, workspace: Workspace, id: string, patch: PostPatch, ifMatch?: readonly number[]): Promise<Post> {
  const posts = postStore(deps.db);
  await checkCategory(deps, workspace.id, patch.categoryId);
  return posts.exclusive(id, async () => {
    const post = await getPost(deps, workspace, id);
    requireVersion('post', post.version, ifMatch);
    if (patch.slug !== undefined && patch.slug !== post.draft.slug && (await posts.slugUsedByOther(workspace.id, post.locale, patch.slug, post.id))) {
      throw fail('post_slug_taken');
    }
    const fields: Partial<PostContent> = {};
    for (const [field, value] of Object.entries(patch)) {
      if (value !== undefined && field !== 'contentHtml') (fields as Record<string, unknown>)[field] = value;
    }
    // Clearing the HTML while markdown stays re-renders it from the markdown.
    const markdown = patch.contentMarkdown !== undefined ? patch.contentMarkdown : patch.contentHtml === null ? post.draft.contentMarkdown : undefined;
    const html = resolveHtml(markdown, patch.contentHtml);
    if (html !== undefined) fields.contentHtml = html;
    // The bodies are stored together: a change of either writes both, the other as it is.
    const { contentMarkdown = post.draft.contentMarkdown, contentHtml = post.draft.contentHtml } = fields;
    const body = 'contentMarkdown' in fields || 'contentHtml' in fields ? { contentMarkdown, contentHtml } : null;
    if (body) fields.bodyMediaIds = bodyMediaIdsOf(contentMarkdown, contentHtml);
    if (fields.imageMediaId) fields.imageMediaId = fields.imageMediaId.toLowerCase();
    const bodyPath = patch.contentHtml ? 'contentHtml' : 'contentMarkdown';
    const issues = await mediaIssues(deps, workspace, { imageMediaId: fields.imageMediaId, bodyMediaIds: body ? fields.bodyMediaIds : [], bodyPath });
    if (issues.length) throw invalid(issues);
    const updated = await posts.updateDraft(workspace.id, post, fields, body);
    if (updated === null) throw fail('post_not_found');
    if (updated === 'taken') throw fail('post_slug_taken');
    return updated;
  });
}

export async function deletePost(deps: Deps, workspace: Workspace, id: string): Promise<void> {
  const posts = postStore(deps.db);
  const removed = await posts.exclusive(id, async () => {
    const gone = await posts.remove(workspace.id, id);
    if (!gone) throw fail('post_not_found');
    await announceDeletion(deps, workspace, gone);
    return gone;
  });
  // Navigations leave out items of deleted posts: one pointing at an unpublished translation of a published
  // article showed until now (a published post was announced above).
  if (removed.state !== 'PUBLISHED') await deps.cache.invalidateWorkspace(workspace.id);
}

export function toAdminPost(post: Post) {
  return {
    id: post.id,
    type: post.type,
    postTypeId: post.postTypeId,
    locale: post.locale,
    translationGroupId: post.translationGroupId,
    state: post.state,
    ...post.draft,
    publishedAt: post.publishedAt ? post.publishedAt.toISOString() : null,
    hasUnpublishedChanges: hasUnpublishedChanges(post),
    version: post.version,
    published: post.published,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

/* ---- for other domains (navigations) ---- */

/** The workspace's posts among `ids`, without bodies; unknown ids are left out. */
export function findPostHeads(deps: Deps, workspaceId: string, ids: string[]): Promise<PostHead[]> {
  return postStore(deps.db).byIds(workspaceId, ids);
}

/** Every published post of these translation groups. */
export function publishedInGroups(deps: Deps, workspaceId: string, groupIds: string[]): Promise<PublishedPost[]> {
  return publishedPostStore(deps.db).inGroups(workspaceId, groupIds);
}
