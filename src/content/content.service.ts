import { createHash } from 'node:crypto';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { Types } from 'mongoose';
import type { Deps } from '../deps.js';
import { fail, invalid, type FieldIssue } from '../shared/errors.js';
import {
  categoryStore,
  navigationStore,
  postStore,
  postTypeStore,
  type Category,
  type Navigation,
  type NavigationItem,
  type Post,
  type PostBody,
  type PostContent,
  type PostHead,
  type PostState,
  type PostType,
  type PublishedPost,
} from './content.model.js';
import { renderMarkdown, sanitizeContentHtml } from './content.markdown.js';
import { MAX_FORCED_PAGE_SIZE, MAX_PAGE_SIZE, type NavigationItemInput } from './content.schemas.js';

export const BLOG = { slug: 'blog', name: 'Blog' } as const;

/* ------------------------------------------------------------------ post types */

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

async function postTypeBySlug(deps: Deps, workspaceId: string, slug: string): Promise<PostType | null> {
  if (slug === BLOG.slug) return ensureBlogType(deps, workspaceId);
  return postTypeStore(deps.db).bySlug(workspaceId, slug);
}

/* ------------------------------------------------------------------ categories */

export const listCategoriesAdmin = (deps: Deps, workspace: Workspace) => categoryStore(deps.db).list(workspace.id);

export async function createCategory(deps: Deps, workspace: Workspace, input: { slug: string; name: string }): Promise<Category> {
  const created = await categoryStore(deps.db).create(workspace.id, input);
  if (!created) throw fail('category_slug_taken');
  return created;
}

export async function updateCategory(deps: Deps, workspace: Workspace, id: string, patch: { slug?: string; name?: string }): Promise<Category> {
  const updated = await categoryStore(deps.db).update(workspace.id, id, patch);
  if (updated === undefined) throw fail('category_not_found');
  if (updated === null) throw fail('category_slug_taken');
  return updated;
}

export async function deleteCategory(deps: Deps, workspace: Workspace, id: string): Promise<void> {
  if (!(await categoryStore(deps.db).remove(workspace.id, id))) throw fail('category_not_found');
}

/** Categories with at least one published post in `locale` (`*`: all). Default: the workspace's default locale. */
export async function listPublicCategories(deps: Deps, workspace: Workspace, locale: string | undefined): Promise<Category[]> {
  if (locale === '*') return categoryStore(deps.db).list(workspace.id);
  const ids = await postStore(deps.db).publishedCategoryIds(workspace.id, locale ?? workspace.defaultLocale);
  if (ids.length === 0) return [];
  return categoryStore(deps.db).list(workspace.id, ids);
}

/* ------------------------------------------------------------------ posts: admin */

export interface CreatePostInput {
  type?: string;
  locale: string;
  slug: string;
  canonicalSlug?: string;
  translationOf?: string;
  title: string;
  metaDescription?: string;
  imageUrl?: string;
  tags?: string[];
  categoryId?: string | null;
  authorName?: string;
  customConfig?: Record<string, unknown>;
  contentMarkdown?: string | null;
  contentHtml?: string | null;
  jsonLd?: Record<string, unknown> | null;
}

export type PostPatch = Partial<Omit<PostContent, 'canonicalSlug'>>;

/** HTML given is sanitized; markdown alone renders (and sanitizes) the HTML. */
function resolveHtml(markdown: string | null | undefined, html: string | null | undefined): string | null | undefined {
  if (html !== undefined && html !== null) return sanitizeContentHtml(html);
  if (html === null) return markdown ? renderMarkdown(markdown) : null;
  if (markdown !== undefined) return markdown === null ? null : renderMarkdown(markdown);
  return undefined;
}

