import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Deps } from '../deps.js';
import type { Authentication, RouteDef } from './route.js';
import { cacheKeyFor, cacheRequestOf } from './mount.js';
import { etagNamedBy } from './conditional-get.js';
import { EXTERNAL_CORS_HEADERS, VARY_BY_CREDENTIAL } from './middleware.js';
import { countRequestUnless, countRequestUnlessHeld, markRateCounted, rateLimitHeaders, rateLimitValues } from './rate-limit.js';
import type { CounterGuard, WindowCount } from '../db/counters.js';
import type { CachedAnswer } from '../cache/content-cache.js';
import { REQUEST_COMPLETED, type RequestIds } from './request-log.js';
import { responseRecorder } from './recorder.js';

/**
 * A credential resolved without the database, and the counter that, once it holds `reached`, means the
 * request must be refused by the full path instead (the address's guessing throttle).
 */
export interface MemoAuthentication extends Authentication {
  throttle: CounterGuard;
}

/** What authenticates a request here without the database or Redis (see `memoAuthenticator`). */
export type MemoAuthenticator = (
  deps: Deps,
  def: RouteDef,
  raw: { header(name: string): string | undefined; query: Record<string, unknown>; ip: string | undefined; connection: object },
) => MemoAuthentication | undefined;

interface Candidate {
  def: RouteDef;
  segments: string[];
}

/** A URL's route, its raw query and its validated `[params, query]` cache request. */
interface Matched {
  def: RouteDef;
  query: Readonly<Record<string, unknown>>;
  request: string;
  /** The cache key last built for this URL, and its workspace: one workspace's clients repeat a URL. */
  last?: { workspaceId: string; cacheKey: string };
  /** The URL as the request log and the recording show it (secrets redacted), once it was answered here. */
  logged?: string;
}

/** A request this path may answer once counted: its match, its credential's rate subject and throttle, its workspace. */
interface Admitted {
  matched: Matched;
  rateSubject: string;
  throttle: CounterGuard;
  workspaceId: string;
}

/** Matched URLs by raw path + query: the same URL always matches and parses alike, so it is done once. */
const MAX_REMEMBERED_URLS = 10_000;

/**
 * Answers warm hits of `cache: 'published'` GET routes straight from the node's 'request' event, before
 * Express: the same key check (remembered keys only), rate limit, validation and cache lookup as the
 * mount, then the kept bytes with the very headers (same order), log line and recording (`recorder.ts`)
 * the Express path gives.
 * Anything else — another route, a key not remembered, a throttled address, an invalid request, a
 * 429, a cache miss — goes to `next` (Express) untouched, the rate count it already took handed on.
 */
