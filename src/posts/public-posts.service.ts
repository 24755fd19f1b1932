import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { pageInfoOf } from '../shared/paging.js';
import { slugFromPath } from '../shared/slug.js';
import { categoriesByIds, listCategories, type Category } from '../categories/categories.service.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { postTypesByIds, type PostType } from './post-types.service.js';
import { publishedPostStore, type PublishedPost } from './published-posts.model.js';
import type { PostBody } from './post-bodies.model.js';
import { MAX_FORCED_PAGE_SIZE, MAX_PAGE_SIZE } from './posts.schemas.js';

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
    categoryIds.length ? categoriesByIds(deps, workspace.id, categoryIds) : Promise.resolve([]),
    postTypesByIds(deps, workspace.id, typeIds),
    withContent && posts.length ? publishedPostStore(deps.db).bodies(workspace.id, posts.map((post) => post.id)) : Promise.resolve(new Map<string, PostBody>()),
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
  const request = { page: query.page ?? 1, limit: effectiveLimit(query.limit, query.force_limit) };
  const withContent = query.include === 'content';
  const { items, total } = await publishedPostStore(deps.db).list(workspace.id, {
    type: query.type === '*' ? null : query.type,
    locale: query.locale ?? null,
    qPattern: query.q ? escapeRegex(query.q) : null,
    ...request,
  });
  return { items: await presentPosts(deps, workspace, items, withContent), pageInfo: pageInfoOf(request, total) };
}

/**
 * `locale` given: that locale only. Omitted: the default locale, then the other locales in workspace order.
 * The (decoded) segment is normalized like a stored slug; one that cannot be a slug is simply not found.
 */
export async function getPublicPost(deps: Deps, workspace: Workspace, segment: string, query: { locale?: string; include?: 'content' }) {
  const slug = slugFromPath(segment);
  if (slug === null) throw fail('published_post_not_found');
  const published = publishedPostStore(deps.db);
  const order = query.locale ? [query.locale] : [workspace.defaultLocale, ...workspace.locales.filter((l) => l !== workspace.defaultLocale)];
  const candidates = await published.bySlugIn(workspace.id, order, slug);
  const found = candidates.sort((a, b) => order.indexOf(a.locale) - order.indexOf(b.locale))[0] ?? null;
  if (!found) throw fail('published_post_not_found');
  const [[presented], siblings] = await Promise.all([
    presentPosts(deps, workspace, [found], query.include === 'content'),
    published.inGroup(workspace.id, found.translationGroupId),
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

/**
 * Categories with at least one published post in `locale` (`*`: all). Default: the workspace's default
 * locale. A view of posts (categories know nothing of posts), so it lives here.
 */
export async function listPublicCategories(deps: Deps, workspace: Workspace, locale: string | undefined): Promise<Category[]> {
  if (locale === '*') return listCategories(deps, workspace);
  const ids = await publishedPostStore(deps.db).categoryIds(workspace.id, locale ?? workspace.defaultLocale);
  if (ids.length === 0) return [];
  return categoriesByIds(deps, workspace.id, ids);
}
