import { z } from 'zod';

/** A URL slug: lowercase letters, digits and single hyphens (categories and posts alike). */
export const slugSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single hyphens');

export const categorySchema = z.object({ id: z.string(), slug: z.string(), name: z.string() }).meta({ id: 'Category' });

export const widParams = z.object({ wid: z.string() });
export const categoryParams = z.object({ wid: z.string(), cid: z.string() });

export const createCategoryBody = z.object({ slug: slugSchema, name: z.string().trim().min(1).max(200) });
export const patchCategoryBody = z
  .object({ slug: slugSchema.optional(), name: z.string().trim().min(1).max(200).optional() })
  .refine((body) => body.slug !== undefined || body.name !== undefined, { message: 'give slug or name' });
