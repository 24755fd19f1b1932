import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Reply } from './route.js';

/**
 * Cacheable answers carry a weak ETag and `Vary: X-Api-Key, X-Publishable-Key` (app); `no-cache` lets
 * consumer caches keep them but revalidate each time with `If-None-Match`, answered 304 when unchanged.
 */
const REVALIDATE = { 'Cache-Control': 'no-cache' };

/** For the `description` of a route that answers through `conditionalGet`. */
export const CONDITIONAL_GET_NOTE =
  'Answers carry a weak `ETag`, `Cache-Control: no-cache` and `Vary: X-Api-Key, X-Publishable-Key`; send `If-None-Match` to get a bodiless 304 when nothing changed.';

/** The 304 entry of such a route's `responses`. */
export const NOT_MODIFIED = 'Unchanged since the ETag in `If-None-Match`.';

/**
 * Answers a GET with a weak ETag over the JSON body, or a bodiless 304 when `If-None-Match` names it.
 * Evaluated here rather than by Express's freshness check, which ignores `If-None-Match` whenever the
 * request says `Cache-Control: no-cache` (as Node's fetch does for conditional requests): an origin
 * server evaluates the condition regardless.
 */
export function conditionalGet(req: Request, body: unknown): Reply {
  const json = Buffer.from(JSON.stringify(body));
  const etag = `W/"${json.length.toString(16)}-${createHash('sha1').update(json).digest('base64url')}"`;
  const headers = { ...REVALIDATE, ETag: etag };
  if (ifNoneMatchNames(req, etag)) return { status: 304, headers };
  return { body, json, headers };
}

/**
 * The same for an answer that is not JSON (feeds, sitemap): the bytes as they are sent, with their
 * content type, which the content cache keeps with them.
 */
export function conditionalGetBytes(req: Request, bytes: Buffer, contentType: string): Reply {
  const etag = `W/"${bytes.length.toString(16)}-${createHash('sha1').update(bytes).digest('base64url')}"`;
  const headers = { ...REVALIDATE, ETag: etag, 'Content-Type': contentType };
  if (ifNoneMatchNames(req, etag)) return { status: 304, headers };
  return { body: bytes, headers };
}

/** True when the request's `If-None-Match` names this weak ETag (or is `*`). */
export function ifNoneMatchNames(req: Request, etag: string): boolean {
  return etagNamedBy(req.get('if-none-match'), etag);
}

/** True when an `If-None-Match` value names this weak ETag (or is `*`). */
export function etagNamedBy(presented: string | undefined, etag: string): boolean {
  if (!presented) return false;
  const tags = presented.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag.replace(/^W\//, ''));
}
