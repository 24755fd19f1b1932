import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { contentHash } from '../../src/posts/publication.service.js';
import { bodyMediaIdsOf } from '../../src/posts/post-media.service.js';
import { renderMarkdown } from '../../src/posts/markdown.js';
import type { PostContent } from '../../src/posts/posts.model.js';

const before = {
  slug: 'a', canonicalSlug: 'a', title: 'A', metaDescription: '', imageUrl: '', tags: [], categoryId: null,
  authorName: '', customConfig: {}, contentMarkdown: 'Hi', contentHtml: '<p>Hi</p>\n', jsonLd: null,
};
/** The hash as it was computed before posts could refer to media (sorted keys, SHA-256). */
const hashBefore = (content: Record<string, unknown>) =>
  createHash('sha256').update(JSON.stringify(Object.fromEntries(Object.entries(content).sort(([a], [b]) => (a < b ? -1 : 1))))).digest('hex');

describe('the content hash with media references', () => {
  test('a post without media hashes as before media references existed (no false "unpublished changes", no re-stamp)', () => {
    const content: PostContent = { ...before, imageMediaId: null, bodyMediaIds: [] };
    expect(contentHash(content)).toBe(hashBefore(before));
  });

  test('an image from the library is part of the hash; the derived body list is not (the body is)', () => {
    const plain: PostContent = { ...before, imageMediaId: null, bodyMediaIds: [] };
    expect(contentHash({ ...plain, imageMediaId: 'aaaaaaaaaaaaaaaaaaaaaaaa' })).not.toBe(contentHash(plain));
    expect(contentHash({ ...plain, bodyMediaIds: ['aaaaaaaaaaaaaaaaaaaaaaaa'] })).toBe(contentHash(plain));
  });
});

describe('body references', () => {
  const a = '0123456789abcdef01234567';
  const b = '0123456789abcdef01234568';

  test('markdown images and given HTML images, in order, each once, lowercased', () => {
    const markdown = `![x](media:${a}) and ![y](media:${b.toUpperCase()}) and again ![z](media:${a})`;
    expect(bodyMediaIdsOf(markdown, renderMarkdown(markdown))).toEqual([a, b]);
    expect(bodyMediaIdsOf(null, `<p><img src="media:${b}" alt="" /></p>`)).toEqual([b]);
  });

  test('the sanitizer keeps media: on images only; other schemes and places are not references', () => {
    expect(renderMarkdown(`![x](media:${a})`)).toContain(`src="media:${a}"`);
    expect(renderMarkdown(`[link](media:${a})`)).not.toContain('href="media:');
    expect(bodyMediaIdsOf(`[link](media:${a})`, renderMarkdown(`[link](media:${a})`))).toEqual([]);
    expect(bodyMediaIdsOf(null, renderMarkdown('![x](javascript:alert(1))'))).toEqual([]);
  });
});
