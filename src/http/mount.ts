import { Router, type Express, type Request, type Response } from 'express';
import type { ZodType } from 'zod';
import type { Deps } from '../deps.js';
import { AppError, invalid, issuesFromZod } from '../shared/errors.js';
import type { NodeAuthenticator, Reply, RouteDef } from './route.js';
import { SENT_JSON_BYTES } from './recorder.js';
import { ContentCache, type CachedAnswer, type Rebuild } from '../cache/caches.js';
import { enforceRateLimit } from './rate-limit.js';
import type { RouteTable } from './route-table.js';
import type { AnswerWriter } from './answer-writer.js';

function parse<T>(schema: ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(issuesFromZod(result.error.issues), `Invalid ${where}.`);
  return result.data;
}

function send(res: Response, reply: Reply): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  const status = reply.status ?? 200;
  if (reply.body === undefined) res.status(status).end();
  else if (Buffer.isBuffer(reply.body)) res.status(status).send(reply.body);
  else if (reply.json) sendJsonBytes(res, status, reply.json);
  else res.status(status).json(reply.body);
}

/** JSON serialized already, sent as `res.json` would send it (and left where the recorder looks). */
function sendJsonBytes(res: Response, status: number, json: Buffer): void {
  res.locals[SENT_JSON_BYTES] = json;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.status(status).send(json);
}

/** The cache key of a `cache: 'published'` route: workspace, route, validated params and query (defaults applied). */
function cacheKeyOf(def: RouteDef, context: object, params: unknown, query: unknown): { workspaceId: string; key: string } | undefined {
  const workspaceId = (context as { workspace?: { id: string } | null }).workspace?.id;
  if (def.cache !== 'published' || !workspaceId) return undefined;
  return { workspaceId, key: cacheKeyFor(workspaceId, def, cacheRequestOf(def, params, query)) };
}

/** The request part of a cache key: validated params and query (parsed output has the schema's key order, so equivalent queries serialize alike). */
export function cacheRequestOf(def: RouteDef, params: unknown, query: unknown): string {
  return JSON.stringify([def.params ? params : null, def.query ? query : null]);
}

export function cacheKeyFor(workspaceId: string, def: RouteDef, request: string): string {
  return ContentCache.key(workspaceId, `${def.method} ${def.path}`, request);
}

/** A 200 reply with a body as the content cache keeps it, or undefined (another status, nothing to keep). */
function keptAnswerOf(reply: Reply): CachedAnswer | undefined {
  if ((reply.status ?? 200) !== 200 || reply.body === undefined || reply.kept) return undefined;
  const bytes = Buffer.isBuffer(reply.body) ? reply.body : (reply.json ?? Buffer.from(JSON.stringify(reply.body)));
  return { bytes, headers: reply.headers ?? {} };
}

/**
 * The request a kept answer is built again with, without a reader: no headers, so no `If-None-Match` (a kept
 * answer is the unconditional one). Cached routes read nothing else of their request (see `RouteDef.cache`).
 */
const HEADERLESS_REQUEST = Object.freeze({ headers: Object.freeze({}), get: () => undefined, header: () => undefined }) as unknown as Request;
const NO_RESPONSE = Object.freeze({}) as Response;

/**
 * How the content cache builds a kept answer again after a republish dropped it (pre-warm): the route's
 * handler with its reader's validated params and query, under the workspace's principal as it is now.
 */
function rebuildOf(deps: Deps, authenticator: NodeAuthenticator, def: RouteDef, workspaceId: string, params: unknown, query: unknown): Rebuild {
  return async () => {
    const principal = await authenticator.principalOf(def, workspaceId);
    if (!principal) return undefined;
    const reply = await def.handle({ deps, req: HEADERLESS_REQUEST, res: NO_RESPONSE, params, query, body: {}, ...principal });
    const answer = keptAnswerOf(reply);
    return answer && { answer, dependsOn: reply.dependsOn };
  };
}

/**
 * Registers every route of the table: authenticate (the node's one auth resolution of the declared mode),
 * rate limit by the credential it resolved, validate, call the handler, send its reply. Routes declared
 * `cache: 'published'` are answered from the content cache when it holds the answer; otherwise their 200
 * answer is serialized once and kept. A kept answer, found or just built (or a reply's `kept`, a `remembered`
 * route's), leaves through the writer (`AnswerWriter.kept`), as the fast path's do.
 */
