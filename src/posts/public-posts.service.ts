import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { pageInfoOf } from '../shared/paging.js';
import { slugFromPath } from '../shared/slug.js';
import { categoriesByIds, workspaceCategories, type Category } from '../categories/categories.service.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { postTypesByIds, type PostType } from './post-types.service.js';
import { publishedPostStore, type PublicPostQuery, type PublishedPost } from './published-posts.model.js';
import { byTranslationGroup, listPublished } from './published-list.js';
import type { PostBody } from './post-bodies.model.js';
import type { Post } from './posts.model.js';
import { mediaByIds, mediaUrl, type MediaItem } from '../media/media.service.js';
import { mediaIdsOf, presentImage, resolveBody } from './post-media.service.js';
import { MAX_FORCED_PAGE_SIZE, MAX_PAGE_SIZE, type PostListField, type PostSort } from './posts.schemas.js';
import { escapeRegex } from '../shared/text.js';
import { engineTraits } from '../db/engine-traits.js';

/** `limit` is clamped to 50; `force_limit` replaces it, clamped to 1000. */
export function effectiveLimit(limit: number | undefined, forceLimit: number | undefined): number {
  if (forceLimit !== undefined) return Math.min(forceLimit, MAX_FORCED_PAGE_SIZE);
  return Math.min(limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
}

function buildJsonLd(workspace: Workspace, post: PublishedPost, type: PostType | undefined, category: Category | null, imageUrl: string) {
  const own = post.content.jsonLd;
  const schemaType = type?.jsonLdType ?? null;
  if (!own && !schemaType) return null;
  const c = post.content;
  return {
    '@context': 'https://schema.org',
    '@type': schemaType ?? 'BlogPosting',
    headline: c.title,
    ...(c.metaDescription ? { description: c.metaDescription } : {}),
    ...(imageUrl ? { image: imageUrl } : {}),
    ...(c.authorName ? { author: { '@type': 'Person', name: c.authorName } } : {}),
    ...(c.tags.length ? { keywords: c.tags.join(', ') } : {}),
    ...(category ? { articleSection: category.name } : {}),
    datePublished: post.publishedAt.toISOString(),
    inLanguage: post.locale,
    publisher: { '@type': 'Organization', name: workspace.name },
    ...(own ?? {}),
  };
}

/**
 * One query each for the categories, the types, the media items the posts show and (with `include=content`)
 * the bodies of the page. A post's image that is a media item is answered as the file's absolute URL; body
 * references `media:<id>` are resolved (`post-media.service.ts`). `media`: the items read, for `dependsOn`.
 */
async function presentPostsWithMedia(deps: Deps, workspace: Workspace, posts: PublishedPost[], withContent: boolean, bodyMedia = withContent) {
  const categoryIds = [...new Set(posts.map((post) => post.content.categoryId).filter((id): id is string => !!id))];
  const typeIds = [...new Set(posts.map((post) => post.postTypeId))];
  const mediaIds = [...new Set(posts.flatMap((post) => (bodyMedia ? mediaIdsOf(post.content) : post.content.imageMediaId ? [post.content.imageMediaId] : [])))];
  const [categories, types, bodies, media] = await Promise.all([
    categoryIds.length ? categoriesByIds(deps, workspace.id, categoryIds) : Promise.resolve([]),
    postTypesByIds(deps, workspace.id, typeIds),
    withContent && posts.length ? publishedPostStore(deps.db).bodies(workspace.id, posts.map((post) => post.id)) : Promise.resolve(new Map<string, PostBody>()),
    mediaByIds(deps, workspace.id, mediaIds),
  ]);
  const categoryById = new Map(categories.map((category) => [category.id, category]));
  const typeById = new Map(types.map((type) => [type.id, type]));
  const items = posts.map((post) => {
    const c = post.content;
    const category = (c.categoryId && categoryById.get(c.categoryId)) || null;
    const image = c.imageMediaId ? media.get(c.imageMediaId) : undefined;
    const imageUrl = image ? mediaUrl(deps, workspace, image) : c.imageUrl;
    const body = withContent ? resolveBody(deps, workspace, media, post.locale, bodies.get(post.id) ?? { contentHtml: null, contentMarkdown: null }) : null;
    return {
      postId: post.id,
      slug: c.slug,
      canonicalSlug: c.canonicalSlug,
      title: c.title,
      metaDescription: c.metaDescription,
      imageUrl,
      tags: c.tags,
      category,
      authorName: c.authorName,
      customConfig: c.customConfig,
      publishedAt: post.publishedAt.toISOString(),
      contentHtml: body ? body.contentHtml : null,
      contentMarkdown: body ? body.contentMarkdown : null,
      jsonLd: buildJsonLd(workspace, post, typeById.get(post.postTypeId), category, imageUrl),
    };
  });
  return { items, media };
}

/** What an answer showing these media items depends on (`contentTag`): an alt text change or a delete drops it. */
const mediaDependencies = (media: Map<string, MediaItem>) => [...media.keys()].map((id) => `media:${id}`);

export type PublicPostItem = Awaited<ReturnType<typeof presentPostsWithMedia>>['items'][number];

export interface PublicPostsQuery {
  type: string;
  locale?: string;
  page?: number;
  limit?: number;
  force_limit?: number;
  include?: 'content';
  q?: string;
  /** A category slug; an unknown one matches nothing. */
  category?: string;
  tag?: string[];
  author?: string;
  sort?: PostSort;
  fields?: PostListField[];
  /** ISO date-time. */
  updatedSince?: string;
}

/**
 * The public sort orders. `updatedAt` is when the public snapshot last changed, which the spec's re-stamp
 * rule makes `publishedAt` (a draft edit changes nothing public, so it must not move a post either).
 */
function sortOf(sort: PostSort | undefined): { field: 'publishedAt' | 'title'; direction: 1 | -1 } {
  const key = sort ?? '-publishedAt';
  const direction = key.startsWith('-') ? -1 : 1;
  return { field: key.endsWith('title') ? 'title' : 'publishedAt', direction };
}

/** A sparse fieldset: only the named fields, in the item's field order. */
function pick<T extends Record<string, unknown>>(item: T, fields: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(item).filter(([name]) => fields.includes(name))) as Partial<T>;
}

