import { Types } from 'mongoose';
import type { ImportedPost, PostContent } from '../../src/posts/posts.model.js';
import { contentHash } from '../../src/posts/publication.service.js';
import { renderMarkdown } from '../../src/posts/markdown.js';

/**
 * A published post for `postStore(db).importPublished` (benchmarks and tests that need thousands of posts
 * without an API call each): these fields, every other content field at its default, in a group of its own.
 */
export function publishedForImport(fields: { postTypeId: string; locale: string; slug: string; title: string; metaDescription?: string; markdown: string; publishedAt: Date }): ImportedPost {
  const content: PostContent = {
    slug: fields.slug,
    canonicalSlug: fields.slug,
    title: fields.title,
    metaDescription: fields.metaDescription ?? '',
    imageUrl: '',
    imageMediaId: null,
    bodyMediaIds: [],
    tags: [],
    categoryId: null,
    authorName: '',
    customConfig: {},
    contentMarkdown: fields.markdown,
    contentHtml: renderMarkdown(fields.markdown),
    jsonLd: null,
  };
  const { postTypeId, locale, publishedAt } = fields;
  return { type: 'blog', postTypeId, locale, translationGroupId: new Types.ObjectId().toHexString(), content, publishedAt, hash: contentHash(content) };
}
