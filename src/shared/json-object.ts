import { z } from 'zod';

const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Free-form JSON objects (customConfig, schemaOrg, theme, metadata, jsonLd) pass validation as the very
 * object the JSON parser made: a copying schema such as `z.record` would assign `__proto__` as the
 * prototype instead of keeping it as a key, and the key would vanish. Nothing here merges or assigns,
 * so no key can pollute a prototype either.
 */
export const jsonObjectSchema = z
  .custom<Record<string, unknown>>(isJsonObject, { message: 'must be a JSON object' })
  .meta({ type: 'object', additionalProperties: true });
