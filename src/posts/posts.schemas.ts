import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { pageInfoSchema } from '../shared/paging.js';
import { slugSchema } from '../shared/slug.js';
import { categorySchema } from '../categories/categories.schemas.js';
import { jsonObjectSchema, localeSchema } from '../workspaces/workspaces.schemas.js';

export const MAX_PAGE_SIZE = 50;
export const MAX_FORCED_PAGE_SIZE = 1000;

/** Post types are slugs like any other (the one rule in `shared/slug.ts`). */
export const typeSlugSchema = slugSchema;

export const objectIdSchema = z.string().regex(/^[0-9a-f]{24}$/i, 'must be an id');

/** A query integer: digits only, at least 1 (`0`, `-1`, `1.5`, `abc` and repeated parameters are 400). */
const positiveIntParam = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')
  .transform(Number);

/* ------------------------------------------------------------------ external */

export const POST_SORTS = ['-publishedAt', 'publishedAt', 'title', '-title', 'updatedAt', '-updatedAt'] as const;
export type PostSort = (typeof POST_SORTS)[number];
export const MAX_TAG_FILTERS = 10;
export const POST_LIST_FIELDS = [
  'postId', 'slug', 'canonicalSlug', 'title', 'metaDescription', 'imageUrl', 'tags', 'category',
  'authorName', 'customConfig', 'publishedAt', 'contentHtml', 'contentMarkdown', 'jsonLd',
] as const;
export type PostListField = (typeof POST_LIST_FIELDS)[number];

const tagParam = z.string().trim().min(1).max(100);

/**
 * `fields=a,b`: names of list-item fields, answered in the item's own field order (so equivalent lists
 * share one cache key); an unknown or empty name is 400.
 */
const fieldsParam = z.string().transform((value, ctx) => {
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(POST_LIST_FIELDS as readonly string[]).includes(name)) {
      ctx.addIssue({ code: 'custom', message: `unknown field "${name}"; one of ${POST_LIST_FIELDS.join(', ')}` });
      return z.NEVER;
    }
  }
  return POST_LIST_FIELDS.filter((field) => names.includes(field));
});

/** An ISO 8601 date-time with an offset (`Z` or `+02:00`). */
export const isoDateTimeParam = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z' });

export const listPostsQuery = z.object({
  type: z.union([z.literal('*'), typeSlugSchema]).default('blog'),
  locale: localeSchema.optional(),
  page: positiveIntParam.optional(),
  limit: positiveIntParam.optional(),
  force_limit: positiveIntParam.optional(),
  include: z.literal('content', { message: 'the only supported value is "content"' }).optional(),
  q: z.string().max(200).optional(),
  category: slugSchema.optional(),
  // The app's simple query parser hands a repeated `tag` over as an array; sorted and deduplicated
  // because every tag must match (order does not matter, and equivalent queries share a cache key).
  tag: z
    .union([tagParam.transform((tag) => [tag]), z.array(tagParam).max(MAX_TAG_FILTERS, `at most ${MAX_TAG_FILTERS} tags`)])
    .transform((tags) => [...new Set(tags)].sort())
    .optional(),
  author: z.string().min(1).max(200).optional(),
  sort: z.enum(POST_SORTS).default('-publishedAt'),
  fields: fieldsParam.optional(),
  updatedSince: isoDateTimeParam.transform((value) => new Date(value).toISOString()).optional(),
});

export const changesQuery = z.object({
  since: z
    .union([isoDateTimeParam, z.string().regex(/^[A-Za-z0-9_-]{1,100}$/)], { message: 'must be an ISO 8601 date-time or a `next` cursor of this feed' })
    .optional(),
  limit: positiveIntParam.refine((limit) => limit <= 500, 'at most 500').optional(),
});

export const postChangeSchema = z.object({
  postId: z.string(),
  slug: z.string().describe('The slug the post was published (or last served) under.'),
  locale: z.string(),
  change: z.enum(['published', 'unpublished', 'deleted']),
  at: z.string(),
});

export const postChangesSchema = z
  .object({
    items: z.array(postChangeSchema),
    next: z.string().describe('Pass as `since` for the changes after this page.'),
    hasMore: z.boolean().describe('Another page follows at once.'),
  })
  .meta({ id: 'PostChanges' });

export const singlePostQuery = z.object({
  locale: localeSchema.optional(),
  include: z.literal('content', { message: 'the only supported value is "content"' }).optional(),
  preview: z.string().min(1).max(200).optional(),
});

export const previewTokenBody = z.object({
  expiresInMinutes: z.number().int().min(1).max(7 * 24 * 60).optional().describe('Default 1440 (24 h), at most 10080 (7 days).'),
});

