import { Feed } from 'feed';
import { SitemapStream, streamToPromise, type SitemapItemLoose } from 'sitemap';
import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { postUrl } from './preview.service.js';
import { listPublicPosts, publishedPage, type PublicPostItem } from './public-posts.service.js';
import type { PublishedPost } from './published-posts.model.js';
import { byTranslationGroup } from './published-list.js';

// Feeds and the sitemap: published posts as XML for readers and crawlers. Links are absolute
// (`${siteUrl}/${locale}/${slug}`), as RSS, Atom and the sitemap protocol require, so both answer 404
// `site_url_not_set` until the workspace has a site URL. Output depends only on published content, so
// the bytes are stable between writes (cacheable, ETagged).

export const FEED_ITEMS = 50;
/** The sitemap protocol's limit for one file. */
export const SITEMAP_MAX_URLS = 50_000;

const EMPTY_SITEMAP =
  '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"></urlset>';

function siteUrlOf(workspace: Workspace): string {
  if (!workspace.siteUrl) throw fail('site_url_not_set');
  return workspace.siteUrl;
}

/**
 * Characters XML 1.0 cannot carry at all (C0 controls other than tab, newline and return; lone surrogates;
 * U+FFFE and U+FFFF): one of them in any title would make the feed unreadable for every subscriber.
 */
const NOT_IN_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const CDATA_END = ']]>';

/** Text for an element the feed library writes as escaped text. */
const xmlText = (text: string) => text.replace(NOT_IN_XML, '');

/**
 * Text for an element the feed library writes as CDATA (item titles and descriptions). A CDATA section ends
 * at the first `]]>`, so each must be split (`]]]]><![CDATA[>`); xml-js splits the first one itself and
 * no other, so the later ones are split here. `feeds.test.ts` parses a title with three back.
 */
function cdataText(text: string): string {
  const [first, ...rest] = xmlText(text).split(CDATA_END);
  return rest.length === 0 ? first : `${first}${CDATA_END}${rest.join(']]]]><![CDATA[>')}`;
}

export interface FeedQuery {
  locale?: string;
  type: string;
  category?: string;
  format: 'rss' | 'atom';
}

/** The newest 50 published posts of one locale (default: the workspace's default locale) as RSS 2.0 or Atom 1.0. */
export async function feedXml(deps: Deps, workspace: Workspace, query: FeedQuery): Promise<Buffer> {
  const siteUrl = siteUrlOf(workspace);
  const locale = query.locale ?? workspace.defaultLocale;
  // No `fields`: whole items.
  const items = (await listPublicPosts(deps, workspace, { type: query.type, locale, category: query.category, limit: FEED_ITEMS })).items as PublicPostItem[];
  const home = `${siteUrl}/${encodeURIComponent(locale)}`;
  const feed = new Feed({
    title: xmlText(workspace.name),
    id: home,
    link: home,
    language: locale,
    // The newest post, not the clock: the same content must give the same bytes.
    updated: items[0] ? new Date(items[0].publishedAt) : new Date(0),
    generator: 'Hearth',
    copyright: '',
  });
  for (const post of items) {
    const link = postUrl(siteUrl, locale, post.slug)!;
    feed.addItem({
      title: cdataText(post.title),
      id: link,
      link,
      date: new Date(post.publishedAt),
      ...(post.metaDescription ? { description: cdataText(post.metaDescription) } : {}),
      ...(post.authorName ? { author: [{ name: xmlText(post.authorName) }] } : {}),
      ...(post.category ? { category: [{ name: xmlText(post.category.name), term: xmlText(post.category.slug) }] } : {}),
    });
  }
  return Buffer.from(query.format === 'atom' ? feed.atom1() : feed.rss2());
}

/**
 * Every published post, each locale variant its own `<url>` with `lastmod` (its `publishedAt`) and, when it
 * has published translations, `xhtml:link rel="alternate" hreflang` to each variant, itself included.
 */
export async function sitemapXml(deps: Deps, workspace: Workspace): Promise<Buffer> {
  const siteUrl = siteUrlOf(workspace);
  const { items } = await publishedPage(deps, workspace.id, { type: null, locale: null, qPattern: null, page: 1, limit: SITEMAP_MAX_URLS });
  const groups = byTranslationGroup(items);
  const rank = (locale: string) => (workspace.locales.includes(locale) ? workspace.locales.indexOf(locale) : workspace.locales.length);
  const byLocale = (a: PublishedPost, b: PublishedPost) => rank(a.locale) - rank(b.locale) || (a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : 0);
  const urlOf = (post: PublishedPost) => postUrl(siteUrl, post.locale, post.content.slug)!;
  const ordered = [...items].sort((a, b) => byLocale(a, b) || (a.content.slug < b.content.slug ? -1 : 1));
  // The package refuses to end a stream it was given nothing for; an empty urlset is still a valid sitemap.
  if (ordered.length === 0) return Buffer.from(EMPTY_SITEMAP);
  const stream = new SitemapStream({ xmlns: { news: false, video: false, image: false, xhtml: true } });
  const done = streamToPromise(stream);
  for (const post of ordered) {
    const variants = (groups.get(post.translationGroupId) ?? []).sort(byLocale);
    const entry: SitemapItemLoose = { url: urlOf(post), lastmod: post.publishedAt.toISOString() };
    if (variants.length > 1) entry.links = variants.map((variant) => ({ lang: variant.locale, url: urlOf(variant) }));
    stream.write(entry);
  }
  stream.end();
  return done;
}
