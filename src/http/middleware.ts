import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Deps } from '../shared/deps.js';
import { sha256Hex } from '../shared/crypto.js';
import { AppError, notFound, tooManyRequests } from './errors.js';

const SECRET_PATH = /\/(conversations|requests)\/(?!lookup(?:[/?]|$))[^/?]+/g;
const SECRET_QUERY = /([?&](?:publishableKey|secret|token|key)=)[^&]*/gi;

/** Path tokens and key-bearing query parameters never reach the log. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PATH, '/$1/[redacted]').replace(SECRET_QUERY, '$1[redacted]');
}

export function requestLogger(deps: Deps) {
  return pinoHttp({
    logger: deps.logger,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // Only these fields are logged: headers (keys, bearer tokens) never are.
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}

const EXTERNAL_ALLOWED_HEADERS = 'Content-Type, X-Api-Key, X-Publishable-Key';
const EXPOSED_HEADERS = 'ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id';

/** `/external/*` is called from any site: CORS headers on every answer, errors included; preflights 204. */
export function externalCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Headers', EXTERNAL_ALLOWED_HEADERS);
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}

/** What a request is limited by: its credential (key or path token), else its address. */
function rateLimitSubject(req: Request): string {
  const key = req.get('x-api-key') ?? req.get('x-publishable-key') ?? (typeof req.query.publishableKey === 'string' ? req.query.publishableKey : undefined);
  const pathToken = /\/(?:conversations|requests)\/([^/?]+)/.exec(req.path)?.[1];
  const subject = key ?? (pathToken && pathToken !== 'lookup' ? pathToken : undefined);
  return subject ? `cred:${sha256Hex(subject)}` : `ip:${req.ip}`;
}

/** Fixed one-minute window per credential, counted in Redis when present so all nodes share it. */
export function externalRateLimit(deps: Deps) {
  const limit = deps.config.RATE_LIMIT_PER_MINUTE;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { count, resetInMs } = await deps.counters.hit(`rate:${rateLimitSubject(req)}`, 60_000);
    const resetSeconds = Math.max(1, Math.ceil(resetInMs / 1000));
    res.setHeader('RateLimit-Limit', String(limit));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - count)));
    res.setHeader('RateLimit-Reset', String(resetSeconds));
    if (count > limit) throw tooManyRequests(resetSeconds);
    next();
  };
}

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction): void {
  next(notFound('route_not_found', 'No such route.'));
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** The one place errors become answers: the spec's `{code, message, issues?}`, never a stack trace. */
export function errorHandler(deps: Deps) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let appError: AppError;
    const parserError = error as BodyParserError;
    if (error instanceof AppError) appError = error;
    else if (parserError?.type === 'entity.parse.failed') appError = new AppError(400, 'malformed_json', 'The body is not valid JSON.');
    else if (parserError?.type === 'entity.too.large')
      appError = new AppError(413, 'payload_too_large', `The body exceeds ${deps.config.BODY_LIMIT_KB} KB.`);
    else if (parserError?.type && parserError.status && parserError.status < 500)
      appError = new AppError(parserError.status, 'bad_request', 'The request body could not be read.');
    else {
      const requestId = String(req.id ?? '');
      (req.log ?? deps.logger).error({ err: error, requestId }, 'unhandled error');
      appError = new AppError(500, 'internal_error', `Something went wrong on our side (request ${requestId}).`);
    }
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
    res.status(appError.status).json({
      code: appError.code,
      message: appError.message,
      ...(appError.issues ? { issues: appError.issues } : {}),
    });
  };
}
