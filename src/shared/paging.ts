import { z } from 'zod';

/** A page request: 1-indexed page and its size. */
export interface PageRequest {
  page: number;
  limit: number;
  /**
   * false: no count is made (on FerretDB a count scans what the filter matches); one more than the page is
   * read instead, so `total` counts only up to one past this page and `hasNext` stays exact.
   */
  withTotal?: boolean;
}

export interface PageInfo {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
}

export interface Page<T> {
  items: T[];
  pageInfo: PageInfo;
}

/** Documents to skip for this page. */
export function offsetOf({ page, limit }: PageRequest): number {
  return (page - 1) * limit;
}

/** `totalPages` is ceil(total / limit) (0 when nothing matches); a page past the end has no next page. */
export function pageInfoOf({ page, limit }: PageRequest, total: number): PageInfo {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 };
}

export function pageOf<T>(request: PageRequest, items: T[], total: number): Page<T> {
  return { items, pageInfo: pageInfoOf(request, total) };
}

export const pageInfoSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
  hasNext: z.boolean(),
  hasPrev: z.boolean(),
});

/**
 * `total=false` on a list: skip the count (see `PageRequest.withTotal`) when only `hasNext` matters, as for a
 * list's first paint. Absent or `true`: counted as always.
 */
export const totalQuery = z
  .enum(['true', 'false'])
  .default('true')
  .transform((value) => value === 'true')
  .describe('`false`: nothing is counted (faster on large lists); `pageInfo.total` then counts only up to one past this page, `hasNext` stays exact.');