async function checkCategory(deps: Deps, workspaceId: string, categoryId: string | null | undefined): Promise<void> {
  if (!categoryId) return;
  if (!(await categoryStore(deps.db).byId(workspaceId, categoryId))) {
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
    tags: input.tags ?? [],
    categoryId: input.categoryId ?? null,
    authorName: input.authorName ?? '',
    customConfig: input.customConfig ?? type!.defaultConfig ?? {},
    contentMarkdown: input.contentMarkdown ?? null,
    contentHtml: resolveHtml(input.contentMarkdown, input.contentHtml) ?? null,
    jsonLd: input.jsonLd ?? null,
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

export async function listPostsAdmin(
  deps: Deps,
  workspace: Workspace,
  query: { type?: string; locale?: string; state?: PostState; page?: number; limit?: number },
) {
  const page = query.page ?? 1;
  const limit = Math.min(query.limit ?? 50, 100);
  const { items, total } = await postStore(deps.db).list(workspace.id, query, (page - 1) * limit, limit);
  return { items, pageInfo: pageInfo(page, limit, total) };
}

export async function editDraft(deps: Deps, workspace: Workspace, id: string, patch: PostPatch): Promise<Post> {
  const posts = postStore(deps.db);
  const post = await getPost(deps, workspace, id);
  await checkCategory(deps, workspace.id, patch.categoryId);
  if (patch.slug !== undefined && patch.slug !== post.draft.slug && (await posts.slugUsedByOther(workspace.id, post.locale, patch.slug, post.id))) {
    throw fail('post_slug_taken');
  }
  const draft: PostContent = { ...post.draft };
  for (const [field, value] of Object.entries(patch)) {
    if (value !== undefined && field !== 'contentHtml') (draft as unknown as Record<string, unknown>)[field] = value;
  }
  // Clearing the HTML while markdown stays re-renders it from the markdown.
  const markdown = patch.contentMarkdown !== undefined ? patch.contentMarkdown : patch.contentHtml === null ? post.draft.contentMarkdown : undefined;
  const html = resolveHtml(markdown, patch.contentHtml);
  if (html !== undefined) draft.contentHtml = html;
  const updated = await posts.updateDraft(workspace.id, post.id, draft);
  if (updated === undefined) throw fail('post_not_found');
  if (updated === null) throw fail('post_slug_taken');
  return updated;
}

/** The hash that decides whether a publish changed anything public: every field the snapshot carries. */
export function contentHash(content: PostContent): string {
  const canonical = JSON.stringify(content, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
  return createHash('sha256').update(canonical).digest('hex');
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
  };
}

/**
 * Copies the draft to the public snapshot. `publishedAt` is re-stamped (and `post.published` emitted) on
 * the first publish, after an unpublish, and when the content hash differs from the last publish; a
 * republish of identical content changes nothing and emits nothing.
 */
export async function publishPost(deps: Deps, workspace: Workspace, id: string): Promise<{ post: Post; changed: boolean }> {
  const posts = postStore(deps.db);
  const post = await getPost(deps, workspace, id);
  const hash = contentHash(post.draft);
  if (post.state === 'PUBLISHED' && post.lastPublishedHash === hash) return { post, changed: false };
  // The published slug is claimed in `post_slugs` (unique by `_id`) before the snapshot refers to it.
  if (!(await posts.claimPublishedSlug(workspace.id, post.locale, post.draft.slug, post.id))) {
    throw fail('published_slug_taken');
  }
  const now = deps.clock.now();
  const updated = await posts.setPublished(workspace.id, post.id, post.draft, now, hash);
  if (!updated) {
    await posts.releasePublishedSlug(workspace.id, post.locale, post.draft.slug, post.id);
    throw fail('post_not_found');
  }
  // The previous snapshot's slug is released once the new snapshot is stored.
  if (post.published && post.published.slug !== post.draft.slug) await posts.releasePublishedSlug(workspace.id, post.locale, post.published.slug, post.id);
  await deps.events.publish(postEvent('post.published', workspace, updated, now));
  return { post: updated, changed: true };
}

/** Idempotent: unpublishing a post that is not published changes nothing and emits nothing. */
export async function unpublishPost(deps: Deps, workspace: Workspace, id: string): Promise<Post> {
  const post = await getPost(deps, workspace, id);
  if (post.state !== 'PUBLISHED') return post;
  const updated = await postStore(deps.db).unpublish(workspace.id, post.id);
  if (!updated) return getPost(deps, workspace, id);
  await deps.events.publish(postEvent('post.unpublished', workspace, updated, deps.clock.now()));
  return updated;
}

export async function deletePost(deps: Deps, workspace: Workspace, id: string): Promise<void> {
  const removed = await postStore(deps.db).remove(workspace.id, id);
  if (!removed) throw fail('post_not_found');
  if (removed.state === 'PUBLISHED') await deps.events.publish(postEvent('post.unpublished', workspace, removed, deps.clock.now()));
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
    hasUnpublishedChanges: post.lastPublishedHash !== contentHash(post.draft),
    published: post.published,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

/* ------------------------------------------------------------------ posts: external */

export function pageInfo(page: number, limit: number, total: number) {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 };
}

/** `limit` is clamped to 50; `force_limit` replaces it, clamped to 1000. */
export function effectiveLimit(limit: number | undefined, forceLimit: number | undefined): number {
  if (forceLimit !== undefined) return Math.min(forceLimit, MAX_FORCED_PAGE_SIZE);
  return Math.min(limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
}

/** User text as a literal pattern: every regex metacharacter escaped, so `q` is never run as a pattern. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function buildJsonLd(workspace: Workspace, post: PublishedPost, type: PostType | undefined, category: Category | null) {
  const own = post.content.jsonLd;
  const schemaType = type?.jsonLdType ?? null;
  if (!own && !schemaType) return null;
  const c = post.content;
  return {
    '@context': 'https://schema.org',
    '@type': schemaType ?? 'BlogPosting',
    headline: c.title,
    ...(c.metaDescription ? { description: c.metaDescription } : {}),
    ...(c.imageUrl ? { image: c.imageUrl } : {}),
    ...(c.authorName ? { author: { '@type': 'Person', name: c.authorName } } : {}),
    ...(c.tags.length ? { keywords: c.tags.join(', ') } : {}),
    ...(category ? { articleSection: category.name } : {}),
    datePublished: post.publishedAt.toISOString(),
    inLanguage: post.locale,
    publisher: { '@type': 'Organization', name: workspace.name },
    ...(own ?? {}),
  };
}

/** One query each for the categories, the types and (with `include=content`) the bodies of the page. */
async function presentPosts(deps: Deps, workspace: Workspace, posts: PublishedPost[], withContent: boolean) {
  const categoryIds = [...new Set(posts.map((post) => post.content.categoryId).filter((id): id is string => !!id))];
  const typeIds = [...new Set(posts.map((post) => post.postTypeId))];
  const [categories, types, bodies] = await Promise.all([
    categoryIds.length ? categoryStore(deps.db).list(workspace.id, categoryIds) : Promise.resolve([]),
    postTypeStore(deps.db).byIds(workspace.id, typeIds),
    withContent && posts.length ? postStore(deps.db).publishedBodies(workspace.id, posts.map((post) => post.id)) : Promise.resolve(new Map<string, PostBody>()),
  ]);
  const categoryById = new Map(categories.map((category) => [category.id, category]));
  const typeById = new Map(types.map((type) => [type.id, type]));
  return posts.map((post) => {
    const c = post.content;
    const category = (c.categoryId && categoryById.get(c.categoryId)) || null;
    return {
      postId: post.id,
      slug: c.slug,
      canonicalSlug: c.canonicalSlug,
      title: c.title,
      metaDescription: c.metaDescription,
      imageUrl: c.imageUrl,
      tags: c.tags,
      category,
      authorName: c.authorName,
      customConfig: c.customConfig,
      publishedAt: post.publishedAt.toISOString(),
      contentHtml: withContent ? (bodies.get(post.id)?.contentHtml ?? null) : null,
      contentMarkdown: withContent ? (bodies.get(post.id)?.contentMarkdown ?? null) : null,
      jsonLd: buildJsonLd(workspace, post, typeById.get(post.postTypeId), category),
    };
  });
}

export async function listPublicPosts(
  deps: Deps,
  workspace: Workspace,
  query: { type: string; locale?: string; page?: number; limit?: number; force_limit?: number; include?: 'content'; q?: string },
) {
  const page = query.page ?? 1;
  const limit = effectiveLimit(query.limit, query.force_limit);
  const withContent = query.include === 'content';
  const { items, total } = await postStore(deps.db).listPublished(workspace.id, {
    type: query.type === '*' ? null : query.type,
    locale: query.locale ?? null,
    qPattern: query.q ? escapeRegex(query.q) : null,
    skip: (page - 1) * limit,
    limit,
  });
  return { items: await presentPosts(deps, workspace, items, withContent), pageInfo: pageInfo(page, limit, total) };
}

/** `locale` given: that locale only. Omitted: the default locale, then the other locales in workspace order. */
export async function getPublicPost(deps: Deps, workspace: Workspace, slug: string, query: { locale?: string; include?: 'content' }) {
  const posts = postStore(deps.db);
  const order = query.locale ? [query.locale] : [workspace.defaultLocale, ...workspace.locales.filter((l) => l !== workspace.defaultLocale)];
  const candidates = await posts.publishedBySlugIn(workspace.id, order, slug);
  const found = candidates.sort((a, b) => order.indexOf(a.locale) - order.indexOf(b.locale))[0] ?? null;
  if (!found) throw fail('published_post_not_found');
  const [[presented], siblings] = await Promise.all([
    presentPosts(deps, workspace, [found], query.include === 'content'),
    posts.publishedInGroup(workspace.id, found.translationGroupId),
  ]);
  const rank = (locale: string) => {
    const index = workspace.locales.indexOf(locale);
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  const translations = siblings
    .sort((a, b) => rank(a.locale) - rank(b.locale) || (a.locale < b.locale ? -1 : 1))
    .map((post) => ({ locale: post.locale, slug: post.content.slug, publishedAt: post.publishedAt.toISOString() }));
  return { ...presented, locale: found.locale, type: found.type, translations };
}

/* ------------------------------------------------------------------ navigations */

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

export async function renameNavigation(deps: Deps, workspace: Workspace, id: string, patch: { key?: string; name?: string }): Promise<Navigation> {
  const before = await getNavigation(deps, workspace, id);
  const updated = await navigationStore(deps.db).rename(workspace.id, id, patch);
  if (updated === undefined) throw fail('navigation_not_found');
  if (updated === null) throw fail('navigation_key_taken');
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
 * Validates the whole tree before anything is stored: unique ids, parents that exist in the request,
 * no cycles, unique positions among siblings, per-type fields, posts of this workspace. Each failure is
 * a field-level issue `items.<index>.<field>`. Ids of this navigation's existing items are kept; other
 * (client) ids are replaced by fresh server ids, and `parentId` references follow.
 */
export async function replaceNavigationItems(deps: Deps, workspace: Workspace, id: string, items: NavigationItemInput[]): Promise<Navigation> {
  const navigation = await getNavigation(deps, workspace, id);
  const issues: FieldIssue[] = [];
  const at = (index: number, field: string, message: string) => issues.push({ path: `items.${index}.${field}`, message });

  const clientIds = new Map<string, number>();
  items.forEach((item, index) => {
    if (item.id === undefined) return;
    if (clientIds.has(item.id)) at(index, 'id', 'must be unique within the request');
    else clientIds.set(item.id, index);
  });

  const postIds = [...new Set(items.map((item) => item.postId).filter((pid): pid is string => !!pid))];
  const posts = new Map((await postStore(deps.db).byIds(workspace.id, postIds)).map((post) => [post.id, post]));

  items.forEach((item, index) => {
    if (item.parentId !== null && !clientIds.has(item.parentId)) at(index, 'parentId', 'must be the id of another item of this request');
    if (item.parentId !== null && item.parentId === item.id) at(index, 'parentId', 'an item cannot be its own parent');
    const hasLabels = !!item.labels && Object.keys(item.labels).length > 0;
    switch (item.type) {
      case 'CUSTOM_URL':
        if (!item.customUrl) at(index, 'customUrl', 'is required for CUSTOM_URL items');
        if (!hasLabels) at(index, 'labels', 'at least one label is required for CUSTOM_URL items');
        break;
      case 'HEADING':
        if (!hasLabels) at(index, 'labels', 'at least one label is required for HEADING items');
        if (item.customUrl) at(index, 'customUrl', 'only CUSTOM_URL items have a customUrl');
        break;
      case 'POST':
        if (!item.postId) at(index, 'postId', 'is required for POST items');
        else if (!posts.has(item.postId)) at(index, 'postId', 'no such post in this workspace');
        if (item.customUrl) at(index, 'customUrl', 'only CUSTOM_URL items have a customUrl');
        break;
    }
    if (item.type !== 'POST' && item.postId) at(index, 'postId', 'only POST items refer to a post');
  });

  // Cycles: follow parents from every item; a walk longer than the list loops.
  items.forEach((item, index) => {
    let parent = item.parentId;
    let steps = 0;
    while (parent !== null && clientIds.has(parent) && steps <= items.length) {
      parent = items[clientIds.get(parent)!].parentId;
      steps += 1;
    }
    if (steps > items.length && item.parentId !== item.id) at(index, 'parentId', 'the parent chain forms a cycle');
  });

  const siblingPositions = new Map<string, number>();
  items.forEach((item, index) => {
    const slot = `${item.parentId ?? ''}\u0000${item.position}`;
    if (siblingPositions.has(slot)) at(index, 'position', 'must be unique among siblings');
    else siblingPositions.set(slot, index);
  });

  if (issues.length) throw invalid(issues, 'The navigation items are invalid.');

  const existing = new Set(navigation.items.map((item) => item.id));
  const serverIds = new Map<string, string>();
  const finalId = (clientId: string | undefined) => {
    if (clientId === undefined) return new Types.ObjectId().toHexString();
    if (!serverIds.has(clientId)) serverIds.set(clientId, existing.has(clientId) ? clientId : new Types.ObjectId().toHexString());
    return serverIds.get(clientId)!;
  };
  const stored: NavigationItem[] = items.map((item) => ({
    id: finalId(item.id),
    parentId: item.parentId === null ? null : finalId(item.parentId),
    position: item.position,
    type: item.type,
    customUrl: item.type === 'CUSTOM_URL' ? item.customUrl! : null,
    imageUrl: item.imageUrl ?? null,
    customConfig: item.customConfig ?? null,
    labels: item.labels && Object.keys(item.labels).length ? item.labels : null,
    hiddenLocales: item.hiddenLocales ?? [],
    postId: item.type === 'POST' ? item.postId! : null,
  }));
  const updated = await navigationStore(deps.db).replaceItems(workspace.id, navigation.id, orderTree(stored));
  if (!updated) throw fail('navigation_not_found');
  await deps.events.publish(navigationEvent('navigation.items.replaced', workspace, updated, deps.clock.now()));
  return updated;
}

/** Depth-first, siblings by position: the flat list reads in menu order. */
function orderTree<T extends { id: string; parentId: string | null; position: number }>(items: T[]): T[] {
  const children = new Map<string | null, T[]>();
  for (const item of items) children.set(item.parentId, [...(children.get(item.parentId) ?? []), item]);
  const out: T[] = [];
  const walk = (parent: string | null) => {
    for (const child of (children.get(parent) ?? []).sort((a, b) => a.position - b.position)) {
      out.push(child);
      walk(child.id);
    }
  };
  walk(null);
  return out;
}

export function toAdminNavigation(navigation: Navigation) {
  return {
    id: navigation.id,
    key: navigation.key,
    name: navigation.name,
    items: navigation.items,
    createdAt: navigation.createdAt.toISOString(),
    updatedAt: navigation.updatedAt.toISOString(),
  };
}

/** The public navigation: flat items; POST items carry their post with every published translation. */
export async function getPublicNavigation(deps: Deps, workspace: Workspace, key: string) {
  const navigation = await navigationStore(deps.db).byKey(workspace.id, key);
  if (!navigation) throw fail('navigation_not_found', 'No navigation has this key.');
  const postIds = [...new Set(navigation.items.map((item) => item.postId).filter((pid): pid is string => !!pid))];
  const posts = await postStore(deps.db).byIds(workspace.id, postIds);
  const postById = new Map(posts.map((post) => [post.id, post]));
  const groupIds = [...new Set(posts.map((post) => post.translationGroupId))];
  const [published, types] = await Promise.all([
    postStore(deps.db).publishedInGroups(workspace.id, groupIds),
    postTypeStore(deps.db).byIds(workspace.id, [...new Set(posts.map((post) => post.postTypeId))]),
  ]);
  const typeById = new Map(types.map((type) => [type.id, type]));
  const rank = (locale: string) => (workspace.locales.indexOf(locale) + 1 || Number.MAX_SAFE_INTEGER);
  // Items are stored in tree order, so a parent is decided before its children.
  const dropped = new Set<string>();
  const visible = navigation.items.filter((item) => {
    const gone = (item.parentId !== null && dropped.has(item.parentId)) || (item.type === 'POST' && !(item.postId && postById.has(item.postId)));
    if (gone) dropped.add(item.id);
    return !gone;
  });
  const items = visible.map((item) => {
    const post = item.postId ? postById.get(item.postId) : undefined;
    return {
      id: item.id,
      parentId: item.parentId,
      position: item.position,
      type: item.type,
      customUrl: item.customUrl,
      imageUrl: item.imageUrl,
      customConfig: item.customConfig,
      labels: item.labels,
      hiddenLocales: item.hiddenLocales,
      post:
        item.type === 'POST' && post
          ? {
              id: post.id,
              canonicalSlug: (post.published ?? post.draft).canonicalSlug,
              postTypeId: post.postTypeId,
              postTypeSlug: typeById.get(post.postTypeId)?.slug ?? post.type,
              locales: published
                .filter((p) => p.translationGroupId === post.translationGroupId)
                .sort((a, b) => rank(a.locale) - rank(b.locale))
                .map((p) => ({ locale: p.locale, slug: p.content.slug, title: p.content.title })),
            }
          : null,
    };
  });
  return { key: navigation.key, name: navigation.name, items };
}

/* ------------------------------------------------------------------ analytics */

export function analyticsConfig(workspace: Workspace) {
  if (!workspace.analytics) return { enabled: false };
  return { enabled: true, websiteId: workspace.analytics.websiteId, scriptUrl: workspace.analytics.scriptUrl };
}
