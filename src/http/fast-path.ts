import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Deps } from '../deps.js';
import type { NodeAuthenticator, RouteDef } from './route.js';
import type { RouteTable } from './route-table.js';
import type { AnswerWriter } from './answer-writer.js';
import { cacheKeyFor, cacheRequestOf } from './mount.js';
import { countRequestUnless, countRequestUnlessHeld, markRateCounted } from './rate-limit.js';
import type { CounterGuard, WindowCount } from '../db/counters.js';

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

/** Routes whose warm answers may be served before Express: kept reads of published content. */
const servedEarly = (def: RouteDef) => def.cache === 'published' && def.path.startsWith('/external/');

/**
 * Serves a warm cached answer before Express parses anything, from the node's 'request' event. It is not a
 * second pipeline: the route comes from the node's route table, the credential from its one auth resolution
 * (remembered keys only), the count from its rate limiter, and the answer leaves through its one writer
 * (`AnswerWriter.kept`), exactly as the Express mount sends the same kept answer.
 * Anything else (another route, a key not remembered, a throttled address, an invalid request, a 429, a
 * cache miss) goes to `next` (Express) untouched, the rate count it already took handed on.
 */
export function fastPath(
  deps: Deps,
  { table, auth, writer }: { table: RouteTable; auth: NodeAuthenticator; writer: AnswerWriter },
  next: RequestListener,
): RequestListener {
  const shapes = new Map<string, Matched>();
  const limit = deps.config.RATE_LIMIT_PER_MINUTE;

  /** The route and the validated `[params, query]` cache request of a URL, or undefined (Express decides). */
  const match = (url: string): Matched | undefined => {
    const remembered = shapes.get(url);
    if (remembered !== undefined) return remembered;
    const queryAt = url.indexOf('?');
    const found = table.match('get', queryAt >= 0 ? url.slice(0, queryAt) : url, servedEarly);
    if (!found) return undefined;
    const { def, params } = found;
    const query = Object.freeze(queryAt >= 0 ? { ...parseQuery(url.slice(queryAt + 1)) } : {});
    const parsedParams = def.params ? def.params.safeParse(params) : { success: true as const, data: params };
    const parsedQuery = def.query ? def.query.safeParse({ ...query }) : { success: true as const, data: query };
    if (!parsedParams.success || !parsedQuery.success || def.bypassCache?.(parsedQuery.data)) return undefined;
    const matched = { def, query, request: cacheRequestOf(def, parsedParams.data, parsedQuery.data) };
    if (shapes.size >= MAX_REMEMBERED_URLS) shapes.clear();
    shapes.set(url, matched);
    return matched;
  };

  /** The route and credential of a request this path may answer, or undefined (Express decides). */
  const admit = (req: IncomingMessage): Admitted | undefined => {
    const matched = match(req.url ?? '');
    if (!matched) return undefined;
    const found = auth.fromMemory(matched.def, { header: (name) => headerOf(req, name), query: matched.query, ip: req.socket.remoteAddress, connection: req.socket });
    const workspaceId = (found?.context as { workspace?: { id: string } | null } | undefined)?.workspace?.id;
    if (!found?.rateSubject || !workspaceId) return undefined;
    return { matched, rateSubject: found.rateSubject, throttle: found.throttle, workspaceId };
  };

  const cacheKeyOf = (matched: Matched, workspaceId: string): string => {
    if (matched.last?.workspaceId !== workspaceId) matched.last = { workspaceId, cacheKey: cacheKeyFor(workspaceId, matched.def, matched.request) };
    return matched.last.cacheKey;
  };

  /** Writes the cached answer of a counted request; false (nothing sent) on a miss or past the limit. */
  const respond = (req: IncomingMessage, res: ServerResponse, { matched, workspaceId }: Admitted, counted: WindowCount, arrivedAt: number): boolean => {
    const hit = counted.count > limit ? undefined : deps.cache.content.hitOnly(cacheKeyOf(matched, workspaceId));
    if (!hit) return false;
    writer.kept(req, res, matched.def, hit, counted, { arrivedAt, url: (matched.logged ??= table.redact('GET', req.url ?? '')) });
    return true;
  };

  const handOn = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    deps.logger.warn({ err: error }, 'fast path failed; answering through the full path');
    next(req, res);
  };

  return (req, res) => {
    // A GET that carries a body is Express's to parse (and refuse when malformed), as on every other path.
    if (req.method !== 'GET' || !req.url?.startsWith('/external/') || hasBody(req)) return next(req, res);
    const arrivedAt = Date.now();
    try {
      const admitted = admit(req);
      if (!admitted) return next(req, res);
      const settle = (counted: WindowCount | null) => {
        if (!counted) return next(req, res);
        if (respond(req, res, admitted, counted, arrivedAt)) return;
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
