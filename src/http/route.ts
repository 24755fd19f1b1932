import type { Request, Response } from 'express';
import { z, type ZodType } from 'zod';
import type { Deps } from '../deps.js';
import type { CounterGuard } from '../db/counters.js';
import type { Role } from '../shared/roles.js';
import type { CachedAnswer } from '../cache/caches.js';

/**
 * How a route authenticates. `src/access/` resolves the mode into a typed principal before the handler
 * runs (this folder knows only the names):
 * - `workspaceKey`: `X-Api-Key` with an `sk_` key; `ctx.workspace` set.
 * - `publishableKey`: `X-Publishable-Key` (or `publishableKey` query on GET) with a `pk_` key.
 * - `publishableKeyOptional`: as above, but an unknown or missing key leaves `ctx.workspace` null
 *   (the widget config answers `{enabled:false}`); a key of the wrong kind is still 401.
 * - `workspaceOrPublishableKey`: either kind; `ctx.credentialKind` tells which.
 * - `conversationToken` / `cancellationToken` / `manageToken`: the `:token` path parameter is the credential; it is
 *   secret (redacted from logs) and is the rate-limit subject.
 * - `session`: `Authorization: Bearer <token>`; `ctx.user` set.
 * - `member`: a session whose user is a member of `:wid` with at least `role`; `ctx.workspace` set.
 * - `none`: public.
 */
export type AuthMode =
  | 'none'
  | 'workspaceKey'
  | 'publishableKey'
  | 'publishableKeyOptional'
  | 'workspaceOrPublishableKey'
  | 'conversationToken'
  | 'cancellationToken'
  | 'manageToken'
  | 'session'
  | 'member';

/** Auth modes whose credential is the `:token` path parameter. */
export const PATH_TOKEN_MODES: readonly AuthMode[] = ['conversationToken', 'cancellationToken', 'manageToken'];

/**
 * What each auth mode puts into the handler's context. Declared empty here so this folder imports no
 * domain; `src/access/principals.ts` fills it in by declaration merging.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Principals {}

/** What authentication produced: the handler's principal and, for credential-bearing modes, the rate-limit subject. */
export interface Authentication {
  context: object;
  rateSubject?: string;
  /** Called when the handler answers 404: the credential in the path named nothing (a guess to throttle). */
  onNotFound?: () => Promise<void>;
}

/** Resolves a route's declared auth mode for one request (provided by `src/access/`). */
export type Authenticator = (deps: Deps, def: RouteDef, req: Request) => Promise<Authentication>;

/**
 * A credential resolved without the database, and the counter that, once it holds `reached`, means the
 * request must be refused by the full path instead (the address's guessing throttle). A route that names no
 * credential (`none`) resolves to neither: nothing is counted for it, on either path.
 */
export type MemoAuthentication = Omit<Authentication, 'rateSubject'> & ({ rateSubject: string; throttle: CounterGuard } | { rateSubject?: undefined; throttle?: undefined });

/** What the fast path sees of a request: its headers, parsed query, client address and connection. */
export interface RawCredentials {
  header(name: string): string | undefined;
  query: Record<string, unknown>;
  ip: string | undefined;
  /** The request's connection (its socket): what one connection resolved last is kept with it. */
  connection: object;
}

/**
 * A node's one auth resolution (`nodeAuthenticator` in `src/access/`): `resolve` for the Express path, and
 * `fromMemory`, the same resolution of a GET of a key-authenticated or public (`none`) route from remembered
 * answers only, for the fast path (undefined whenever it would need the database, refuse or count a failure:
 * the full path does that).
 */
export interface NodeAuthenticator {
  resolve: Authenticator;
  fromMemory(def: RouteDef, raw: RawCredentials): MemoAuthentication | undefined;
  /**
   * The handler context a key of this workspace gets on a key-authenticated route, without a request (a kept
   * answer built again in the background): the workspace as it is now; undefined for another auth mode or a
   * workspace that is gone.
   */
  principalOf(def: RouteDef, workspaceId: string): Promise<object | undefined>;
}

