import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { Logger } from 'pino';
import type { WindowCount } from '../db/counters.js';
import type { CachedAnswer } from '../cache/content-cache.js';
import type { RouteDef } from './route.js';
import { etagNamedBy } from './conditional-get.js';
import { EXTERNAL_CORS_HEADERS, VARY_BY_CREDENTIAL } from './middleware.js';
import { rateLimitHeaders, rateLimitValues } from './rate-limit.js';
import { REQUEST_COMPLETED, exchangeOf, logWhenDone, requestLines, startExchange, type Exchange, type RequestIds } from './request-log.js';
import { responseRecorder } from './recorder.js';

/**
 * A node's one response writer: every request's id and log line, the recording of every answer for the
 * contract replay, and the writing of kept answers (the content cache's bytes, a `remembered` route's). A kept answer leaves by
 * `kept` whether the fast path found it before Express parsed anything or the Express mount found, shared or
 * just built it: same status, headers in the same order, ETag and 304, log line and recording.
 */
export interface AnswerWriter {
  /** Starts an exchange on the Express path: its request id (`X-Request-Id`, set now) and its log line, written when the answer is done. */
  open(req: IncomingMessage, res: ServerResponse): Exchange;
  /** Records what Express answers for `def` (handlers' replies and errors), once it is finished. */
  watch(def: RouteDef, req: IncomingMessage, res: Response): void;
  /**
   * Writes a kept answer of `def` (a `cache: 'published'` GET of `/external`, or a `remembered` route's): 200,
   * or 304 when `If-None-Match` names its ETag, with the headers Express's path gives the route: the CORS and
   * Vary ones under `/external`, the RateLimit ones when the request was `counted` (a route that names no
   * credential counts nothing). A request no exchange was opened for (the fast path's) gets its id and log
   * line now, as `early` describes it.
   */
  kept(req: IncomingMessage, res: ServerResponse, def: RouteDef, answer: CachedAnswer, counted: WindowCount | undefined, early?: Early): void;
}

/** A request the fast path answers: when it arrived, and its URL as logged (`RouteTable.redact`), which the fast path keeps per URL. */
export interface Early {
  arrivedAt: number;
  url: string;
}

interface Tails {
  full: string[];
  notModified: string[];
}

export function answerWriter({ logger, redact, requestIdOf, rateLimit, recordDir }: {
  logger: Logger;
  /** The route table's URL redaction, applied as the request arrives. */
  redact: (method: string, url: string) => string;
  requestIdOf: RequestIds;
  rateLimit: number;
  /** Where answers are recorded for the contract replay (tests only); unset in production. */
  recordDir: string | undefined;
}): AnswerWriter {
  const record = responseRecorder(recordDir);
  const line = requestLines(logger);
  /**
   * The head of every kept answer: the id, under `/external` the fixed CORS and Vary headers, and for a
   * counted request the three its count fills in (the last two at `REMAINING_AT`, `RESET_AT` from the end);
   * then the answer's own, which are built once per answer (`tailsOf`).
   */
  const bare = ['X-Request-Id', ''];
  const external = [...bare];
  for (const [name, value] of EXTERNAL_CORS_HEADERS) external.push(name, value);
  external.push('Vary', VARY_BY_CREDENTIAL);
  const counts = rateLimitHeaders(rateLimit, { count: 0, resetInMs: 0 });
  const heads = {
    external: { uncounted: external, counted: [...external, ...counts] },
    elsewhere: { uncounted: bare, counted: [...bare, ...counts] },
  };
  const REMAINING_AT = 3;
  const RESET_AT = 1;
  const tails = new WeakMap<CachedAnswer, Tails>();
  const tailsOf = (answer: CachedAnswer): Tails => {
    let found = tails.get(answer);
    if (!found) {
      const notModified = Object.entries(answer.headers).flat();
      // A non-JSON answer (feeds, sitemap) keeps the content type it was made with.
      const contentType = answer.headers['Content-Type'] === undefined ? ['Content-Type', 'application/json; charset=utf-8'] : [];
      found = { notModified, full: [...notModified, ...contentType, 'Content-Length', String(answer.bytes.length)] };
      tails.set(answer, found);
    }
    return found;
  };

  return {
    open(req, res) {
      const startedAt = Date.now();
      const id = requestIdOf(req);
      const exchange = startExchange(req, { id, method: req.method, url: redact(req.method ?? '', req.url ?? '') });
      res.setHeader('X-Request-Id', id);
      if (logger.isLevelEnabled('error')) logWhenDone(line, req, res, exchange.logged, startedAt);
      return exchange;
    },
    watch(def, req, res) {
      const url = exchangeOf(req)?.logged.url ?? redact(req.method ?? '', req.url ?? '');
      record?.watch(def, url, res);
    },
    kept(req, res, def, answer, counted, early) {
      // The Express path opened its exchange on arrival; a request the fast path answers gets its id and log
      // line here, without an exchange kept on it (nothing reads one after this).
      const exchange = exchangeOf(req);
      const logged = exchange?.logged ?? { id: requestIdOf(req), method: req.method, url: early?.url ?? redact(req.method ?? '', req.url ?? '') };
      const notModified = answer.headers.ETag !== undefined && etagNamedBy(headerOf(req, 'if-none-match'), answer.headers.ETag);
      const tail = tailsOf(answer);
      const kind = def.path.startsWith('/external/') ? heads.external : heads.elsewhere;
      const head = counted ? kind.counted : kind.uncounted;
      const headers = head.concat(notModified ? tail.notModified : tail.full);
      headers[1] = logged.id;
      if (counted) {
        const { remaining, resetSeconds } = rateLimitValues(rateLimit, counted);
        headers[head.length - REMAINING_AT] = remaining;
        headers[head.length - RESET_AT] = String(resetSeconds);
      }
      // Headers set earlier (the Express path's middlewares) are replaced by these, in this order.
      if (exchange) for (const name of res.getHeaderNames()) res.removeHeader(name);
      res.writeHead(notModified ? 304 : 200, headers);
      if (notModified) res.end();
      else res.end(answer.bytes);
      // A kept answer is handed to the socket whole by `end`: its line needs no wait for 'finish'.
      if (!exchange && logger.isLevelEnabled('info')) line('info', logged, res.statusCode, Date.now() - (early?.arrivedAt ?? Date.now()), REQUEST_COMPLETED);
      // The body is recorded when it is JSON (feeds and the sitemap keep their own type).
      record?.kept(def, logged.url, res, notModified ? 304 : 200, notModified || answer.headers['Content-Type'] !== undefined ? undefined : answer.bytes);
    },
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
