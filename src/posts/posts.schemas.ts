import { z } from 'zod';
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

export const listPostsQuery = z.object({
  type: z.union([z.literal('*'), typeSlugSchema]).default('blog'),
  locale: localeSchema.optional(),
  page: positiveIntParam.optional(),
  limit: positiveIntParam.optional(),
  force_limit: positiveIntParam.optional(),
  include: z.literal('content', { message: 'the only supported value is "content"' }).optional(),
  q: z.string().max(200).optional(),
});

export const singlePostQuery = z.object({
  locale: localeSchema.optional(),
  include: z.literal('content', { message: 'the only supported value is "content"' }).optional(),
});

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

export const singlePostSchema = postListItemSchema
  .extend({
    locale: z.string(),
    type: z.string(),
    translations: z.array(translationSchema).describe('Every published locale variant, this one included, in workspace locale order.'),
  })
  .meta({ id: 'Post' });

export const postListSchema = z.object({ items: z.array(postListItemSchema), pageInfo: pageInfoSchema });

/* ------------------------------------------------------------------ admin */

export const widParams = z.object({ wid: z.string() });
export const postParams = z.object({ wid: z.string(), pid: z.string() });

export const createPostTypeBody = z.object({
  slug: typeSlugSchema,
  name: z.string().trim().min(1).max(200),
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
  title: z.string().trim().min(1).max(500),
  metaDescription: z.string().max(1000),
  imageUrl: urlOrEmpty,
  tags: z.array(z.string().trim().min(1).max(100)).max(50),
  categoryId: objectIdSchema.nullable(),
  authorName: z.string().max(200),
  customConfig: jsonObjectSchema,
  contentMarkdown: z.string().max(500_000).nullable(),
  contentHtml: z.string().max(1_000_000).nullable(),
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
  state: z.enum(['DRAFT', 'PUBLISHED', 'UNPUBLISHED']).optional(),
  page: positiveIntParam.optional(),
  limit: positiveIntParam.optional(),
});

const contentSchema = z.object({
  slug: z.string(),
  canonicalSlug: z.string(),
  title: z.string(),
  metaDescription: z.string(),
  imageUrl: z.string(),
  tags: z.array(z.string()),
  categoryId: z.string().nullable(),
  authorName: z.string(),
  customConfig: jsonObjectSchema,
  contentMarkdown: z.string().nullable(),
  contentHtml: z.string().nullable(),
  jsonLd: jsonObjectSchema.nullable(),
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
    hasUnpublishedChanges: z.boolean().describe('The draft differs from what was last published.'),
    published: contentSchema.nullable().describe('The snapshot `/external` serves while PUBLISHED.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AdminPost' });

export const adminPostListSchema = z.object({ items: z.array(adminPostSchema), pageInfo: pageInfoSchema });
