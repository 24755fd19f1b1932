import type { Response } from 'express';
import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';

/**
 * Fixed one-minute window per subject (the credential a route resolved), counted in Redis when present
 * so all nodes share it. Sets the RateLimit headers on every answer, 429 included.
 */
export async function enforceRateLimit(deps: Deps, subject: string, res: Response): Promise<void> {
  const limit = deps.config.RATE_LIMIT_PER_MINUTE;
  const { count, resetInMs } = await deps.counters.hit(`rate:${subject}`, 60_000);
  const resetSeconds = Math.max(1, Math.ceil(resetInMs / 1000));
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - count)));
  res.setHeader('RateLimit-Reset', String(resetSeconds));
  if (count > limit) throw fail('rate_limited', undefined, { retryAfterSeconds: resetSeconds });
}
