import { loadJson, storeJson } from '../db/json-field.js';
import type { PostBody } from './post-bodies.model.js';

/** The fields a publish copies from the draft to the public snapshot (and hashes). */
export interface PostContent {
  slug: string;
  canonicalSlug: string;
  title: string;
  metaDescription: string;
  imageUrl: string;
  /** A media item of the workspace (an image) shown as the post's image; when set it wins over `imageUrl`. */
  imageMediaId: string | null;
  tags: string[];
  categoryId: string | null;
  authorName: string;
  customConfig: Record<string, unknown>;
  contentMarkdown: string | null;
  contentHtml: string | null;
  jsonLd: Record<string, unknown> | null;
  /**
   * The media items the body shows (`![alt](media:<id>)`), in order of appearance: derived from the body
   * at every save, kept beside it so lists and the in-use check need not read bodies.
   */
  bodyMediaIds: string[];
}

/** A content snapshot without its body: what the post document itself carries. */
export type PostFields = Omit<PostContent, keyof PostBody>;

export interface ContentDoc {
  slug: string;
  canonicalSlug: string;
  title: string;
  metaDescription: string;
  imageUrl: string;
  imageMediaId?: string | null;
  tags: string[];
  categoryId: string | null;
  authorName: string;
  customConfigJson: string;
  jsonLdJson: string | null;
  bodyMediaIds?: string[];
}

export const contentFields = {
  slug: { type: String, required: true },
  canonicalSlug: { type: String, required: true },
  title: { type: String, required: true },
  metaDescription: { type: String, default: '' },
  imageUrl: { type: String, default: '' },
  imageMediaId: { type: String, default: null },
  tags: { type: [String], default: [] },
  categoryId: { type: String, default: null },
  authorName: { type: String, default: '' },
  customConfigJson: { type: String, default: '{}' },
  jsonLdJson: { type: String, default: null },
  bodyMediaIds: { type: [String], default: [] },
};

export function toFields(doc: ContentDoc): PostFields {
  return {
    slug: doc.slug,
    canonicalSlug: doc.canonicalSlug,
    title: doc.title,
    metaDescription: doc.metaDescription ?? '',
    imageUrl: doc.imageUrl ?? '',
    imageMediaId: doc.imageMediaId ?? null,
    tags: doc.tags ?? [],
    categoryId: doc.categoryId ?? null,
    authorName: doc.authorName ?? '',
    customConfig: loadJson<Record<string, unknown>>(doc.customConfigJson) ?? {},
    jsonLd: loadJson<Record<string, unknown>>(doc.jsonLdJson),
    bodyMediaIds: doc.bodyMediaIds ?? [],
  };
}

/** The stored fields of the content fields a patch names (bodies excluded: they live apart). */
export function fromPatch(patch: Partial<PostContent>): Partial<ContentDoc> {
  const set: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || field === 'contentMarkdown' || field === 'contentHtml') continue;
    if (field === 'customConfig') set.customConfigJson = storeJson(value) ?? '{}';
    else if (field === 'jsonLd') set.jsonLdJson = storeJson(value);
    else set[field] = value;
  }
  return set;
}

/** A whole snapshot as stored: every content field, by the same mapping as a patch. */
export const fromContent = (content: PostFields): ContentDoc => fromPatch(content) as ContentDoc;

export const bodyOf = (content: PostContent): PostBody => ({ contentMarkdown: content.contentMarkdown, contentHtml: content.contentHtml });