export const previewTokenSchema = z
  .object({
    token: z.string().describe('Shown once; only its hash is stored.'),
    expiresAt: z.string(),
    url: z.string().nullable().describe('`${siteUrl}/${locale}/${slug}?preview=<token>`; null while the workspace has no `siteUrl`.'),
  })
  .meta({ id: 'PreviewToken' });

/** Not checked here: a segment that cannot be a slug answers 404 like an unknown slug (`getPublicPost`). */
export const slugParams = z.object({ slug: z.string() });

export const categoriesQuery = z.object({ locale: z.union([z.literal('*'), localeSchema]).optional() });

export const postListItemSchema = z
  .object({
    postId: z.string(),
    slug: z.string(),
    canonicalSlug: z.string(),
    title: z.string(),
    metaDescription: z.string(),
    imageUrl: z.string(),
    tags: z.array(z.string()),
    category: categorySchema.nullable().describe('null when the post has no category (or it was deleted).'),
    authorName: z.string(),
    customConfig: jsonObjectSchema,
    publishedAt: z.string(),
    contentHtml: z.string().nullable(),
    contentMarkdown: z.string().nullable(),
    jsonLd: jsonObjectSchema.nullable(),
  })
  .meta({ id: 'PostListItem' });

export const translationSchema = z.object({ locale: z.string(), slug: z.string(), publishedAt: z.string() });

export const postImageSchema = z
  .object({
    id: z.string().describe('The media item.'),
    url: z.string().describe('Absolute, content-versioned URL of the original file.'),
    width: z.number().int(),
    height: z.number().int(),
    alt: z.string().describe('The alt text in the post\'s locale, else its language, else the workspace default locale; empty when none.'),
    srcset: z
      .array(z.object({ width: z.number().int(), url: z.string() }))
      .describe('Resized variants at the fixed widths (160, 320, 640, 960, 1280, 1920) not larger than the original, narrowest first.'),
  })
  .meta({ id: 'PostImage' });

export const singlePostSchema = postListItemSchema
  .extend({
    locale: z.string(),
    type: z.string(),
    translations: z.array(translationSchema).describe('Every published locale variant, this one included, in workspace locale order.'),
    image: postImageSchema.nullable().describe('The post\'s image when it is a media item of the library (then `imageUrl` is its `url`); null for a plain `imageUrl` or none.'),
    images: z.array(postImageSchema).describe('The media items the body shows (`media:<id>` references), in order of appearance.'),
  })
  .meta({ id: 'Post' });

/** A list item narrowed by `fields`: only the fields asked for, each of its full type. */
const sparsePostListItemSchema = postListItemSchema.partial().meta({ id: 'PostListItemFields', description: 'The list item narrowed to the fields named in `fields`.' });

export const postListSchema = z.object({
  items: z.array(z.union([postListItemSchema, sparsePostListItemSchema])).describe('Whole list items; only the named fields when `fields` is given.'),
  pageInfo: pageInfoSchema,
});

/* ------------------------------------------------------------------ admin */

export const widParams = z.object({ wid: z.string() });
export const postParams = z.object({ wid: z.string(), pid: z.string() });
export const scheduleParams = postParams.extend({ sid: z.string() });

/** Unknown fields are ignored, as before `at` existed: a publish with any other body stays a publish now. */
export const publicationBody = z.object({
  at: isoDateTimeParam
    .transform((value) => new Date(value))
    .optional()
    .describe('When the change should happen (ISO 8601 date-time with offset). Omitted, now or past: at once.'),
});

export const scheduleEntrySchema = z
  .object({
    id: z.string(),
    postId: z.string(),
    action: z.enum(['publish', 'unpublish']),
    at: z.string().describe('When the change is due.'),
    createdAt: z.string(),
  })
  .meta({ id: 'ScheduledPostChange' });

export const scheduleListSchema = z.object({ items: z.array(scheduleEntrySchema).describe('Pending changes, soonest first.') });

export const createPostTypeBody = z.object({
  slug: typeSlugSchema,
  name: inputText().trim().min(1).max(200),
  defaultConfig: jsonObjectSchema.nullable().optional(),
  jsonLdType: z.string().regex(/^[A-Za-z]{1,64}$/, 'must be a schema.org type name such as "BlogPosting"').nullable().optional(),
});

export const postTypeSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    defaultConfig: jsonObjectSchema.nullable(),
    jsonLdType: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'PostType' });

const urlOrEmpty = z.union([z.literal(''), z.url({ protocol: /^https?$/ }).max(2000)]);

