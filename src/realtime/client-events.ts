import type { Logger } from 'pino';
import type { z, ZodType } from 'zod';
import { AppError, fail, invalid, issuesFromZod } from '../shared/errors.js';
import type { EventAnswer } from './events.js';

/**
 * What clients send over a socket, handled the way a route handles a request: Socket.IO hands a listener
 * whatever the client sent (any number of arguments of any JSON or binary type, and the acknowledgement, a
 * function, last when the client asked for one), so nothing is read before it is validated, and nothing a
 * client sends can throw out of a listener (an exception there would end the process).
 */

type Ack = (answer: EventAnswer) => void;

function answerOf(error: AppError): EventAnswer {
  return error.issues ? { ok: false, code: error.code, message: error.message, issues: error.issues } : { ok: false, code: error.code, message: error.message };
}

/** The acknowledgement, taken off the end of the arguments, when the client asked for one. */
function takeAck(args: unknown[]): Ack | undefined {
  return typeof args.at(-1) === 'function' ? (args.pop() as Ack) : undefined;
}

/**
 * The listener of one client event: its one payload is parsed with `schema`, then `handle` (a service call)
 * runs. The acknowledgement, when asked for, gets `{ok: true}` once `handle` is done, or the error body:
 * `validation_failed` with the failing fields for a payload that is not exactly one valid argument, the
 * service's AppError, or `internal_error` for anything else (logged). `this` is the socket, so one listener
 * serves every socket of a namespace (no closure per held socket).
 */
export function clientEvent<T, S extends ZodType>(
  logger: Logger,
  event: string,
  schema: S,
  handle: (socket: T, input: z.output<S>) => void | Promise<unknown>,
): (this: T, ...args: unknown[]) => void {
  return function listener(this: T, ...args: unknown[]) {
    const ack = takeAck(args);
    const refuse = (error: unknown) => {
      if (!(error instanceof AppError)) logger.error({ err: error, event }, 'socket event failed');
      ack?.(answerOf(error instanceof AppError ? error : fail('internal_error')));
    };
    if (args.length !== 1) return refuse(invalid([{ path: '', message: `takes exactly one payload (got ${args.length})` }]));
    const parsed = schema.safeParse(args[0]);
    if (!parsed.success) return refuse(invalid(issuesFromZod(parsed.error.issues)));
    try {
      Promise.resolve(handle(this, parsed.data)).then(() => ack?.({ ok: true }), refuse);
    } catch (error) {
      refuse(error);
    }
  };
}

/**
 * A socket middleware (`socket.use`) that lets through only the events of `names`: any other is dropped, and
 * its acknowledgement, when asked for, answered `unknown_event`, so a client waiting on one is not left to
 * its timeout. Shared by every socket (it keeps no state).
 */
export function knownEventsOnly(names: readonly string[]): (packet: unknown[], next: (error?: Error) => void) => void {
  const known = new Set(names);
  return (packet, next) => {
    if (typeof packet[0] === 'string' && known.has(packet[0])) return next();
    takeAck(packet)?.(answerOf(fail('unknown_event')));
  };
}
