export interface FieldIssue {
  path: string;
  message: string;
}

/** The one error type of the service; `errorHandler` turns it into the spec's error body. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues?: FieldIssue[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const validation = (issues: FieldIssue[], message = 'The request is invalid.') =>
  new AppError(400, 'validation_failed', message, issues);
export const badRequest = (code: string, message: string) => new AppError(400, code, message);
export const unauthorized = (code = 'unauthorized', message = 'Missing, invalid or revoked credential.') =>
  new AppError(401, code, message);
export const wrongCredentialKind = () =>
  new AppError(401, 'wrong_credential_kind', 'This credential is of the wrong kind for this route.');
export const forbidden = (message = 'Your role does not allow this action.') => new AppError(403, 'forbidden', message);
export const notFound = (code = 'not_found', message = 'The resource does not exist.') => new AppError(404, code, message);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const tooManyRequests = (retryAfterSeconds: number, message = 'Too many requests; retry later.') =>
  new AppError(429, 'rate_limited', message, undefined, { 'Retry-After': String(retryAfterSeconds) });

/** Zod issues as the spec's field list: one entry per failing field, dotted path. */
export function issuesFromZod(issues: readonly { path: PropertyKey[]; message: string }[], prefix?: string): FieldIssue[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== undefined && part !== '').join('.'),
    message: issue.message,
  }));
}
