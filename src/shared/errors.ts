/**
 * The catalogue of every error the service answers with (the Fastify way: one file, each error a stable
 * code, its HTTP status and its default message). Services throw `fail('<name>')`; only the HTTP edge
 * (`src/http/errors.ts`) turns an error into a response, so no service mentions a status.
 *
 * The key is the name code throws by; `code` is the wire code when two names share one (the same
 * `appointment_not_pending` is a 400 on the visitor's cancel and a 409 on the staff's actions).
 */
interface ErrorEntry {
  status: number;
  message: string;
  code?: string;
}

export const ERRORS = {
  // Requests
  validation_failed: { status: 400, message: 'The request is invalid.' },
  malformed_json: { status: 400, message: 'The body is not valid JSON.' },
  bad_request: { status: 400, message: 'The request could not be read.' },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  request_timeout: { status: 408, message: 'The request took too long to arrive.' },
  payload_too_large: { status: 413, message: 'The body is too large.' },
  unsupported_media_type: { status: 415, message: 'The body encoding or charset is not supported.' },
  malformed_path: { status: 400, message: 'The path is not validly percent-encoded.' },
  malformed_body: { status: 400, message: 'The body could not be decoded (corrupt compression or truncated).' },
  json_too_deep: { status: 400, message: 'The JSON body is nested deeper than the limit.' },
  route_not_found: { status: 404, message: 'No such route.' },
  unknown_event: { status: 404, message: 'No such socket event.' },
  rate_limited: { status: 429, message: 'Too many requests; retry later.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable; retry shortly.' },
  database_unavailable: { status: 503, message: 'The database is unreachable; retry shortly.' },
  engine_busy: { status: 503, message: 'The database is busy; retry shortly.' },
  write_busy: { status: 503, message: 'This item is being changed by another request; retry shortly.' },
  version_mismatch: { status: 412, message: 'The item changed since you read it (If-Match does not name its current version); reload it and retry.' },
  internal_error: { status: 500, message: 'Something went wrong on our side.' },

  // Credentials and sessions
  missing_credential: { status: 401, message: 'A workspace credential is required.' },
  invalid_credential: { status: 401, message: 'The credential is unknown or revoked.' },
  auth_rate_limited: { status: 429, message: 'Too many failed authentications from this address; retry later.', code: 'rate_limited' },
  wrong_credential_kind: { status: 401, message: 'This credential is of the wrong kind for this route.' },
  missing_session: { status: 401, message: 'An `Authorization: Bearer <token>` session is required.' },
  invalid_session: { status: 401, message: 'The session is unknown, expired or revoked.' },
  invalid_credentials: { status: 401, message: 'E-mail or password is wrong.' },
  login_rate_limited: { status: 429, message: 'Too many failed logins; retry later.', code: 'rate_limited' },
  identity_not_verified: { status: 401, message: 'The identity token does not verify for this externalId.' },
  forbidden: { status: 403, message: 'Your role does not allow this action.' },
  operator_only: { status: 403, message: 'Only operators may do this.', code: 'forbidden' },

  // Workspaces, users, keys
  workspace_not_found: { status: 404, message: 'No such workspace.' },
  workspace_slug_taken: { status: 409, message: 'A workspace with this slug exists.', code: 'slug_taken' },
  user_not_found: { status: 404, message: 'No such user.' },
  email_taken: { status: 409, message: 'A user with this e-mail exists.' },
  api_key_not_found: { status: 404, message: 'This workspace has no live API key.' },
  member_not_found: { status: 404, message: 'No such member of this workspace.' },
  last_owner: { status: 409, message: 'A workspace keeps at least one owner: make another member owner first.' },
  already_member: { status: 409, message: 'A user with this e-mail is already a member of this workspace.' },
  invitation_not_found: { status: 404, message: 'The invitation is unknown, revoked, replaced, already used or expired.' },

  // Content
  post_not_found: { status: 404, message: 'No such post.' },
  schedule_not_found: { status: 404, message: 'This post has no such pending scheduled change.' },
  published_post_not_found: { status: 404, message: 'No published post has this slug in the requested locale.', code: 'post_not_found' },
  post_slug_taken: { status: 409, message: 'Another post uses this slug in this locale.', code: 'slug_taken' },
  published_slug_taken: { status: 409, message: 'Another published post uses this slug in this locale.', code: 'slug_taken' },
  translation_exists: { status: 409, message: 'This translation group already has a post in this locale.' },
  post_type_exists: { status: 409, message: 'A post type with this slug exists.' },
  category_not_found: { status: 404, message: 'No such category.' },
  category_slug_taken: { status: 409, message: 'A category with this slug exists.' },
  navigation_not_found: { status: 404, message: 'No such navigation.' },
  navigation_key_taken: { status: 409, message: 'A navigation with this key exists.' },
  site_url_not_set: { status: 404, message: 'The workspace has no siteUrl (PATCH /admin/workspaces/:wid): feeds and sitemaps need absolute links.' },

  // Appointments
  appointments_disabled: { status: 404, message: 'Appointments are not activated or not accepting bookings for this workspace.' },
  slot_in_past: { status: 404, message: 'The requested slot is in the past.' },
  slot_in_lead_time: { status: 404, message: 'The requested slot is inside the minimum notice.' },
  slot_outside_booking_window: { status: 404, message: 'The requested slot is beyond the booking window.' },
  slot_outside_business_hours: { status: 404, message: 'The requested time is not a slot of the business hours.' },
  slot_taken: { status: 404, message: 'The requested slot was just taken.' },
  too_many_pending_requests: { status: 429, message: 'This address holds too many pending requests; retry later.', code: 'rate_limited' },
  appointment_not_found: { status: 404, message: 'No such appointment.' },
  submission_not_found: { status: 404, message: 'No such submission.' },
  appointment_token_not_found: { status: 404, message: 'The cancellation token is unknown, revoked or already used.' },
  cancel_not_pending: { status: 400, message: 'The request can no longer be cancelled.', code: 'appointment_not_pending' },
  appointment_not_pending: { status: 409, message: 'Only PENDING requests can be answered.' },
  appointment_not_confirmed: { status: 409, message: 'Only CONFIRMED appointments can be rescheduled.' },
  appointment_changed: { status: 409, message: 'The appointment changed meanwhile; reload and retry.' },
  appointment_overlap: { status: 409, message: 'Another confirmed appointment overlaps this time.' },
  manage_token_not_found: { status: 404, message: 'The manage link is unknown or has expired.' },
  too_late_to_cancel: { status: 409, message: 'The appointment is too close to be cancelled online.' },
  reschedule_limit_reached: { status: 409, message: 'This appointment cannot be moved again.' },
  manage_slot_taken: { status: 409, message: 'The requested slot is taken.', code: 'slot_taken' },
  invalid_feed_token: { status: 401, message: 'The calendar feed token is missing, unknown or rotated.' },

  // Live chat
  conversation_not_found: { status: 404, message: 'No such conversation.' },
  conversation_closed: { status: 409, message: 'The team closed this conversation; start a new one.' },
  flood_limited: { status: 409, message: 'Too many messages per minute in this conversation; wait a moment.' },
  message_not_found: { status: 404, message: 'No such message in this conversation.' },
  attachment_not_found: { status: 404, message: 'No such file in this conversation.' },
  assignee_not_member: { status: 400, message: 'The assignee must be a member of this workspace.' },
  too_many_conversations: { status: 429, message: 'Too many new conversations from this visitor; retry later.', code: 'rate_limited' },
  conversation_busy: { status: 503, message: 'The conversation is busy; retry shortly.' },
  flood_guard_unavailable: { status: 503, message: 'Messages cannot be counted against the flood limit right now; retry shortly.' },

  // Media
  media_not_found: { status: 404, message: 'No such media file.' },
  media_too_large: { status: 413, message: 'The file is larger than the upload limit.', code: 'payload_too_large' },
  media_type_not_allowed: { status: 415, message: 'The file is not a JPEG, PNG, WebP, AVIF, GIF or PDF (its bytes decide, not its name).', code: 'unsupported_media_type' },
  media_corrupt: { status: 400, message: 'The image could not be read: it is corrupt or truncated.', code: 'corrupt_media' },
  image_too_large: { status: 400, message: 'The image has more pixels than the limit.' },
  media_upload_missing: { status: 400, message: 'Send the file as multipart/form-data in a part named `file`.' },
  not_an_image: { status: 400, message: 'Only images have resized variants.' },
  media_in_use: { status: 409, message: 'This media item is shown by a published post; unpublish it or change its image and body first.' },
  storage_unavailable: { status: 503, message: 'File storage is unreachable; retry shortly.' },

  // Webhooks
  delivery_not_found: { status: 404, message: 'No such webhook delivery in this workspace.' },
  webhook_endpoint_not_found: { status: 404, message: 'No such webhook endpoint in this workspace.' },
  too_many_webhook_endpoints: { status: 409, message: 'This workspace has the most webhook endpoints allowed; delete one first.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorName = keyof typeof ERRORS;

export interface FieldIssue {
  path: string;
  message: string;
}

export interface ErrorDetails {
  issues?: FieldIssue[];
  /** Seconds a client should wait before retrying (429, 503). */
  retryAfterSeconds?: number;
}

/** The one error type of the service. Its status and wire code come from the catalogue above. */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues?: FieldIssue[];
  readonly retryAfterSeconds?: number;

  constructor(
    readonly errorName: ErrorName,
    message?: string,
    details: ErrorDetails = {},
  ) {
    const entry: ErrorEntry = ERRORS[errorName];
    super(message ?? entry.message);
    this.name = 'AppError';
    this.status = entry.status;
    this.code = entry.code ?? errorName;
    this.issues = details.issues;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** Throw with `throw fail('post_not_found')`; a message overrides the catalogue's where it adds facts. */
export function fail(name: ErrorName, message?: string, details?: ErrorDetails): AppError {
  return new AppError(name, message, details);
}

/** A 400 listing one entry per failing field. */
export function invalid(issues: FieldIssue[], message?: string): AppError {
  return new AppError('validation_failed', message, { issues });
}

export function isAppError(error: unknown, name?: ErrorName): error is AppError {
  return error instanceof AppError && (name === undefined || error.errorName === name);
}

/**
 * Zod issues as the spec's field list: one entry per failing field, dotted path. Zod reports every check
 * a value fails (a 250-character e-mail is both too long and not an address): one field's messages are
 * joined into its one entry.
 */
export function issuesFromZod(issues: readonly { path: PropertyKey[]; message: string }[], prefix?: string): FieldIssue[] {
  const byPath = new Map<string, string[]>();
  for (const issue of issues) {
    const path = [prefix, ...issue.path.map(String)].filter((part) => part !== undefined && part !== '').join('.');
    const messages = byPath.get(path) ?? [];
    if (!messages.includes(issue.message)) messages.push(issue.message);
    byPath.set(path, messages);
  }
  return [...byPath].map(([path, messages]) => ({ path, message: messages.join('; ') }));
}