export function fastPath(
  deps: Deps,
  routes: RouteDef[],
  /** What the Express path shares with this one: the node's credential memo, URL redaction and request ids. */
  { authenticate, redact, requestIdOf }: { authenticate: MemoAuthenticator; redact: (method: string, url: string) => string; requestIdOf: RequestIds },
  next: RequestListener,
): RequestListener {
  const candidates: Candidate[] = routes
    .filter((def) => def.cache === 'published' && def.method === 'get' && def.path.startsWith('/external/'))
    .map((def) => ({ def, segments: def.path.split('/') }));
  const shapes = new Map<string, Matched>();
  const limit = deps.config.RATE_LIMIT_PER_MINUTE;
  const record = responseRecorder(deps.config.RECORD_RESPONSES_DIR);

  /** The route and the validated `[params, query]` cache request of a URL, or undefined (Express decides). */
  const match = (url: string): Matched | undefined => {
    const remembered = shapes.get(url);
    if (remembered !== undefined) return remembered;
    const queryAt = url.indexOf('?');
    const path = queryAt >= 0 ? url.slice(0, queryAt) : url;
    const parts = path.split('/');
    const candidate = candidates.find(({ segments }) => segments.length === parts.length && segments.every((segment, i) => segment.startsWith(':') || segment === parts[i]));
    if (!candidate) return undefined;
    const { def, segments } = candidate;
    const query = Object.freeze(queryAt >= 0 ? { ...parseQuery(url.slice(queryAt + 1)) } : {});
    const params: Record<string, string> = {};
    try {
      segments.forEach((segment, i) => {
        if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(parts[i]);
      });
    } catch {
      return undefined;
    }
    const parsedParams = def.params ? def.params.safeParse(params) : { success: true as const, data: params };
    const parsedQuery = def.query ? def.query.safeParse({ ...query }) : { success: true as const, data: query };
    if (!parsedParams.success || !parsedQuery.success) return undefined;
    const matched = { def, query, request: cacheRequestOf(def, parsedParams.data, parsedQuery.data) };
    if (shapes.size >= MAX_REMEMBERED_URLS) shapes.clear();
    shapes.set(url, matched);
    return matched;
  };

  /** The route and credential of a request this path may answer, or undefined (Express decides). */
  const admit = (req: IncomingMessage): Admitted | undefined => {
    const matched = match(req.url ?? '');
    if (!matched) return undefined;
    const auth = authenticate(deps, matched.def, { header: (name) => headerOf(req, name), query: matched.query, ip: req.socket.remoteAddress, connection: req.socket });
    const workspaceId = (auth?.context as { workspace?: { id: string } | null } | undefined)?.workspace?.id;
    if (!auth?.rateSubject || !workspaceId) return undefined;
    return { matched, rateSubject: auth.rateSubject, throttle: auth.throttle, workspaceId };
  };

  const cacheKeyOf = (matched: Matched, workspaceId: string): string => {
    if (matched.last?.workspaceId !== workspaceId) matched.last = { workspaceId, cacheKey: cacheKeyFor(workspaceId, matched.def, matched.request) };
    return matched.last.cacheKey;
  };

  /**
   * The headers of an answer from the cache, in the order the full path sends them: the fixed ones, the
   * three a request's count fills in (at `REMAINING_AT`, `RESET_AT`, and its id at 1), then the cached
   * answer's own, which are built once per answer (`tailsOf`).
   */
  const head: string[] = ['X-Request-Id', ''];
  for (const [name, value] of EXTERNAL_CORS_HEADERS) head.push(name, value);
  head.push('Vary', VARY_BY_CREDENTIAL, ...rateLimitHeaders(limit, { count: 0, resetInMs: 0 }));
  const REMAINING_AT = head.length - 3;
  const RESET_AT = head.length - 1;
  const tails = new WeakMap<CachedAnswer, { full: string[]; notModified: string[] }>();
  const tailsOf = (hit: CachedAnswer) => {
    let found = tails.get(hit);
    if (!found) {
      const notModified = Object.entries(hit.headers).flat();
      // As `sendCached`: a non-JSON answer (feeds, sitemap) keeps the content type it was made with.
      const contentType = hit.headers['Content-Type'] === undefined ? ['Content-Type', 'application/json; charset=utf-8'] : [];
      found = { notModified, full: [...notModified, ...contentType, 'Content-Length', String(hit.bytes.length)] };
      tails.set(hit, found);
    }
    return found;
  };

  /** Sends the cached answer of a counted request; false (nothing sent) on a miss or past the limit. */
  const respond = (req: IncomingMessage, res: ServerResponse, { matched, workspaceId }: Admitted, counted: WindowCount, startedAt: number): boolean => {
    const hit = counted.count > limit ? undefined : deps.cache.content.hitOnly(cacheKeyOf(matched, workspaceId));
    if (!hit) return false;
    const id = requestIdOf(req);
    const notModified = hit.headers.ETag !== undefined && etagNamedBy(headerOf(req, 'if-none-match'), hit.headers.ETag);
    const tail = tailsOf(hit);
    const headers = head.concat(notModified ? tail.notModified : tail.full);
    const { remaining, resetSeconds } = rateLimitValues(limit, counted);
    headers[1] = id;
    headers[REMAINING_AT] = remaining;
    headers[RESET_AT] = String(resetSeconds);
    const url = (matched.logged ??= redact('GET', req.url ?? ''));
    if (deps.logger.isLevelEnabled('info')) logWhenDone(deps, req, res, id, url, startedAt);
    res.writeHead(notModified ? 304 : 200, headers);
    if (notModified) res.end();
    else res.end(hit.bytes);
    // As `sendCached` records it: the body when it is JSON (feeds and the sitemap keep their own type).
    record?.sent(matched.def, url, notModified ? 304 : 200, notModified || hit.headers['Content-Type'] !== undefined ? undefined : hit.bytes);
    return true;
  };

  const handOn = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    deps.logger.warn({ err: error }, 'fast path failed; answering through the full path');
    next(req, res);
  };

  return (req, res) => {
    // A GET that carries a body is Express's to parse (and refuse when malformed), as on every other path.
    if (req.method !== 'GET' || !req.url?.startsWith('/external/') || hasBody(req)) return next(req, res);
    const startedAt = Date.now();
    try {
      const admitted = admit(req);
      if (!admitted) return next(req, res);
      const settle = (counted: WindowCount | null) => {
        if (!counted) return next(req, res);
        if (respond(req, res, admitted, counted, startedAt)) return;
        markRateCounted(req, counted);
        next(req, res);
      };
      // Counted only while the address is not throttled for guessing: the full path refuses that, uncounted.
      // A count this node holds answers now; only a round trip to Redis makes the request wait.
      const held = countRequestUnlessHeld(deps, admitted.rateSubject, admitted.throttle);
      if (held !== undefined) return settle(held);
      countRequestUnless(deps, admitted.rateSubject, admitted.throttle)
        .then(settle)
        .catch((error: unknown) => handOn(req, res, error));
    } catch (error) {
      handOn(req, res, error);
    }
  };
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The request log line pino-http writes for the full path (`requestLogger`), field for field. */
function logWhenDone(deps: Deps, req: IncomingMessage, res: ServerResponse, id: string, url: string, startedAt: number): void {
  const done = () => {
    res.removeListener('close', done);
    res.removeListener('finish', done);
    const message = !req.readableAborted && res.writableEnded ? REQUEST_COMPLETED : 'request aborted';
    deps.logger.info({ req: { id, method: req.method, url }, res: { statusCode: res.statusCode }, responseTime: Date.now() - startedAt }, message);
  };
  res.on('close', done);
  res.on('finish', done);
}
