import type { Response } from 'express';
import { AppError } from '../shared/errors.js';

/** Framework faults a client can cause, from body-parser and friends, as catalogue errors. */
interface FrameworkError {
  type?: string;
  status?: number;
  statusCode?: number;
}

/**
 * The HTTP edge of the error catalogue: any thrown value becomes an `AppError`. Errors a client caused
 * (unreadable bodies, bad encodings) stay 4xx; anything else is an internal error.
 */
export function toAppError(error: unknown, bodyLimitKb: number): AppError | null {
  if (error instanceof AppError) return error;
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
  if (framework?.type && status && status >= 400 && status < 500) return new AppError('bad_request', 'The request body could not be read.');
  return null;
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
