import type { Deps } from '../deps.js';
import { claimOnce } from '../db/once.js';
import { emailStore, type MailAttachment, type OutboxEmail } from './email.model.js';

export type { MailAttachment } from './email.model.js';

/** A rendered mail; templates produce everything but the recipient. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: MailAttachment[];
}

export const EMAIL_SEND_JOB = 'email.send';
/** Attempts before a mail is marked `failed`; with the default 30 s base the schedule spans about 9 hours. */
export const EMAIL_MAX_ATTEMPTS = 12;
const EMAIL_MAX_WAIT_MS = 60 * 60 * 1000;
/** How long one attempt's send claim holds: the send job's lock lifetime (email.jobs.ts), after which a crashed run is retried. */
const SEND_CLAIM_WINDOW_MS = 60_000;

/**
 * Who made the server send a workspace's mail, for its hourly ceiling (`MAX_EMAILS_PER_WORKSPACE_PER_HOUR`):
 * - `visitor`: an anonymous client's action (a booking request's receipt and the team's notice of it, a
 *   booking changed through its manage link, a new submission's notice, the chat's away digest).
 *   Counted per workspace over a sliding hour on every node; past the ceiling the mail is dropped, logged
 *   and counted. Anyone holding the public key can cause these, so without a ceiling they are a mailbox, an
 *   outbox and a sender reputation any stranger spends. What such a mail told of (the request, the booking,
 *   the conversation, the submission) stays stored and in the team app; past the ceiling a visitor misses
 *   only the receipt, and the team a notice of something it will find there.
 * - `team`: a member's action or a duty the server owes the team (invitations, answers to visitors,
 *   booking decisions and their reminders, a disabled webhook endpoint). Never counted nor dropped: their
 *   number is what members do, and each is something a person did on purpose.
 * Account mails (`workspaceId` null: password resets) belong to no workspace and are not counted here.
 */
export type MailCause = 'visitor' | 'team';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Stores the mail in the outbox and enqueues its send job. Never throws: SMTP trouble is the job's
 * to retry, and even a storage failure is logged rather than failing the request that caused the mail.
 * Without `SMTP_URL` the mail is kept as `unsent` (and logged); a worker started with SMTP sends it.
 * `cause` says whether it counts against the workspace's hourly ceiling (`MailCause`).
 * `onceId` (24 hex digits) makes the mail its id: writers racing to send the same mail store it once.
 * `workspaceId` null is an account mail (a password reset): kept and sent alike, listed in no workspace's
 * outbox. `sensitive` (a body holding a one-time link) blanks the stored body once the mail is settled.
 */
export async function queueEmail(
  deps: Deps,
  workspaceId: string | null,
  mail: OutgoingMail,
  options: { cause: MailCause; onceId?: string; sensitive?: boolean },
): Promise<void> {
  try {
    if (workspaceId && options.cause === 'visitor' && !(await withinHourlyCeiling(deps, workspaceId, mail))) return;
    const state = deps.config.SMTP_URL ? 'queued' : 'unsent';
    const email = await emailStore(deps.db).create(workspaceId, { ...mail, state, sensitive: options.sensitive }, options.onceId);
    // A mail of this `onceId` is in the outbox already: the writer that made it queued it.
    if (!email) return;
    if (state === 'unsent') {
      deps.logger.warn({ workspaceId, emailId: email.id, to: mail.to, subject: mail.subject }, 'SMTP_URL not set: e-mail kept in the outbox as unsent');
      return;
    }
    await deps.jobs.enqueueUnique(EMAIL_SEND_JOB, { emailId: email.id }, 'emailId');
  } catch (error) {
    deps.logger.error({ err: error, workspaceId, to: mail.to, subject: mail.subject }, 'could not queue e-mail');
  }
}

/**
 * Admits one more visitor-caused mail of the workspace, or drops it (false). The count is a sliding hour
 * kept in Redis for every node; while a configured Redis is unreachable each node counts its own fixed
 * hour instead (a ceiling per node for a while, rather than none or a lost receipt). The first drop of an
 * hour and every hundredth after it are logged with the hour's count, so a flood is seen, not echoed.
 */
async function withinHourlyCeiling(deps: Deps, workspaceId: string, mail: OutgoingMail): Promise<boolean> {
  const limit = deps.config.MAX_EMAILS_PER_WORKSPACE_PER_HOUR;
  const key = `emails-by-visitors:${workspaceId}`;
  const shared = await deps.counters.admitWithin(key, HOUR_MS, limit);
  const admitted = shared ? shared.admitted : (await deps.counters.hit(key, HOUR_MS)).count <= limit;
  if (admitted) return true;
  const { count } = await deps.counters.hit(`emails-dropped:${workspaceId}`, HOUR_MS);
  if (count === 1 || count % 100 === 0) {
    deps.logger.warn({ workspaceId, subject: mail.subject, droppedThisHour: count, limit }, 'e-mail dropped: the workspace reached MAX_EMAILS_PER_WORKSPACE_PER_HOUR for mails visitors cause');
  }
  return false;
}

