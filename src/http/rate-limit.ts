import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import type { Deps } from '../deps.js';
import type { CounterGuard, WindowCount } from '../db/counters.js';
import { fail } from '../shared/errors.js';

/**
 * Fixed one-minute window per subject (the credential a route resolved), counted in Redis when present
 * so all nodes share it (a busy subject's counts are taken a few ahead, see `RedisCounters`: its limit
 * may bite that many requests early, never late). Sets the RateLimit headers on every answer, 429 included.
 */
export async function enforceRateLimit(deps: Deps, subject: string, res: Response): Promise<WindowCount> {
  const limit = deps.config.RATE_LIMIT_PER_MINUTE;
  const counted = takeRateCount(res.req) ?? (await countRequest(deps, subject));
  const { remaining, resetSeconds } = rateLimitValues(limit, counted);
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', remaining);
  res.setHeader('RateLimit-Reset', String(resetSeconds));
  if (counted.count > limit) throw fail('rate_limited', undefined, { retryAfterSeconds: resetSeconds });
  return counted;
}

const COUNTED = Symbol('hearth.rateCounted');

/** Counts one request of `subject` in its window. */
export function countRequest(deps: Deps, subject: string): Promise<WindowCount> {
  return deps.counters.hit(`rate:${subject}`, 60_000);
}

/** The same, unless `guard`'s counter has reached its bound (then null, nothing counted). */
export function countRequestUnless(deps: Deps, subject: string, guard: CounterGuard): Promise<WindowCount | null> {
  return deps.counters.hitUnless(`rate:${subject}`, 60_000, guard);
}

/** `countRequestUnless` answered now from counts this node holds; undefined (nothing counted) when it needs Redis. */
export function countRequestUnlessHeld(deps: Deps, subject: string, guard: CounterGuard): WindowCount | null | undefined {
  return deps.counters.hitUnlessHeld(`rate:${subject}`, 60_000, guard);
}

/** The fast path counted this request before handing it on: the full path uses that count, never a second. */
export function markRateCounted(req: IncomingMessage, counted: WindowCount): void {
  (req as IncomingMessage & { [COUNTED]?: WindowCount })[COUNTED] = counted;
}

function takeRateCount(req: IncomingMessage): WindowCount | undefined {
  const holder = req as IncomingMessage & { [COUNTED]?: WindowCount };
  const counted = holder[COUNTED];
  holder[COUNTED] = undefined;
  return counted;
}

/** What a counted request's `RateLimit-Remaining` says, and its `RateLimit-Reset` in seconds. */
export function rateLimitValues(limit: number, { count, resetInMs }: WindowCount): { remaining: string; resetSeconds: number } {
  return { remaining: String(Math.max(0, limit - count)), resetSeconds: Math.max(1, Math.ceil(resetInMs / 1000)) };
}

/** The RateLimit headers of a counted request, as `enforceRateLimit` sets them, in that order. */
export function rateLimitHeaders(limit: number, counted: WindowCount): string[] {
  const { remaining, resetSeconds } = rateLimitValues(limit, counted);
  return ['RateLimit-Limit', String(limit), 'RateLimit-Remaining', remaining, 'RateLimit-Reset', String(resetSeconds)];
}