/**
 * The workspace's kept published posts (`WorkspaceIndex`, read once per node and kept current post by post),
 * or undefined when this node cannot keep them now: then the database answers. `forList`: a list (or the
 * categories in use) waits out their first read where its own query would read every published post too (no
 * range or sort in the engine's storage: FerretDB); a read by slug, a few point reads, waits a moment only.
 */
function keptPublished(deps: Deps, workspaceId: string, forList: boolean): Promise<PublishedPost[] | undefined> {
  const store = publishedPostStore(deps.db);
  const index = deps.cache.workspaceIndex<PublishedPost>('published-posts', () => ({
    loadAll: async (id) => byTranslationGroup(await store.all(id)),
    loadGroup: (id, groupId) => store.inGroup(id, groupId),
    bytesOf: (posts) => posts.reduce((sum, post) => sum + 2 * JSON.stringify(post.content).length + KEPT_POST_OVERHEAD_BYTES, 0),
  }));
  return index.items(workspaceId, forList && !engineTraits(deps.db).rangePushdown ? Infinity : undefined);
}

/** What a kept published post costs beyond its fields' text: ids, dates and the objects holding them, roughly. */
const KEPT_POST_OVERHEAD_BYTES = 400;

/** A page of published posts with its exact `total`: from the kept posts in memory, else from the database. */
export async function publishedPage(deps: Deps, workspaceId: string, query: PublicPostQuery): Promise<{ items: PublishedPost[]; total: number }> {
  const kept = await keptPublished(deps, workspaceId, true);
  return kept ? listPublished(kept, query) : publishedPostStore(deps.db).list(workspaceId, query);
}

export async function listPublicPosts(deps: Deps, workspace: Workspace, query: PublicPostsQuery) {
  return (await publicPostsAnswer(deps, workspace, query)).list;
}

/** The list, and what it shows for the content cache: every post, and the media items it shows. */
export async function publicPostsAnswer(deps: Deps, workspace: Workspace, query: PublicPostsQuery) {
  const request = { page: query.page ?? 1, limit: effectiveLimit(query.limit, query.force_limit) };
  const wantsBody = !query.fields || query.fields.includes('contentHtml') || query.fields.includes('contentMarkdown');
  const withContent = query.include === 'content' && wantsBody;
  let categoryId: string | undefined;
  if (query.category !== undefined) {
    categoryId = (await workspaceCategories(deps, workspace.id)).find((category) => category.slug === query.category)?.id;
    if (!categoryId) return { list: { items: [], pageInfo: pageInfoOf(request, 0) }, dependsOn: ['posts'] };
  }
  const { items, total } = await publishedPage(deps, workspace.id, {
    type: query.type === '*' ? null : query.type,
    locale: query.locale ?? null,
    qPattern: query.q ? escapeRegex(query.q) : null,
    categoryId,
    tags: query.tag,
    authorName: query.author,
    since: query.updatedSince ? new Date(query.updatedSince) : undefined,
    sort: sortOf(query.sort),
    ...request,
  });
  const { items: presented, media } = await presentPostsWithMedia(deps, workspace, items, withContent);
  const fields = query.fields;
  const list = { items: fields ? presented.map((item) => pick(item, fields)) : presented, pageInfo: pageInfoOf(request, total) };
  return { list, dependsOn: ['posts', ...mediaDependencies(media)] };
}

/**
 * `locale` given: that locale only. Omitted: the default locale, then the other locales in workspace order.
 * The (decoded) segment is normalized like a stored slug; one that cannot be a slug is simply not found.
 */
export async function getPublicPost(deps: Deps, workspace: Workspace, segment: string, query: { locale?: string; include?: 'content' }) {
  return (await publicPostAnswer(deps, workspace, segment, query)).post;
}

