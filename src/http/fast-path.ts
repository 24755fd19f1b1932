import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Deps } from '../deps.js';
import type { NodeAuthenticator, RouteDef } from './route.js';
import type { RouteTable } from './route-table.js';
import type { AnswerWriter } from './answer-writer.js';
import { cacheKeyFor, cacheRequestOf } from './mount.js';
import { countRequestUnless, countRequestUnlessHeld, markRateCounted } from './rate-limit.js';
import type { CounterGuard, WindowCount } from '../db/counters.js';

/** A URL's route, its raw query, its validated params and query, and their `[params, query]` cache request. */
interface Matched {
  def: RouteDef;
  query: Readonly<Record<string, unknown>>;
  parsed: { params: unknown; query: unknown };
  request: string;
  /** The cache key last built for this URL, and its workspace: one workspace's clients repeat a URL. */
  last?: { workspaceId: string; cacheKey: string };
  /** The URL as the request log and the recording show it (secrets redacted), once it was answered here. */
  logged?: string;
}

/**
 * A request this path may answer once counted: its match, its credential's rate subject and throttle (none
 * for a public route: nothing is counted), and for a content-cache read its workspace.
 */
interface Admitted {
  matched: Matched;
  rate?: { subject: string; throttle: CounterGuard };
  workspaceId?: string;
}

/** Matched URLs by raw path + query: the same URL always matches and parses alike, so it is done once. */
const MAX_REMEMBERED_URLS = 10_000;

/** Routes whose warm answers may be served before Express: kept reads of published content, and `remembered` routes. */
const servedEarly = (def: RouteDef) => (def.cache === 'published' && def.path.startsWith('/external/')) || (def.method === 'get' && def.remembered !== undefined);

/** The first path segments (`/external/`, `/media/`) of the routes served early: any other URL goes to Express unread. */
const earlyPrefixesOf = (table: RouteTable) => [...new Set(table.routes.filter(servedEarly).map((def) => `/${def.path.split('/')[1]}/`))];

/**
 * Serves a warm kept answer before Express parses anything, from the node's 'request' event: a content-cache
 * hit of a `cache: 'published'` read, or what a `remembered` route finds in memory (a media variant). It is not
 * a second pipeline: the route comes from the node's route table, the credential from its one auth resolution
 * (remembered keys only; nothing for a public route), the count from its rate limiter (for the routes the full
 * path counts), and the answer leaves through its one writer (`AnswerWriter.kept`), exactly as the Express
 * mount sends the same kept answer.
 * Anything else (another route, a key not remembered, a throttled address, an invalid request, a 429, a
 * miss) goes to `next` (Express) untouched, the rate count it already took handed on.
 */
export function fastPath(
  deps: Deps,
  { table, auth, writer }: { table: RouteTable; auth: NodeAuthenticator; writer: AnswerWriter },
  next: RequestListener,
): RequestListener {
  const shapes = new Map<string, Matched>();
  const limit = deps.config.RATE_LIMIT_PER_MINUTE;
  const prefixes = earlyPrefixesOf(table);

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
    const matched = { def, query, parsed: { params: parsedParams.data, query: parsedQuery.data }, request: cacheRequestOf(def, parsedParams.data, parsedQuery.data) };
    if (shapes.size >= MAX_REMEMBERED_URLS) shapes.clear();
    shapes.set(url, matched);
    return matched;
  };

  /** The route and credential of a request this path may answer, or undefined (Express decides). */
  const admit = (req: IncomingMessage): Admitted | undefined => {
    const matched = match(req.url ?? '');
    if (!matched) return undefined;
    const found = auth.fromMemory(matched.def, { header: (name) => headerOf(req, name), query: matched.query, ip: req.socket.remoteAddress, connection: req.socket });
    if (!found) return undefined;
    const rate = found.rateSubject === undefined ? undefined : { subject: found.rateSubject, throttle: found.throttle };
    if (matched.def.remembered) return { matched, rate };
    const workspaceId = (found.context as { workspace?: { id: string } | null }).workspace?.id;
    // A kept content answer is a counted read of one workspace (cached routes authenticate by key).
    if (!rate || !workspaceId) return undefined;
    return { matched, rate, workspaceId };
  };

  const cacheKeyOf = (matched: Matched, workspaceId: string): string => {
    if (matched.last?.workspaceId !== workspaceId) matched.last = { workspaceId, cacheKey: cacheKeyFor(workspaceId, matched.def, matched.request) };
    return matched.last.cacheKey;
  };

  /** The answer this node keeps for the request: the content cache's, or the `remembered` route's. */
  const keptAnswer = ({ matched, workspaceId }: Admitted) =>
    matched.def.remembered ? matched.def.remembered(deps, matched.parsed.params, matched.parsed.query) : deps.cache.content.hitOnly(cacheKeyOf(matched, workspaceId!));

  /** Writes the kept answer of a request (counted when its route names a credential); false (nothing sent) on a miss or past the limit. */
  const respond = (req: IncomingMessage, res: ServerResponse, admitted: Admitted, counted: WindowCount | undefined, arrivedAt: number): boolean => {
    const { matched } = admitted;
    const hit = counted && counted.count > limit ? undefined : keptAnswer(admitted);
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
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !prefixes.some((prefix) => url.startsWith(prefix)) || hasBody(req)) return next(req, res);
    const arrivedAt = Date.now();
    try {
      const admitted = admit(req);
      if (!admitted) return next(req, res);
      const { rate } = admitted;
      // A public route counts nothing on the full path either: its kept answer goes now, or Express decides.
      if (!rate) return respond(req, res, admitted, undefined, arrivedAt) ? undefined : next(req, res);
      const settle = (counted: WindowCount | null) => {
        if (!counted) return next(req, res);
        if (respond(req, res, admitted, counted, arrivedAt)) return;
        markRateCounted(req, counted);
        next(req, res);
      };
      // Counted only while the address is not throttled for guessing: the full path refuses that, uncounted.
      // A count this node holds answers now; only a round trip to Redis makes the request wait.
      const held = countRequestUnlessHeld(deps, rate.subject, rate.throttle);
      if (held !== undefined) return settle(held);
      countRequestUnless(deps, rate.subject, rate.throttle)
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
