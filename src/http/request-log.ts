import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { secretParamsOf, type RouteDef } from './route.js';

/** Query parameters whose values are credentials, by name as the query parser decodes it (any case). */
const SECRET_QUERY_NAMES = new Set(['publishablekey', 'secret', 'token', 'key', 'preview']);

/** A URL component as the router reads it: percent-decoded (kept as sent when malformed), any case. */
function asRouted(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return component.toLowerCase();
  }
}

/**
 * Key-bearing query values never reach a log line, however their names are spelled: `Preview`, `%70review`
 * and `preview[]` are all the `preview` the parser hands the route.
 */
export function redactQuery(query: string): string {
  return query.replace(/([?&])([^=&]*)=([^&]*)/g, (pair, separator: string, name: string) =>
    SECRET_QUERY_NAMES.has(asRouted(name).replace(/\[.*$/, '')) ? `${separator}${name}=[redacted]` : pair,
  );
}

/**
 * Builds the URL redactor of a route table: a path shaped like a route with secret path parameters (see
 * `secretParamsOf`) has those segments logged as `[redacted]`, and key-bearing query values are hidden
 * everywhere. It runs when the request arrives, before routing, because the log line's request fields are
 * bound then; so it matches as the router does, and wider: any method (HEAD and OPTIONS reach a GET's path
 * too), literal segments percent-decoded and in any case, trailing slashes ignored.
 */
export function urlRedactor(routes: Pick<RouteDef, 'method' | 'path' | 'auth'>[]): (method: string, url: string) => string {
  const secretRoutes = routes
    .filter((def) => secretParamsOf(def).length > 0)
    .map((def) => ({ segments: def.path.split('/'), secrets: secretParamsOf(def).map((name) => `:${name}`) }));
  return (_method, url) => {
    const queryAt = url.indexOf('?');
    const path = (queryAt >= 0 ? url.slice(0, queryAt) : url).replace(/(.)\/+$/, '$1');
    const query = queryAt >= 0 ? redactQuery(url.slice(queryAt)) : '';
    const parts = path.split('/');
    const route = secretRoutes.find(
      (candidate) =>
        candidate.segments.length === parts.length &&
        candidate.segments.every((segment, index) => segment.startsWith(':') || segment === asRouted(parts[index])),
    );
    if (!route) return path + query;
    return route.segments.map((segment, index) => (route.secrets.includes(segment) ? '[redacted]' : parts[index])).join('/') + query;
  };
}

/** The request's id: the caller's `X-Request-Id` when it is a sane token, else a new one. */
export type RequestIds = (req: IncomingMessage) => string;

/**
 * A node's request ids: its own random prefix and a count. An id only has to tell one request's log lines
 * from every other's (across nodes too), not be unguessable, and a random UUID per request cost a warm
 * content hit several times what the count does.
 */
export function requestIds(): RequestIds {
  const prefix = randomBytes(6).toString('hex');
  let count = 0;
  return (req) => {
    const incoming = req.headers['x-request-id'];
    return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : `${prefix}-${(++count).toString(36)}`;
  };
}

export const REQUEST_COMPLETED = 'request completed';

export function requestLogger(logger: Logger, redact: (method: string, url: string) => string, requestIdOf: RequestIds) {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestIdOf(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // Only these fields are logged: headers (keys, bearer tokens) never are.
    serializers: {
      req: (req: { id: string; method: string; raw: IncomingMessage }) => ({ id: req.id, method: req.method, url: redact(req.method, req.raw.url ?? '') }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}
