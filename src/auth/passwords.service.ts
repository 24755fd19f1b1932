import type { Deps } from '../deps.js';
import { hashPassword, randomToken, sha256Hex } from '../shared/crypto.js';
import { invalid } from '../shared/errors.js';
import { teamAppLink } from '../shared/links.js';
import { queueEmail } from '../email/email.service.js';
import { passwordResetMail } from '../email/account.templates.js';
import { checkAccountPassword, findUserByEmail, liveSession, revokeSessionsOf, type User } from './auth.service.js';
import { passwordResetStore } from './password-resets.model.js';
import { userStore } from './auth.model.js';

/** How long a mailed reset link works. */
export const RESET_LINK_TTL_MS = 60 * 60_000;
/** Reset mails per address in any hour; further requests are answered alike and mail nothing. */
export const RESET_MAILS_PER_HOUR = 3;
const HOUR_MS = 60 * 60_000;

/**
 * A signed-in member changes their password: `currentPassword` must be it (a wrong one counts as a failed
 * login, see `checkAccountPassword`). Every other session of the user ends on every node; the one that
 * asked (`token`) stays. Open reset links stop working.
 */
export async function changePassword(
  deps: Deps,
  user: User,
  token: string,
  input: { currentPassword: string; newPassword: string },
  clientIp: string,
): Promise<void> {
  const checked = await checkAccountPassword(deps, user.email, input.currentPassword, clientIp);
  if (checked?.id !== user.id) throw invalid([{ path: 'currentPassword', message: 'is not your current password' }]);
  await userStore(deps.db).setPasswordHash(user.id, await hashPassword(input.newPassword));
  const current = await liveSession(deps, token);
  await revokeSessionsOf(deps, user.id, current?.sessionId);
  await passwordResetStore(deps.db).removeAllOf(user.id);
}

/**
 * Asks for a reset link for `email`. Returns before anything is looked up: the answer, and its timing, are
 * the same whether the address has an account or not. What follows runs on its own and logs its failures:
 * per address (known or not) at most RESET_MAILS_PER_HOUR requests an hour go on; for an account, a link
 * valid RESET_LINK_TTL_MS is stored (its token's hash only) and mailed. The mail is no workspace's: no
 * outbox lists it, and its body is blanked once sent.
 */
export function requestPasswordReset(deps: Deps, email: string): void {
  mailResetLink(deps, email.toLowerCase()).catch((error: unknown) => deps.logger.error({ err: error }, 'password reset: link not mailed'));
}

async function mailResetLink(deps: Deps, email: string): Promise<void> {
  const admission = await deps.counters.admitWithin(`password-reset-mail:${sha256Hex(email)}`, HOUR_MS, RESET_MAILS_PER_HOUR);
  // null: the shared counter is unreachable, so the bound cannot be kept; no mail rather than too many.
  if (!admission?.admitted) return;
  const user = await findUserByEmail(deps, email);
  if (!user) return;
  const token = randomToken('rst_');
  const now = deps.clock.now();
  await passwordResetStore(deps.db).create({ tokenHash: sha256Hex(token), userId: user.id, expiresAt: new Date(now.getTime() + RESET_LINK_TTL_MS), createdAt: now });
  const mail = passwordResetMail({ name: user.name, link: teamAppLink(deps.config, `reset-password/${token}`), validMinutes: RESET_LINK_TTL_MS / 60_000 });
  await queueEmail(deps, null, { to: user.email, ...mail }, { cause: 'team', sensitive: true });
}

const TOKEN_INVALID = () => invalid([{ path: 'token', message: 'is unknown, already used or expired' }], 'The reset link is unknown, already used or expired.');

/**
 * Sets a new password through a mailed link. The link works once: under its lock it is read, checked and
 * spent (deleted) before the answer, so two uses at once find it once. Every session of the user ends on
 * every node, and the user's other reset links stop working.
 */
export async function completePasswordReset(deps: Deps, input: { token: string; password: string }): Promise<void> {
  const store = passwordResetStore(deps.db);
  const found = await store.byHash(sha256Hex(input.token));
  if (!found || found.expiresAt <= deps.clock.now()) throw TOKEN_INVALID();
  const passwordHash = await hashPassword(input.password);
  await store.exclusive(found.id, async () => {
    const current = await store.byId(found.id);
    if (!current || current.expiresAt <= deps.clock.now()) throw TOKEN_INVALID();
    if (!(await userStore(deps.db).setPasswordHash(current.userId, passwordHash))) throw TOKEN_INVALID();
    await store.remove(current.id);
  });
  await store.removeAllOf(found.userId);
  await revokeSessionsOf(deps, found.userId);
}
