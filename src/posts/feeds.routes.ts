import { z } from 'zod';
import { conditionalGetBytes, NOT_MODIFIED } from '../http/conditional-get.js';
import { route, type RouteDef } from '../http/route.js';
import { slugSchema } from '../shared/slug.js';
import { localeSchema } from '../workspaces/workspaces.schemas.js';
import { feedXml, sitemapXml } from './feeds.service.js';
import { typeSlugSchema } from './posts.schemas.js';

const KEY_401 = 'Missing, unknown, revoked or wrong-kind key.';
const NO_SITE_URL = '`site_url_not_set`: the workspace has no `siteUrl` (set it with `PATCH /admin/workspaces/:wid`).';
const LINKS_AND_CACHE = [
  'Post links are `${siteUrl}/${locale}/${slug}` (locale and slug percent-encoded), `siteUrl` being the workspace setting of `PATCH /admin/workspaces/:wid`. Feeds and sitemaps need absolute links, so without `siteUrl` the answer is 404 `site_url_not_set`.',
  'Cached with the other content reads and dropped by the same writes. Answers carry a weak `ETag` and `Cache-Control: no-cache`; send `If-None-Match` to get a bodiless 304 when nothing changed.',
];

export const feedQuery = z.object({
  locale: localeSchema.optional(),
  type: z.union([z.literal('*'), typeSlugSchema]).default('blog'),
  category: slugSchema.optional(),
  format: z.enum(['rss', 'atom']).default('rss'),
});

const CONTENT_TYPES = { rss: 'application/rss+xml; charset=utf-8', atom: 'application/atom+xml; charset=utf-8' } as const;

export const feedRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/external/feed.xml',
    cache: 'published',
    summary: 'RSS 2.0 or Atom feed of published posts',
    description: [
      'The newest 50 published posts of one locale, newest first. `locale` defaults to the workspace `defaultLocale`; `type` defaults to `blog` (`*`: every type); `category=<slug>` narrows to one category (an unknown slug gives an empty feed). `format=rss` (default, `application/rss+xml`) or `format=atom` (`application/atom+xml`). Bad values are 400 with issues.',
      'Each item: title, link (also its id/guid), `publishedAt` as its date, `metaDescription` as its description, author and category when set. The channel link is `${siteUrl}/${locale}`; its updated date is the newest post\'s `publishedAt`.',
      ...LINKS_AND_CACHE,
    ].join('\n\n'),
    tags: ['External: content'],
    auth: 'workspaceKey',
    query: feedQuery,
    responses: { 200: { description: 'The feed (XML).' }, 304: NOT_MODIFIED, 400: 'Invalid query parameter.', 401: KEY_401, 404: NO_SITE_URL },
    handle: async ({ deps, req, workspace, query }) => ({ ...conditionalGetBytes(req, await feedXml(deps, workspace, query), CONTENT_TYPES[query.format]), dependsOn: ['posts'] }),
  }),
  route({
    method: 'get',
    path: '/external/sitemap.xml',
    cache: 'published',
    summary: 'Sitemap of every published post',
    description: [
      'One `<url>` per published post and locale (every type, at most 50,000), `lastmod` its `publishedAt`. A post with published translations lists each variant, itself included, as `<xhtml:link rel="alternate" hreflang="<locale>">`. Ordered by workspace locale order, then slug. `application/xml`.',
      ...LINKS_AND_CACHE,
    ].join('\n\n'),
    tags: ['External: content'],
    auth: 'workspaceKey',
    responses: { 200: { description: 'The sitemap (XML).' }, 304: NOT_MODIFIED, 401: KEY_401, 404: NO_SITE_URL },
    handle: async ({ deps, req, workspace }) => ({ ...conditionalGetBytes(req, await sitemapXml(deps, workspace), 'application/xml; charset=utf-8'), dependsOn: ['posts'] }),
  }),
];
