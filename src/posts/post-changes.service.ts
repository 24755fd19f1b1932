import type { Deps } from '../deps.js';
import { invalid } from '../shared/errors.js';
import { isObjectIdHex } from '../shared/ids.js';
import { postChangeStore, type ChangePosition, type PostChange, type PostChangeKind } from './post-changes.model.js';

// The change log a static site generator syncs from: one entry per public change of a post, written by
// the publication rules before they announce the change (so the cache drop follows the entry).

export const MAX_CHANGES_PAGE = 500;

export async function recordChange(deps: Deps, workspaceId: string, post: { id: string; slug: string; locale: string }, change: PostChangeKind): Promise<void> {
  await postChangeStore(deps.db).record(workspaceId, { postId: post.id, slug: post.slug, locale: post.locale, change, at: deps.clock.now() });
}

/** The cursor handed out as `next`: opaque to clients (base64url of `<epoch ms>:<entry id>`). */
export function encodeCursor(change: Pick<PostChange, 'at' | 'id'>): string {
  return Buffer.from(`${change.at.getTime()}:${change.id}`).toString('base64url');
}

const ISO = /^\d{4}-\d{2}-\d{2}T/;

/** `since` as a position: an ISO date-time (inclusive) or a cursor (strictly after it). */
function positionOf(since: string | undefined): ChangePosition | null {
  if (since === undefined) return null;
  if (ISO.test(since)) return { at: new Date(since), id: null };
  const [ms, id] = Buffer.from(since, 'base64url').toString('utf8').split(':');
  if (!/^\d{1,15}$/.test(ms ?? '') || !id || !isObjectIdHex(id)) {
    throw invalid([{ path: 'since', message: 'must be an ISO 8601 date-time or a `next` cursor of this feed' }]);
  }
  return { at: new Date(Number(ms)), id };
}

const START = encodeCursor({ at: new Date(0), id: '000000000000000000000000' });

export async function listChanges(deps: Deps, workspaceId: string, query: { since?: string; limit?: number }) {
  const limit = query.limit ?? MAX_CHANGES_PAGE;
  // One more than the page tells whether another page follows.
  const found = await postChangeStore(deps.db).after(workspaceId, positionOf(query.since), limit + 1);
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((entry) => ({ postId: entry.postId, slug: entry.slug, locale: entry.locale, change: entry.change, at: entry.at.toISOString() })),
    next: last ? encodeCursor(last) : (query.since ?? START),
    hasMore: found.length > limit,
  };
}