/**
 * The post a slug names, and what that answer shows (for the content cache): the post in all its locales
 * (its translations are listed) and whichever post holds the slug.
 */
export async function publicPostAnswer(deps: Deps, workspace: Workspace, segment: string, query: { locale?: string; include?: 'content' }) {
  const slug = slugFromPath(segment);
  if (slug === null) throw fail('published_post_not_found');
  const order = query.locale ? [query.locale] : [workspace.defaultLocale, ...workspace.locales.filter((l) => l !== workspace.defaultLocale)];
  const kept = await keptPublished(deps, workspace.id, false);
  const found = kept ? bySlugFirst(kept, order, slug) : await publishedPostStore(deps.db).bySlugFirst(workspace.id, order, slug);
  if (!found) throw fail('published_post_not_found');
  const group = kept?.filter((post) => post.translationGroupId === found.translationGroupId);
  const { post, media } = await presentSingleWithMedia(deps, workspace, found, query.include === 'content' ? 'published' : null, true, group);
  return { post, dependsOn: [`group:${found.translationGroupId}`, `slug:${slug}`, ...mediaDependencies(media)] };
}

/** The published post holding `slug` in the first of `locales` that has one, among the kept posts. */
function bySlugFirst(kept: PublishedPost[], locales: string[], slug: string): PublishedPost | undefined {
  for (const locale of locales) {
    const found = kept.find((post) => post.locale === locale && post.content.slug === slug);
    if (found) return found;
  }
  return undefined;
}

/**
 * The single-post answer: the list item, `locale`, `type` and the published translations in workspace order.
 * `stored`: `post` is the published post as stored (not a draft shown as one), so its group need not read it again.
 * `group`: its group's published posts, when they are kept in memory (else they are read).
 */
async function presentSingleWithMedia(deps: Deps, workspace: Workspace, post: PublishedPost, bodies: 'published' | PostBody | null, stored: boolean, group?: PublishedPost[]) {
  // Every media item the post shows is read (`images` lists the body's even without `include=content`).
  const [{ items: [presented], media }, siblings] = await Promise.all([
    presentPostsWithMedia(deps, workspace, [post], bodies === 'published', true),
    group ?? publishedPostStore(deps.db).inGroup(workspace.id, post.translationGroupId, stored ? post : undefined),
  ]);
  const rank = (locale: string) => {
    const index = workspace.locales.indexOf(locale);
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  const translations = siblings
    .sort((a, b) => rank(a.locale) - rank(b.locale) || (a.locale < b.locale ? -1 : 1))
    .map((sibling) => ({ locale: sibling.locale, slug: sibling.content.slug, publishedAt: sibling.publishedAt.toISOString() }));
  const body = bodies && bodies !== 'published' ? resolveBody(deps, workspace, media, post.locale, bodies) : {};
  // Beyond the list item (the spec leaves the single post open): the image and the body's images in full.
  const shown = (id: string) => media.get(id);
  const image = post.content.imageMediaId ? shown(post.content.imageMediaId) : undefined;
  const images = post.content.bodyMediaIds.map(shown).filter((item): item is MediaItem => item !== undefined);
  const extra = {
    image: image ? presentImage(deps, workspace, image, post.locale) : null,
    images: images.map((item) => presentImage(deps, workspace, item, post.locale)),
  };
  return { post: { ...presented, ...body, locale: post.locale, type: post.type, translations, ...extra }, media };
}

const presentSingle = async (...args: Parameters<typeof presentSingleWithMedia>) => (await presentSingleWithMedia(...args)).post;

/**
 * A draft shown as the published post it would become (preview): its draft fields, its draft bodies with
 * `include=content`, and `publishedAt` of its last publish (now, for a post never published).
 */
export function presentDraft(deps: Deps, workspace: Workspace, post: Post, withContent: boolean) {
  const { contentHtml, contentMarkdown, ...fields } = post.draft;
  const asPublished: PublishedPost = {
    id: post.id,
    type: post.type,
    postTypeId: post.postTypeId,
    locale: post.locale,
    translationGroupId: post.translationGroupId,
    publishedAt: post.publishedAt ?? deps.clock.now(),
    content: fields,
  };
  return presentSingle(deps, workspace, asPublished, withContent ? { contentHtml, contentMarkdown } : null, false);
}

/**
 * Categories with at least one published post in `locale` (`*`: all). Default: the workspace's default
 * locale. A view of posts (categories know nothing of posts), so it lives here.
 */
export async function listPublicCategories(deps: Deps, workspace: Workspace, locale: string | undefined): Promise<Category[]> {
  if (locale === '*') return workspaceCategories(deps, workspace.id);
  const shown = locale ?? workspace.defaultLocale;
  const kept = await keptPublished(deps, workspace.id, true);
  const ids = kept
    ? [...new Set(kept.filter((post) => post.locale === shown).flatMap((post) => (post.content.categoryId ? [post.content.categoryId] : [])))]
    : await publishedPostStore(deps.db).categoryIds(workspace.id, shown);
  if (ids.length === 0) return [];
  return categoriesByIds(deps, workspace.id, ids);
}
