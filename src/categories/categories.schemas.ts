import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { slugSchema } from '../shared/slug.js';

export const categorySchema = z.object({ id: z.string(), slug: z.string(), name: z.string() }).meta({ id: 'Category' });

export const widParams = z.object({ wid: z.string() });
export const categoryParams = z.object({ wid: z.string(), cid: z.string() });

export const createCategoryBody = z.object({ slug: slugSchema, name: inputText().trim().min(1).max(200) });
export const patchCategoryBody = z
  .object({ slug: slugSchema.optional(), name: inputText().trim().min(1).max(200).optional() })
  .refine((body) => body.slug !== undefined || body.name !== undefined, { message: 'give slug or name' });
