import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../shared/errors.js';
import { isDatabaseUnavailable, isEngineBusy } from '../db/mongo.js';
import { StorageUnavailableError } from '../db/object-storage.js';

/** Framework faults a client can cause (body-parser, the router, zlib), as they arrive here. */
interface FrameworkError {
  name?: string;
  type?: string;
  code?: string;
  status?: number;
  statusCode?: number;
}

const DATABASE_RETRY_AFTER_SECONDS = 5;
const ENGINE_BUSY_RETRY_AFTER_SECONDS = 1;
const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The HTTP edge of the error catalogue: any thrown value becomes an `AppError`. Whatever a client
 * caused (unreadable paths and bodies, bad encodings) stays a 4xx; an unreachable or busy database is a 503
 * with `Retry-After`, and so is unreachable file storage; anything else is null (an internal error).
 */
export function toAppError(error: unknown, bodyLimitKb: number): AppError | null {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return new AppError('database_unavailable', undefined, { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
  if (isEngineBusy(error)) return new AppError('engine_busy', undefined, { retryAfterSeconds: ENGINE_BUSY_RETRY_AFTER_SECONDS });
  if (error instanceof StorageUnavailableError) return new AppError('storage_unavailable', undefined, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
  const framework = error as FrameworkError | null;
  switch (framework?.type) {
    case 'entity.parse.failed':
      return new AppError('malformed_json');
    case 'entity.too.large':
      return new AppError('payload_too_large', `The body exceeds ${bodyLimitKb} KB.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type');
  }
  const status = framework?.status ?? framework?.statusCode;
  if (!status || status < 400 || status >= 500) return null;
  if (framework?.name === 'URIError') return new AppError('malformed_path');
  if (framework?.code?.startsWith('Z_') || framework?.type === 'request.aborted' || framework?.type === 'request.size.invalid') return new AppError('malformed_body');
  return new AppError('bad_request', 'The request could not be read.');
}

/** Writes the spec's error body `{code, message, issues?}` with the headers the error carries. */
export function sendError(res: Response, error: AppError): void {
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  res.status(error.status).json({
    code: error.code,
    message: error.message,
    ...(error.issues ? { issues: error.issues } : {}),
  });
}

/**
 * Faults Node's HTTP parser meets before any request exists (a malformed request line or header, headers
 * over the limit, a request that never finished arriving): answered with the same JSON error body on the
 * raw connection, which is then closed, instead of Node's bodiless default.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const answered = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || answered) {
    socket.destroy();
    return;
  }
  const appError = new AppError(error.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'bad_request');
  const body = JSON.stringify({ code: appError.code, message: appError.message });
  socket.end(
    `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
