import { secretParamsOf, type RouteDef } from './route.js';

/** A URL matched to its declared route: the route and its path parameters, decoded as the router decodes them. */
export interface RouteMatch {
  def: RouteDef;
  params: Record<string, string>;
}

/**
 * A node's route table: the declarations, compiled once, and the one matcher of a URL path to its route.
 * Express registers these very declarations (`mountRoutes`); the fast path and the request log match
 * through `match` and `redact`, so what a URL means is decided in one place.
 */
export interface RouteTable {
  readonly routes: readonly RouteDef[];
  /**
   * The first declared route of `method` whose path `path` (no query) is, as the router reads it: literal
   * segments in any case, one trailing slash ignored, parameters percent-decoded. Undefined when none is,
   * or a parameter is not decodable (the router refuses that: the full path answers it).
   */
  match: (method: RouteDef['method'], path: string, among?: (def: RouteDef) => boolean) => RouteMatch | undefined;
  /**
   * The URL as logs and recordings show it: secret path parameters (see `secretParamsOf`) and key-bearing
   * query values hidden. It runs when the request arrives, before routing (the log line's request fields are
   * bound then), so it matches wider than the router: any method (HEAD and OPTIONS reach a GET's path too),
   * literal segments percent-decoded and in any case, trailing slashes ignored.
   */
  redact: (method: string, url: string) => string;
}

interface Compiled {
  def: RouteDef;
  /** Literal segments lower-cased; parameters as `:name`. */
  segments: string[];
  secrets: string[];
}

/** A URL component as the router reads it: percent-decoded (kept as sent when malformed), any case. */
function asRouted(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return component.toLowerCase();
  }
}

/** Query parameters whose values are credentials, by name as the query parser decodes it (any case). */
const SECRET_QUERY_NAMES = new Set(['publishablekey', 'secret', 'token', 'key', 'preview']);

/**
 * Key-bearing query values never reach a log line, however their names are spelled: `Preview`, `%70review`
 * and `preview[]` are all the `preview` the parser hands the route.
 */
export function redactQuery(query: string): string {
  return query.replace(/([?&])([^=&]*)=([^&]*)/g, (pair, separator: string, name: string) =>
    SECRET_QUERY_NAMES.has(asRouted(name).replace(/\[.*$/, '')) ? `${separator}${name}=[redacted]` : pair,
  );
}

const fits = (segments: string[], parts: string[], literal: (part: string) => string) =>
  segments.length === parts.length && segments.every((segment, i) => (segment.startsWith(':') ? parts[i] !== '' : segment === literal(parts[i])));

export function routeTable(routes: readonly RouteDef[]): RouteTable {
  const compiled: Compiled[] = routes.map((def) => ({
    def,
    segments: def.path.split('/').map((segment) => (segment.startsWith(':') ? segment : segment.toLowerCase())),
    secrets: secretParamsOf(def).map((name) => `:${name}`),
  }));
  const secretRoutes = compiled.filter((route) => route.secrets.length > 0);
  return {
    routes,
    match: (method, path, among) => {
      const parts = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/');
      const found = compiled.find(({ def, segments }) => def.method === method && (!among || among(def)) && fits(segments, parts, (part) => part.toLowerCase()));
      if (!found) return undefined;
      const params: Record<string, string> = {};
      try {
        found.segments.forEach((segment, i) => {
          if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(parts[i]);
        });
      } catch {
        return undefined;
      }
      return { def: found.def, params };
    },
    redact: (_method, url) => {
      const queryAt = url.indexOf('?');
      const path = (queryAt >= 0 ? url.slice(0, queryAt) : url).replace(/(.)\/+$/, '$1');
      const query = queryAt >= 0 ? redactQuery(url.slice(queryAt)) : '';
      const parts = path.split('/');
      const route = secretRoutes.find(({ segments }) => segments.length === parts.length && segments.every((segment, i) => segment.startsWith(':') || segment === asRouted(parts[i])));
      if (!route) return path + query;
      return route.segments.map((segment, i) => (route.secrets.includes(segment) ? '[redacted]' : parts[i])).join('/') + query;
    },
  };
}