export function mountRoutes(app: Express, deps: Deps, { table, auth: authenticator, writer }: { table: RouteTable; auth: NodeAuthenticator; writer: AnswerWriter }): void {
  const handlers = new Map(table.routes.map((def) => [def, handlerOf(def)] as const));
  // Express tries its routes one by one, each by its path's regular expression, for every request, and an
  // error passed on tried every route after the one that failed. The table finds the route at once, as Express
  // reads paths; what it does not find (OPTIONS, a parameter that does not decode) goes on to Express's routing
  // of the same routes, held in one router, which an error passes as one step on its way to the error handler.
  app.use((req, res, next) => {
    const method = ROUTED_METHODS.get(req.method);
    // `req.path`: the path Express's own routing read (parsed once per request, kept on it).
    const found = method && table.match(method, req.path);
    if (!found) return next();
    req.params = found.params;
    // As Express runs a handler: a rejection goes to the error handlers.
    handlers.get(found.def)!(req, res).catch((error: unknown) => next(error ?? new Error('Rejected promise')));
  });
  const routes = Router();
  // OPTIONS leaves it at once: a router answers OPTIONS with the methods of the routes it passed when nothing
  // else does, where the app's own routing left it to the 404.
  routes.use((req, _res, next) => next(req.method === 'OPTIONS' ? 'router' : undefined));
  for (const def of table.routes) routes[def.method](def.path, handlers.get(def)!);
  app.use(routes);

  function handlerOf(def: RouteDef) {
    return async (req: Request, res: Response) => {
      writer.watch(def, req, res);
      const auth = await authenticator.resolve(deps, def, req);
      const counted = auth.rateSubject ? await enforceRateLimit(deps, auth.rateSubject, res) : undefined;
      const params = parse(def.params, req.params, 'path parameters');
      const query = parse(def.query, { ...(req.query as object) }, 'query parameters');
      const body = parse(def.body, req.body ?? {}, 'body');
      // Cached routes authenticate by key, so their requests are counted: only a counted request is cacheable.
      const cacheable = counted && !def.bypassCache?.(query) ? cacheKeyOf(def, auth.context, params, query) : undefined;
      const sendCached = (answer: CachedAnswer) => writer.kept(req, res, def, answer, counted);
      const cache = deps.cache.content;
      const lookup = cacheable ? cache.lookup(cacheable.key) : undefined;
      if (lookup && 'hit' in lookup) return sendCached(lookup.hit);
      const build = cacheable && lookup ? { ...cacheable, token: lookup.token } : undefined;
      // Another request is building this very answer: it is shared rather than built again, and meanwhile
      // the answer a republish replaced, within its grace, is given at once. (No await unless there is a
      // build: between this look and `building` below no other request may slip in.)
      const running = build && cache.joinBuild(build.key, build.token);
      if (running && lookup && 'stale' in lookup && lookup.stale) return sendCached(lookup.stale);
      const shared = running ? await running : undefined;
      if (shared) return sendCached(shared);
      let share: (answer: CachedAnswer | undefined) => void = () => {};
      if (build) cache.building(build.key, build.token, new Promise((resolve) => (share = resolve)));
      try {
        const reply = await def.handle({ deps, req, res, params, query, body, ...auth.context }).catch(async (error: unknown) => {
          if (auth.onNotFound && error instanceof AppError && error.status === 404) await auth.onNotFound();
          throw error;
        });
        if (res.headersSent) return;
        if (reply.kept) return writer.kept(req, res, def, reply.kept, counted);
        const answer = build && keptAnswerOf(reply);
        if (build && answer) {
          cache.store(build.workspaceId, build.key, answer, build.token, reply.dependsOn, rebuildOf(deps, authenticator, def, build.workspaceId, params, query));
          share(answer);
          return sendCached(answer);
        }
        send(res, reply);
      } finally {
        // Whatever did not end in a shareable answer (an error, another status): waiters build their own.
        share(undefined);
      }
    };
  }
}

/** The route method a request's method is answered by (HEAD by GET's route, as Express does); OPTIONS is Express's. */
const ROUTED_METHODS = new Map<string, RouteDef['method']>([
  ['GET', 'get'],
  ['HEAD', 'get'],
  ['POST', 'post'],
  ['PUT', 'put'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);
