import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type Logger } from 'pino';
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

/** Writes one request's log line: `{req, res: {statusCode}, responseTime}` and its message, at `level`. */
export type RequestLine = (level: 'info' | 'error', logged: LoggedRequest, statusCode: number, responseTime: number, msg: string) => void;

/**
 * The request line writer of a logger. For a logger that formats lines as pino does by default (no mixin, log
 * formatter, stream hook, nested key, message prefix, serializer or stringifier of its own, message key `msg`),
 * the line is put together here from the logger's own pieces (its level-and-time prefix, bindings and ending,
 * `pino.symbols`) and handed to its stream: the same bytes `logger.info` writes, at a fraction of its cost
 * (pino's generic object serializer cost a warm content answer about a tenth of its CPU, bench:content).
 * Any other logger, and any line at `error` (it carries the error), goes through the logger itself.
 */
export function requestLines(logger: Logger): RequestLine {
  const viaLogger: RequestLine = (level, logged, statusCode, responseTime, msg) => {
    const line = { req: logged, res: { statusCode }, responseTime };
    if (level === 'error') logger.error({ ...line, err: new Error(`failed with status code ${statusCode}`) }, msg);
    else logger.info(line, msg);
  };
  const symbols = pino.symbols as typeof pino.symbols & { msgPrefixSym: symbol };
  const held = logger as unknown as Record<symbol, unknown>;
  const formatters = held[symbols.formattersSym] as { log?: unknown } | undefined;
  const hooks = held[symbols.hooksSym] as { streamWrite?: unknown } | undefined;
  const stream = held[symbols.streamSym] as { write?: unknown; [key: symbol]: unknown } | undefined;
  const info = logger.levels.values.info as number | undefined;
  const plain =
    info !== undefined &&
    held[symbols.mixinSym] == null &&
    formatters?.log === undefined &&
    hooks?.streamWrite === undefined &&
    held[symbols.nestedKeySym] == null &&
    !held[symbols.msgPrefixSym] &&
    held[symbols.messageKeySym] === 'msg' &&
    Object.keys(held[symbols.serializersSym] as object).every((key) => !['req', 'res', 'responseTime', 'msg'].includes(key)) &&
    Object.keys(held[symbols.stringifiersSym] as object).length === 0 &&
    typeof stream?.write === 'function' &&
    stream[symbols.needsMetadataGsym] !== true;
  if (!plain) return viaLogger;
  const write = (stream.write as (line: string) => unknown).bind(stream);
  const infoPrefix = (held[symbols.lsCacheSym] as Record<number, string>)[info];
  const time = held[symbols.timeSym] as () => string;
  const end = held[symbols.endSym] as string;
  // Bindings are read per line: a logger's `setBindings` changes them.
  return (level, logged, statusCode, responseTime, msg) => {
    if (level !== 'info') return viaLogger(level, logged, statusCode, responseTime, msg);
    if (logger.levelVal > info) return;
    const { id, method, url } = logged;
    write(
      `${infoPrefix}${time()}${held[symbols.chindingsSym] as string},"req":{"id":${JSON.stringify(id)}${method === undefined ? '' : `,"method":${JSON.stringify(method)}`},"url":${JSON.stringify(url)}},"res":{"statusCode":${statusCode}},"responseTime":${responseTime},"msg":${JSON.stringify(msg)}${end}`,
    );
  };
}

/**
 * The one request log line, whichever way the answer left: once the answer is finished (or the connection
 * closed first), `{req, res: {statusCode}, responseTime}` at info, or at error with `err` for a 5xx.
 */
export function logWhenDone(line: RequestLine, req: IncomingMessage, res: ServerResponse, logged: LoggedRequest, startedAt: number): void {
  const done = () => {
    res.removeListener('close', done);
    res.removeListener('finish', done);
    const responseTime = Date.now() - startedAt;
    if (res.statusCode >= 500) return line('error', logged, res.statusCode, responseTime, 'request errored');
    line('info', logged, res.statusCode, responseTime, !req.readableAborted && res.writableEnded ? REQUEST_COMPLETED : 'request aborted');
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
