import type { Deps } from '../deps.js';
import { fail, invalid, type FieldIssue } from '../shared/errors.js';
import type { Workspace } from '../workspaces/workspaces.service.js';
import { deleteMedia, isImage, mediaByIds, mediaUrl, type MediaItem } from '../media/media.service.js';
import { VARIANT_SIZES } from '../media/media.schemas.js';
import { publishedPostStore } from './published-posts.model.js';
import { renderMarkdown } from './markdown.js';
import type { PostContent, PostFields } from './post-content.model.js';

/*
 * Posts refer to media items of their workspace by id, in two places:
 * - the post's image: `imageMediaId` (wins over `imageUrl` while set);
 * - body images: markdown `![alt](media:<id>)` (or, in given HTML, `<img src="media:<id>">`). The body is
 *   stored with these references; `/external` answers resolve them to the file's absolute, versioned URL
 *   when they show the body, so a moved public address, a rename or a new focal point never leaves a stale
 *   URL in a stored body.
 * Only images may be referred to (a PDF is 400). A published post's media cannot be deleted (409
 * `media_in_use`); a draft's can, and publishing a draft whose media is gone is 400.
 */

const ID = '([0-9a-fA-F]{24})';
/** `![alt](media:<id>` of a markdown image, `<id>` captured (a link to `media:` is no reference: the sanitizer drops it). */
const MARKDOWN_REF = new RegExp(`!\\[[^\\]\\n]*\\]\\(\\s*<?media:${ID}`, 'g');
/** An `<img>` whose `src` is `media:<id>` (sanitize-html writes attributes with double quotes). */
const HTML_IMG = /<img\b[^>]*>/gi;
const HTML_SRC = new RegExp(`\\ssrc="media:${ID}"`, 'i');

/** The media ids a body refers to, in order of appearance, each once (lowercase hex). */
export function bodyMediaIdsOf(markdown: string | null, html: string | null): string[] {
  const ids: string[] = [];
  for (const tag of (html ?? '').match(HTML_IMG) ?? []) {
    const found = HTML_SRC.exec(tag);
    if (found) ids.push(found[1].toLowerCase());
  }
  for (const match of (markdown ?? '').matchAll(MARKDOWN_REF)) ids.push(match[1].toLowerCase());
  return [...new Set(ids)];
}

/** Every media item a content snapshot shows: its image first, then the body's. */
export function mediaIdsOf(content: Pick<PostFields, 'imageMediaId' | 'bodyMediaIds'>): string[] {
  return [...new Set([...(content.imageMediaId ? [content.imageMediaId] : []), ...content.bodyMediaIds])];
}

/**
 * Field issues for media references of a draft being saved: `imageMediaId` and each body reference must be
 * an image of this workspace. `bodyPath` names the body field the references came in.
 */
export async function mediaIssues(
  deps: Deps,
  workspace: Workspace,
  refs: { imageMediaId?: string | null; bodyMediaIds?: string[]; bodyPath: string },
): Promise<FieldIssue[]> {
  const body = refs.bodyMediaIds ?? [];
  const ids = [...(refs.imageMediaId ? [refs.imageMediaId] : []), ...body];
  if (ids.length === 0) return [];
  const found = await mediaByIds(deps, workspace.id, ids);
  const problem = (id: string) => {
    const media = found.get(id.toLowerCase()) ?? found.get(id);
    if (!media) return 'no such media item in this workspace';
    return isImage(media) ? null : `must be an image (this media item is ${media.contentType})`;
  };
  const issues: FieldIssue[] = [];
  const ofImage = refs.imageMediaId ? problem(refs.imageMediaId) : null;
  if (ofImage) issues.push({ path: 'imageMediaId', message: ofImage });
  const bad = body.map((id) => ({ id, message: problem(id) })).filter((entry) => entry.message);
  if (bad.length) issues.push({ path: refs.bodyPath, message: bad.map((entry) => `media:${entry.id}: ${entry.message}`).join('; ') });
  return issues;
}

/** A publish shows what its draft refers to: every referenced media item must still exist (400 otherwise). */
export async function requireDraftMedia(deps: Deps, workspace: Workspace, draft: PostContent): Promise<void> {
  const issues = await mediaIssues(deps, workspace, { imageMediaId: draft.imageMediaId, bodyMediaIds: draft.bodyMediaIds, bodyPath: draft.contentMarkdown !== null ? 'contentMarkdown' : 'contentHtml' });
  if (issues.length) throw invalid(issues, 'The draft refers to media items that are gone or not images; change the draft before publishing.');
}

/** The post's image (or a body image) as `/external` shows it on the single post. */
export interface PresentedImage {
  id: string;
  url: string;
  width: number;
  height: number;
  alt: string;
  srcset: { width: number; url: string }[];
}

