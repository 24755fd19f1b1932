import type { Deps } from '../shared/deps.js';

/** A rendered mail; templates produce everything but the recipient. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Stores the mail in the outbox and enqueues its send job; never throws on SMTP trouble (the job retries).
 * STUB until the Jobs issue lands: the signature is the contract other domains code against.
 */
export async function queueEmail(deps: Deps, workspaceId: string, mail: OutgoingMail): Promise<void> {
  deps.logger.info({ workspaceId, subject: mail.subject }, 'email queued (stub)');
}
