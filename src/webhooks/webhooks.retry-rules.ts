import type { Deps } from '../deps.js';

/** Attempts of one delivery at most: the first and five retries. */
export const MAX_ATTEMPTS = 6;
/** A `Retry-After` longer than this is capped: the delivery still ends within a day. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** The wait before retry n (1..5): base × 6^(n-1), ±20% jitter. */
export function retryDelay(retry: number, baseMs: number, random: () => number = Math.random): number {
  const nominal = baseMs * 6 ** (retry - 1);
  return Math.round(nominal * (0.8 + 0.4 * random()));
}

/** `Retry-After` in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  if (/^\s*\d+\s*$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/**
 * When a delivery whose attempt `attempt` failed retryably is tried again, by the node's clock: after
 * `retryDelay`, or after the receiver's `Retry-After` (of a 429) when that is longer.
 */
export function retryAt(deps: Deps, attempt: number, retryAfterHeader: string | string[] | undefined): Date {
  const now = deps.clock.now().getTime();
  const wait = retryDelay(attempt, deps.config.WEBHOOK_RETRY_BASE_MS);
  const retryAfter = parseRetryAfter(retryAfterHeader, now);
  return new Date(now + (retryAfter !== null && retryAfter > wait ? retryAfter : wait));
}
