import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { objectIdSchema } from '../posts/posts.schemas.js';
import { jsonObjectSchema, localeSchema } from '../workspaces/workspaces.schemas.js';

/* ------------------------------------------------------------------ external */

/** Not checked here: a segment that cannot be a key answers 404 like an unknown key (`getPublicNavigation`). */
export const navigationKeyParams = z.object({ key: z.string() });

export const navigationItemTypeSchema = z.enum(['CUSTOM_URL', 'POST', 'HEADING']);

export const navigationItemSchema = z
  .object({
    id: z.string(),
    parentId: z.string().nullable(),
    position: z.number().int(),
    type: navigationItemTypeSchema,
    customUrl: z.string().nullable(),
    imageUrl: z.string().nullable(),
    customConfig: jsonObjectSchema.nullable(),
    labels: z.record(z.string(), z.string()).nullable(),
    hiddenLocales: z.array(z.string()),
    post: z
      .object({
        id: z.string(),
        canonicalSlug: z.string(),
        postTypeId: z.string(),
        postTypeSlug: z.string(),
        locales: z.array(z.object({ locale: z.string(), slug: z.string(), title: z.string() })),
      })
      .nullable(),
  })
  .meta({ id: 'NavigationItem' });

export const navigationSchema = z
  .object({ key: z.string(), name: z.string(), items: z.array(navigationItemSchema) })
  .meta({ id: 'Navigation' });

/* ------------------------------------------------------------------ admin */

export const widParams = z.object({ wid: z.string() });
export const navigationParams = z.object({ wid: z.string(), nid: z.string() });

const navigationKeySchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, hyphens and underscores');

export const isNavigationKey = (key: string): boolean => navigationKeySchema.safeParse(key).success;

export const createNavigationBody = z.object({ key: navigationKeySchema, name: inputText().trim().min(1).max(200) });
export const patchNavigationBody = z
  .object({ key: navigationKeySchema.optional(), name: inputText().trim().min(1).max(200).optional() })
  .refine((body) => body.key !== undefined || body.name !== undefined, { message: 'give key or name' });

/** Links a consumer can render safely: absolute http(s), site-relative paths, anchors, mailto/tel. Never `javascript:`. */
export const customUrlSchema = z
  .string()
  .min(1)
  .max(2000)
  .refine((value) => /^(https?:\/\/[^\s]+|\/(?!\/)[^\s]*|#[^\s]*|mailto:[^\s]+|tel:[^\s]+)$/i.test(value), {
    message: 'must be an absolute http(s) URL, a path starting with "/", an "#anchor", or a mailto:/tel: link',
  });

export const navigationItemInput = z.object({
  id: inputText().min(1).max(64).optional(),
  parentId: inputText().min(1).max(64).nullable(),
  position: z.number().int().min(0).max(100_000),
  type: navigationItemTypeSchema,
  customUrl: customUrlSchema.nullable().optional(),
  imageUrl: z.url({ protocol: /^https?$/ }).max(2000).nullable().optional(),
  customConfig: jsonObjectSchema.nullable().optional(),
  labels: z.record(localeSchema, inputText().trim().min(1).max(200)).nullable().optional(),
  hiddenLocales: z.array(localeSchema).max(50).optional(),
  postId: objectIdSchema.nullable().optional(),
});

export type NavigationItemInput = z.infer<typeof navigationItemInput>;

export const MAX_NAVIGATION_ITEMS = 500;

export const replaceItemsBody = z.object({ items: z.array(navigationItemInput).max(MAX_NAVIGATION_ITEMS) });

export const adminNavigationItemSchema = navigationItemSchema.omit({ post: true }).extend({ postId: z.string().nullable() });

export const adminNavigationSchema = z
  .object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    items: z.array(adminNavigationItemSchema),
    version: z.number().int().min(0).describe('Counts saves; also the `ETag`. Send it in `If-Match` to save only over this version.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AdminNavigation' });