const editableFields = {
  slug: slugSchema,
  title: inputText().trim().min(1).max(500),
  metaDescription: inputText().max(1000),
  imageUrl: urlOrEmpty,
  imageMediaId: objectIdSchema.nullable().describe('A media item (an image) of this workspace shown as the post\'s image; wins over `imageUrl` while set. null clears it.'),
  tags: z.array(inputText().trim().min(1).max(100)).max(50),
  categoryId: objectIdSchema.nullable(),
  authorName: inputText().max(200),
  customConfig: jsonObjectSchema,
  contentMarkdown: inputText().max(500_000).nullable(),
  contentHtml: inputText().max(1_000_000).nullable(),
  jsonLd: jsonObjectSchema.nullable(),
};

export const createPostBody = z.object({
  type: typeSlugSchema.optional(),
  locale: localeSchema,
  canonicalSlug: slugSchema.optional(),
  translationOf: objectIdSchema.optional(),
  slug: editableFields.slug,
  title: editableFields.title,
  metaDescription: editableFields.metaDescription.optional(),
  imageUrl: editableFields.imageUrl.optional(),
  imageMediaId: editableFields.imageMediaId.optional(),
  tags: editableFields.tags.optional(),
  categoryId: editableFields.categoryId.optional(),
  authorName: editableFields.authorName.optional(),
  customConfig: editableFields.customConfig.optional(),
  contentMarkdown: editableFields.contentMarkdown.optional(),
  contentHtml: editableFields.contentHtml.optional(),
  jsonLd: editableFields.jsonLd.optional(),
});

export const patchPostBody = z
  .object({
    slug: editableFields.slug.optional(),
    title: editableFields.title.optional(),
    metaDescription: editableFields.metaDescription.optional(),
    imageUrl: editableFields.imageUrl.optional(),
  imageMediaId: editableFields.imageMediaId.optional(),
    tags: editableFields.tags.optional(),
    categoryId: editableFields.categoryId.optional(),
    authorName: editableFields.authorName.optional(),
    customConfig: editableFields.customConfig.optional(),
    contentMarkdown: editableFields.contentMarkdown.optional(),
    contentHtml: editableFields.contentHtml.optional(),
    jsonLd: editableFields.jsonLd.optional(),
  })
  .strict();

export const adminPostsQuery = z.object({
  type: typeSlugSchema.optional(),
  locale: localeSchema.optional(),
  state: z.enum(['DRAFT', 'PUBLISHED', 'UNPUBLISHED', 'SCHEDULED']).optional(),
  q: z.string().trim().min(1).max(200).optional(),
  translationGroupId: z.string().min(1).max(100).optional(),
  view: z.literal('summary', { message: 'the only supported value is "summary"' }).optional(),
  page: positiveIntParam.optional(),
  limit: positiveIntParam.optional(),
});

const contentSchema = z.object({
  slug: z.string(),
  canonicalSlug: z.string(),
  title: z.string(),
  metaDescription: z.string(),
  imageUrl: z.string(),
  imageMediaId: z.string().nullable().describe('The media item shown as the post\'s image; null when none.'),
  tags: z.array(z.string()),
  categoryId: z.string().nullable(),
  authorName: z.string(),
  customConfig: jsonObjectSchema,
  contentMarkdown: z.string().nullable(),
  contentHtml: z.string().nullable(),
  jsonLd: jsonObjectSchema.nullable(),
  bodyMediaIds: z.array(z.string()).describe('Read-only: the media items the body shows (`![alt](media:<id>)`), derived at every save.'),
});

export const adminPostSchema = contentSchema
  .extend({
    id: z.string(),
    type: z.string(),
    postTypeId: z.string(),
    locale: z.string(),
    translationGroupId: z.string(),
    state: z.enum(['DRAFT', 'PUBLISHED', 'UNPUBLISHED']),
    publishedAt: z.string().nullable(),
    hasUnpublishedChanges: z.boolean().nullable().describe('The draft differs from what was last published; null in a list with `view=summary` (it needs the bodies).'),
    version: z.number().int().min(0).describe('Bumped by every change of the post (save, publish, unpublish); the `ETag` of its answers, for `If-Match`.'),
    published: contentSchema.nullable().describe('The snapshot `/external` serves while PUBLISHED.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AdminPost' });

export const adminPostListItemSchema = adminPostSchema
  .extend({ scheduled: z.array(scheduleEntrySchema).describe('Its pending scheduled publishes and unpublishes, soonest first.') })
  .meta({ id: 'AdminPostListItem' });

export const adminPostListSchema = z.object({ items: z.array(adminPostListItemSchema), pageInfo: pageInfoSchema });

export const previewRenderBody = z.object({
  contentMarkdown: inputText().max(500_000),
  locale: localeSchema.optional().describe('Whose alt texts media images get; default the workspace default locale.'),
});

export const previewRenderSchema = z.object({ contentHtml: z.string().describe('The markdown rendered and sanitized exactly as a saved draft would be.') }).meta({ id: 'PreviewRender' });
