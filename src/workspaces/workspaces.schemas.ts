import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { LOCALE_TAG, LOCALE_TAG_MAX_LENGTH } from '../shared/locale.js';
import { ROLES } from '../shared/roles.js';

/** BCP47 language tag (e.g. `en`, `de-CH`, `zh-Hant-TW`), at most 35 characters. */
export const localeSchema = z.string().max(LOCALE_TAG_MAX_LENGTH).regex(LOCALE_TAG, 'must be a BCP47 language tag such as "en" or "de-CH"');

export { jsonObjectSchema } from '../shared/json-object.js';
import { jsonObjectSchema } from '../shared/json-object.js';

export const workspaceSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    locales: z.array(z.string()),
    defaultLocale: z.string(),
    customConfig: jsonObjectSchema.nullable().describe('Free-form JSON, returned exactly as stored.'),
    schemaOrg: jsonObjectSchema.nullable().describe('Keyed by `@type`; merged by consumers into per-page JSON-LD.'),
  })
  .meta({ id: 'Workspace' });

export const analyticsSettingsSchema = z.object({
  websiteId: z.uuid(),
  scriptUrl: z.url({ protocol: /^https?$/ }),
});

export const adminWorkspaceSchema = workspaceSchema
  .extend({
    webhookUrl: z.string().nullable(),
    analytics: analyticsSettingsSchema.nullable(),
    siteUrl: z.string().nullable().describe('Base of post links in feeds, the sitemap and preview links: `${siteUrl}/${locale}/${slug}`.'),
    version: z.number().int().min(0).describe('Counts saves of the settings; also the `ETag`. Send it in `If-Match` to save only over this version.'),
    createdAt: z.string(),
    updatedAt: z.string(),
    role: z.enum(['agent', 'editor', 'owner', 'operator']).describe("The caller's role here (`operator`: reaches every workspace): what the team app offers them."),
  })
  .meta({ id: 'AdminWorkspace' });

const slugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single hyphens');

export const createWorkspaceBody = z
  .object({
    slug: slugSchema,
    name: inputText().trim().min(1).max(200),
    locales: z.array(localeSchema).min(1).max(50),
    defaultLocale: localeSchema,
  })
  .refine((body) => body.locales.includes(body.defaultLocale), { path: ['defaultLocale'], message: 'must be one of locales' })
  .refine((body) => new Set(body.locales).size === body.locales.length, { path: ['locales'], message: 'must not repeat a locale' });

/** An absolute http(s) base URL without query or fragment; a trailing `/` is dropped. */
const siteUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((url) => !/[?#]/.test(url), 'must not have a query or fragment')
  .transform((url) => url.replace(/\/+$/, ''));

export const patchWorkspaceBody = z.object({
  name: inputText().trim().min(1).max(200).optional(),
  locales: z.array(localeSchema).min(1).max(50).optional(),
  defaultLocale: localeSchema.optional(),
  customConfig: jsonObjectSchema.nullable().optional(),
  schemaOrg: jsonObjectSchema.nullable().optional(),
  webhookUrl: z.url({ protocol: /^https?$/ }).max(2000).nullable().optional(),
  analytics: analyticsSettingsSchema.nullable().optional(),
  siteUrl: siteUrlSchema.nullable().optional(),
});

export const workspaceIdParams = z.object({ wid: z.string() });

export const apiKeySchema = z.object({ apiKey: z.string() });

export const roleSchema = z.enum(ROLES).describe('`agent`: chats, appointments, submissions; `editor`: also content; `owner`: also settings, keys, plugins, webhooks and the team.');

export const addMemberBody = z.object({ userId: z.string().regex(/^[0-9a-f]{24}$/, 'must be a user id'), role: roleSchema });
