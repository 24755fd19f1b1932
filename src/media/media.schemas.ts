import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { pageInfoSchema } from '../shared/paging.js';

/** The only widths and heights a variant may have: a bounded set, so nobody can make the server render endless sizes. */
export const VARIANT_SIZES = [160, 320, 640, 960, 1280, 1920] as const;
export const VARIANT_FITS = ['cover', 'contain', 'inside'] as const;
export const VARIANT_FORMATS = ['webp', 'avif', 'jpeg'] as const;

const focalPointSchema = z.object({
  x: z.number().min(0).max(1).describe('0 is the left edge, 1 the right edge.'),
  y: z.number().min(0).max(1).describe('0 is the top edge, 1 the bottom edge.'),
});

export const mediaSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    contentType: z.enum(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif', 'application/pdf']),
    size: z.number().int().describe('Bytes stored (images after metadata was stripped).'),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    alt: z.record(z.string(), z.string()).describe('Alternative text per locale.'),
    focalPoint: focalPointSchema.nullable().describe('Where `fit=cover` crops keep their centre; null: the middle.'),
    url: z.string().describe('Absolute, content-versioned URL of the file (served `immutable`).'),
    createdAt: z.string(),
  })
  .meta({ id: 'Media' });

export const mediaPageSchema = z.object({ items: z.array(mediaSchema), pageInfo: pageInfoSchema });

export const mediaWidParams = z.object({ wid: z.string() });
export const mediaParams = z.object({ wid: z.string(), mid: z.string() });

const positiveInt = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const mediaListQuery = z.object({
  page: positiveInt(1, 1_000_000),
  limit: positiveInt(50, 100),
  q: inputText().trim().max(200).optional().describe('Part of the file name, any case.'),
});

export const patchMediaBody = z
  .object({
    name: inputText().trim().min(1).max(200).optional(),
    alt: z.record(inputText().min(1).max(35), inputText().max(1000)).optional().describe('Replaces the whole map; each key a locale of the workspace.'),
    focalPoint: focalPointSchema.nullable().optional(),
  })
  .refine((body) => body.name !== undefined || body.alt !== undefined || body.focalPoint !== undefined, { message: 'give name, alt or focalPoint' });

const sizeParam = z.coerce
  .number()
  .int()
  .refine((value) => (VARIANT_SIZES as readonly number[]).includes(value), `must be one of ${VARIANT_SIZES.join(', ')}`);

export const deliveryParams = z.object({ workspace: inputText().min(1).max(200), id: inputText().min(1).max(40), name: inputText().min(1).max(400) });

export const deliveryQuery = z.object({
  w: sizeParam.optional(),
  h: sizeParam.optional(),
  fit: z.enum(VARIANT_FITS).optional(),
  fm: z.enum(VARIANT_FORMATS).optional(),
  v: z.string().max(64).optional().describe('The content version the library gave in `url`; with it the answer is cached forever.'),
});
