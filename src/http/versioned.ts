import type { Request } from 'express';
import type { Reply } from './route.js';

/**
 * Optimistic concurrency for what people edit: the answer carries the resource's version as a strong
 * `ETag` (`"7"`), and a write sent with `If-Match` applies only while the resource is still at a version
 * it names (else 412 `version_mismatch`). Without `If-Match`, or with `*`, the write applies to whatever
 * version is stored.
 */

/** For the `description` of a route that honours `If-Match`. */
export const IF_MATCH_NOTE =
  'The answer carries the version as a strong `ETag` (also `version` in the body). Send it back in `If-Match` to save only while nobody else changed the item meanwhile: otherwise 412 `version_mismatch`, nothing written (reload, then retry or merge). Only the fields sent are written.';

/** The 412 entry of such a route's `responses`. */
export const VERSION_MISMATCH = 'The item is no longer at the version `If-Match` names (`version_mismatch`); nothing was written.';

/** The versions `If-Match` names; undefined when it is absent or `*` (any version). A tag that names no version of ours matches none. */
export function ifMatchVersions(req: Request): number[] | undefined {
  const header = req.get('if-match');
  if (header === undefined || header.trim() === '*') return undefined;
  return header
    .split(',')
    .map((tag) => /^\s*"(\d{1,15})"\s*$/.exec(tag)?.[1])
    .filter((version): version is string => version !== undefined)
    .map(Number);
}

/** An answer with the resource's version as its `ETag`. */
export function versioned(body: { version: number }, status?: number): Reply {
  return { status, body, headers: { ETag: `"${body.version}"` } };
}
