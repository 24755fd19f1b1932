import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, fail } from '../shared/errors.js';
import { sendError, toAppError } from './errors.js';
import { exchangeOf } from './request-log.js';

const EXTERNAL_ALLOWED_HEADERS = 'Content-Type, X-Api-Key, X-Publishable-Key';
const EXPOSED_HEADERS = 'ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id';

/** `/external/*` is called from any site: CORS headers on every answer, errors included; preflights 204. */
export const EXTERNAL_CORS_HEADERS: readonly (readonly [string, string])[] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Allow-Headers', EXTERNAL_ALLOWED_HEADERS],
  ['Access-Control-Allow-Methods', 'GET, POST, OPTIONS'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
  ['Access-Control-Max-Age', '600'],
];

export const VARY_BY_CREDENTIAL = 'X-Api-Key, X-Publishable-Key';

export function externalCors(req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of EXTERNAL_CORS_HEADERS) res.setHeader(name, value);
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}

/** Content answers differ per credential; shared caches must key on it. */
export function varyByCredential(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Vary', VARY_BY_CREDENTIAL);
  next();
}

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction): void {
  next(fail('route_not_found'));
}

/** The one place errors become answers: the spec's `{code, message, issues?}`, never a stack trace. */
export function errorHandler(logger: Logger, bodyLimitKb: number) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let appError = toAppError(error, bodyLimitKb);
    if (!appError) {
      const exchange = exchangeOf(req);
      const requestId = exchange?.logged.id ?? '';
      logger.error({ req: exchange?.logged, err: error, requestId }, 'unhandled error');
      appError = new AppError('internal_error', `Something went wrong on our side (request ${requestId}).`);
    }
    if (res.headersSent) return;
    sendError(res, appError);
  };
}