/** The alt text for `locale`: that locale, its language (`de` for `de-AT`), the workspace default, else empty. */
export function altFor(media: MediaItem, locale: string, workspace: Pick<Workspace, 'defaultLocale'>): string {
  const language = locale.split('-')[0];
  return media.alt[locale] ?? media.alt[language] ?? media.alt[workspace.defaultLocale] ?? '';
}

/** The fixed variant widths up to the original's width (never enlarged), each with its URL. */
function srcsetOf(deps: Deps, workspace: Workspace, media: MediaItem) {
  return VARIANT_SIZES.filter((width) => width <= (media.width ?? 0)).map((width) => ({ width, url: mediaUrl(deps, workspace, media, width) }));
}

export function presentImage(deps: Deps, workspace: Workspace, media: MediaItem, locale: string): PresentedImage {
  return {
    id: media.id,
    url: mediaUrl(deps, workspace, media),
    width: media.width ?? 0,
    height: media.height ?? 0,
    alt: altFor(media, locale, workspace),
    srcset: srcsetOf(deps, workspace, media),
  };
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A stored body as `/external` shows it: each `<img src="media:<id>">` gets the file's absolute URL, a
 * `srcset` over the variant widths, its `width`/`height`, and the media's alt text when the body gave none;
 * markdown `](media:<id>` targets get the URL. A reference to a missing item is left as it is.
 */
export function resolveBody(deps: Deps, workspace: Workspace, media: Map<string, MediaItem>, locale: string, body: { contentHtml: string | null; contentMarkdown: string | null }) {
  const html = body.contentHtml?.replace(HTML_IMG, (tag) => {
    const found = HTML_SRC.exec(tag);
    const item = found ? media.get(found[1].toLowerCase()) : undefined;
    if (!item) return tag;
    let out = tag.replace(HTML_SRC, ` src="${escapeAttribute(mediaUrl(deps, workspace, item))}"`);
    const srcset = srcsetOf(deps, workspace, item);
    if (!/\ssrcset=/i.test(out) && srcset.length) out = out.replace(/^<img\b/i, `<img srcset="${escapeAttribute(srcset.map((entry) => `${entry.url} ${entry.width}w`).join(', '))}"`);
    if (!/\swidth=/i.test(out) && item.width && item.height) out = out.replace(/^<img\b/i, `<img width="${item.width}" height="${item.height}"`);
    const alt = altFor(item, locale, workspace);
    if (alt && /\salt=""/i.test(out)) out = out.replace(/\salt=""/i, ` alt="${escapeAttribute(alt)}"`);
    else if (alt && !/\salt=/i.test(out)) out = out.replace(/^<img\b/i, `<img alt="${escapeAttribute(alt)}"`);
    return out;
  });
  const markdown = body.contentMarkdown?.replace(MARKDOWN_REF, (whole, id: string) => {
    const item = media.get(id.toLowerCase());
    return item ? whole.replace(/media:[0-9a-fA-F]{24}/, mediaUrl(deps, workspace, item)) : whole;
  });
  return { contentHtml: html ?? null, contentMarkdown: markdown ?? null };
}

/**
 * Deletes a media item unless a published post shows it (as its image or in its body): 409 `media_in_use`
 * naming those posts and how each shows it. A draft's use does not keep it (that draft's next publish is refused until it is
 * changed). The check and the removal run under the item's lock, which a publish showing it also takes.
 */
export async function deleteMediaUnlessPublished(deps: Deps, workspace: Workspace, id: string): Promise<void> {
  await deleteMedia(deps, workspace, id, async () => {
    const users = await publishedPostStore(deps.db).usingMedia(workspace.id, id.toLowerCase());
    if (users.length === 0) return;
    const names = users.map((post) => `"${post.title}" (${post.id})`).join(', ');
    throw fail('media_in_use', `This media item is shown by published posts: ${names}. Unpublish them or change their image and body first.`, {
      // One issue per use, `posts.<id>.image` or `posts.<id>.body`: a client in another language words it itself.
      issues: users.flatMap((post) => post.as.map((use) => ({ path: `posts.${post.id}.${use}`, message: `${use} of the published post "${post.title}" (${post.locale})` }))),
    });
  });
}

/**
 * The live preview of markdown (admin): rendered and sanitized as a save would, with its `media:<id>` images
 * resolved as `/external` will show them (alt texts of `locale`), so the editor sees the pictures.
 */
export async function renderPreview(deps: Deps, workspace: Workspace, markdown: string, locale = workspace.defaultLocale): Promise<string> {
  const html = renderMarkdown(markdown);
  const media = await mediaByIds(deps, workspace.id, bodyMediaIdsOf(null, html));
  return resolveBody(deps, workspace, media, locale, { contentHtml: html, contentMarkdown: null }).contentHtml ?? '';
}