/** Path parameters that are credentials (a path token, a signed URL's `:sig`): never logged, never recorded. */
export function secretParamsOf(def: Pick<RouteDef, 'auth' | 'path'>): string[] {
  return [...(PATH_TOKEN_MODES.includes(def.auth) ? ['token'] : []), ...(def.path.includes('/:sig/') ? ['sig'] : [])];
}

export type AuthContext<A extends AuthMode> = A extends keyof Principals ? Principals[A] : Record<never, never>;

export type RouteContext<A extends AuthMode, P, Q, B> = {
  deps: Deps;
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
} & AuthContext<A>;

export interface Reply {
  status?: number;
  body?: unknown;
  /** `body` serialized already (by `conditionalGet`, which hashed it): sent as these bytes, not serialized again. */
  json?: Buffer;
  /**
   * An answer the node keeps in memory (a `remembered` route's), sent instead of the rest of the reply through
   * the writer's `kept`: 200, or 304 when `If-None-Match` names its ETag, as the fast path sends it.
   */
  kept?: CachedAnswer;
  headers?: Record<string, string>;
  /** For a cached answer: the published content it shows (`contentTag` in `cache/content-cache.ts`); every post when absent. */
  dependsOn?: string[];
}

/** A response entry: a schema for a success body, or a description for an error (spec error shape). */
export type ResponseSpec = { description: string; schema?: ZodType } | string;

export interface RouteDef<A extends AuthMode = AuthMode, P extends ZodType = ZodType, Q extends ZodType = ZodType, B extends ZodType = ZodType> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path, e.g. `/external/posts/:slug`. */
  path: string;
  summary: string;
  /** Longer text for the API reference; the decisions that shape the route belong here. */
  description?: string;
  tags: string[];
  auth: A;
  /** For `member` routes: the least role allowed (default `agent`). */
  role?: Role;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
  /**
   * `published`: a read of published content of `ctx.workspace`. Its 200 answers are kept serialized (with
   * their ETag) per workspace + route + validated params and query, and answered from memory until a
   * content or settings write of that workspace invalidates them (see `src/cache/`). After a republish dropped
   * one, it may be built again without a request (pre-warm): `handle` then gets the params, query and principal
   * its reader's request had and a request without headers, so such a handler reads nothing of `req` but what
   * `conditionalGet` does, and nothing of `res`.
   */
  cache?: 'published';
  /** For a `cache: 'published'` route: true for a request that must neither be answered from nor kept in the cache. */
  bypassCache?(query: z.output<Q>): boolean;
  /**
   * For a public GET whose warm answer the node keeps in memory of its own (not the content cache): that answer
   * for these validated params and query, found synchronously in memory alone, or undefined whenever anything
   * would have to be read or made (then the handler runs). The fast path serves it before Express; the
   * handler returns the same answer as `kept`, so both leave through the writer alike.
   */
  remembered?(deps: Deps, params: z.output<P>, query: z.output<Q>): CachedAnswer | undefined;
  handle(ctx: RouteContext<A, z.output<P>, z.output<Q>, z.output<B>>): Promise<Reply>;
}

/** Declares a route with full type inference; the same declaration feeds Express and the OpenAPI document. */
export function route<A extends AuthMode, P extends ZodType = ZodType<Record<string, never>>, Q extends ZodType = ZodType<Record<string, never>>, B extends ZodType = ZodType<undefined>>(
  def: RouteDef<A, P, Q, B>,
): RouteDef {
  return def;
}

export const errorBodySchema = z
  .object({
    code: z.string().describe('Stable snake_case error code.'),
    message: z.string().describe('Human-readable sentence.'),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('One entry per failing field on validation errors (400); dotted paths for nested fields.'),
  })
  .meta({ id: 'Error' });
