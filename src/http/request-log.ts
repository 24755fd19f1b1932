import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { RouteDef } from './route.js';
import { routeTable } from './route-table.js';

export { redactQuery } from './route-table.js';

/** The URL redactor of a route table (`RouteTable.redact`), for callers that hold only the declarations. */
export function urlRedactor(routes: readonly RouteDef[]): (method: string, url: string) => string {
  return routeTable(routes).redact;
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

/** What the log line says of the request: its id, method and URL (redacted). Headers (keys, bearer tokens) never. */
export interface LoggedRequest {
  id: string;
  method: string | undefined;
  url: string;
}

/**
 * The one request log line, whichever way the answer left: once the answer is finished (or the connection
 * closed first), `{req, res: {statusCode}, responseTime}` at info, or at error with `err` for a 5xx.
 */
export function logWhenDone(logger: Logger, req: IncomingMessage, res: ServerResponse, logged: LoggedRequest, startedAt: number): void {
  const done = () => {
    res.removeListener('close', done);
    res.removeListener('finish', done);
    const responseTime = Date.now() - startedAt;
    const line = { req: logged, res: { statusCode: res.statusCode }, responseTime };
    if (res.statusCode >= 500) {
      logger.error({ ...line, err: new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
      return;
    }
    logger.info(line, !req.readableAborted && res.writableEnded ? REQUEST_COMPLETED : 'request aborted');
  };
  res.on('close', done);
  res.on('finish', done);
}

/** One request as the response writer knows it from its arrival: its id and what its log line and recording show. */
export interface Exchange {
  logged: LoggedRequest;
}

const EXCHANGE = Symbol('hearth.exchange');
type WithExchange = IncomingMessage & { [EXCHANGE]?: Exchange };

/** Keeps the exchange with its request (`exchangeOf`). */
export function startExchange(req: IncomingMessage, logged: LoggedRequest): Exchange {
  const exchange = { logged };
  (req as WithExchange)[EXCHANGE] = exchange;
  return exchange;
}

/** The exchange the writer opened for this request, if it did. */
export function exchangeOf(req: IncomingMessage): Exchange | undefined {
  return (req as WithExchange)[EXCHANGE];
}