/** Wait before attempt n+1 after n failures: base × 2^(n-1), capped at one hour. */
export function emailRetryDelay(failures: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, failures - 1), EMAIL_MAX_WAIT_MS);
}

/** The part of nodemailer's transport the outbox needs. */
export interface MailTransport {
  sendMail(message: { from: string; to: string; subject: string; text: string; html?: string; attachments?: MailAttachment[] }): Promise<{ messageId?: string }>;
}

/** SMTP answered 5xx (mailbox unknown, rejected): sending again will not help. Connection trouble and 4xx will. */
function isPermanent(error: unknown): boolean {
  const { responseCode, code } = (error ?? {}) as { responseCode?: number; code?: string };
  if (typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600) return true;
  return code === 'EENVELOPE';
}

/**
 * One send attempt of an outbox mail. Returns when the job should run again (a retry), or null when
 * the mail is settled (sent, failed, kept unsent, or gone).
 */
export async function sendOutboxEmail(deps: Deps, transport: MailTransport | null, emailId: string): Promise<Date | null> {
  const store = emailStore(deps.db);
  const email = await store.byId(emailId);
  if (!email || email.state === 'sent' || email.state === 'failed') return null;
  if (!transport) {
    if (email.state !== 'unsent') {
      await store.recordAttempt(email.id, { state: 'unsent', error: 'SMTP_URL is not configured', nextAttemptAt: null });
    }
    deps.logger.warn({ emailId }, 'SMTP_URL not set: e-mail kept in the outbox as unsent');
    return null;
  }
  // Two runs of one send job at once (the queue's lock is a conditional update, which FerretDB lets two
  // callers win) would both send: an attempt is sent once per window, and the run that loses looks again
  // after the window. By then the mail is sent or has its retry, or its sender crashed mid-send and the
  // claim of a new window lets this run send it: nothing is lost.
  const now = deps.clock.now().getTime();
  const window = Math.floor(now / SEND_CLAIM_WINDOW_MS);
  if (!(await claimOnce(deps.db, `email-send:${email.id}:${email.attempts}:${window}`))) return new Date(now + SEND_CLAIM_WINDOW_MS);
  try {
    const info = await transport.sendMail({
      from: deps.config.MAIL_FROM,
      to: email.to,
      subject: email.subject,
      text: email.text,
      html: email.html || undefined,
      attachments: email.attachments.length ? email.attachments : undefined,
    });
    await store.recordAttempt(email.id, {
      state: 'sent',
      error: null,
      nextAttemptAt: null,
      sentAt: deps.clock.now(),
      messageId: info.messageId ?? null,
      redact: email.sensitive,
    });
    return null;
  } catch (error) {
    const failures = email.attempts + 1;
    const message = error instanceof Error ? error.message : String(error);
    if (isPermanent(error) || failures >= EMAIL_MAX_ATTEMPTS) {
      await store.recordAttempt(email.id, { state: 'failed', error: message, nextAttemptAt: null, redact: email.sensitive });
      deps.logger.error({ err: error, emailId, attempts: failures }, 'e-mail failed for good');
      return null;
    }
    const next = new Date(Date.now() + emailRetryDelay(failures, deps.config.EMAIL_RETRY_BASE_MS));
    await store.recordAttempt(email.id, { state: 'queued', error: message, nextAttemptAt: next });
    deps.logger.warn({ err: error, emailId, attempts: failures, next }, 'e-mail send failed; will retry');
    return next;
  }
}

/** On a worker with SMTP: every mail still waiting (kept `unsent`, or queued before a crash) gets its send job. */
export async function recoverOutbox(deps: Deps): Promise<number> {
  const store = emailStore(deps.db);
  const waiting = await store.waiting();
  for (const email of waiting) {
    if (email.state === 'unsent') await store.setQueued(email.id);
    await deps.jobs.enqueueUnique(EMAIL_SEND_JOB, { emailId: email.id }, 'emailId', { insertOnly: true, at: email.nextAttemptAt ?? undefined });
  }
  return waiting.length;
}

export function toAdminEmail(email: OutboxEmail) {
  return {
    id: email.id,
    to: email.to,
    subject: email.subject,
    state: email.state,
    attempts: email.attempts,
    lastError: email.lastError,
    nextAttemptAt: email.nextAttemptAt?.toISOString() ?? null,
    sentAt: email.sentAt?.toISOString() ?? null,
    createdAt: email.createdAt.toISOString(),
  };
}

export async function listEmails(deps: Deps, workspaceId: string, options: { limit: number; before?: string }) {
  const items = await emailStore(deps.db).list(workspaceId, { limit: options.limit + 1, before: options.before });
  const page = items.slice(0, options.limit);
  return { items: page.map(toAdminEmail), nextBefore: items.length > options.limit ? page[page.length - 1].id : null };
}
