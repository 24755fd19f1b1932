import { offsetOf } from '../shared/paging.js';
import type { PublicPostQuery, PublishedPost } from './published-posts.model.js';

/**
 * The public list from a workspace's kept published posts, as `publishedPostStore.list` answers it from the
 * database: the same filters, the same order (ties by id in the sort's direction) and an exact `total`.
 */
export function listPublished(posts: PublishedPost[], query: PublicPostQuery): { items: PublishedPost[]; total: number } {
  const pattern = query.qPattern !== null ? new RegExp(query.qPattern, 'i') : null;
  const since = query.since?.getTime();
  const matching = posts.filter((post) => {
    const c = post.content;
    if (query.type && post.type !== query.type) return false;
    if (query.locale && post.locale !== query.locale) return false;
    if (pattern && !pattern.test(c.title) && !pattern.test(c.slug)) return false;
    if (query.categoryId && c.categoryId !== query.categoryId) return false;
    if (query.tags?.length && !query.tags.every((tag) => c.tags.includes(tag))) return false;
    if (query.authorName !== undefined && c.authorName !== query.authorName) return false;
    return since === undefined || post.publishedAt.getTime() >= since;
  });
  const { field, direction } = query.sort ?? { field: 'publishedAt', direction: -1 };
  const byField =
    field === 'title'
      ? (a: PublishedPost, b: PublishedPost) => compareCodePoints(a.content.title, b.content.title)
      : (a: PublishedPost, b: PublishedPost) => a.publishedAt.getTime() - b.publishedAt.getTime();
  // Ids are ObjectIds as lowercase hex of one length: their text order is their byte order.
  matching.sort((a, b) => direction * (byField(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  const from = offsetOf(query);
  return { items: matching.slice(from, from + query.limit), total: matching.length };
}

/** Published posts by translation group, each group in the order given. */
export function byTranslationGroup(posts: PublishedPost[]): Map<string, PublishedPost[]> {
  const groups = new Map<string, PublishedPost[]>();
  for (const post of posts) {
    const group = groups.get(post.translationGroupId);
    if (group) group.push(post);
    else groups.set(post.translationGroupId, [post]);
  }
  return groups;
}

/** Strings in code point order, as the database sorts them (UTF-8 bytes); `<` compares UTF-16 units. */
function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const difference = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
}
