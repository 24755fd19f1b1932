import type { Deps } from '../deps.js';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from '../shared/crypto.js';
import { fail, isAppError } from '../shared/errors.js';
import { NAMESPACES, rooms } from '../realtime/events.js';
import { sessionStore, userStore, type User } from './auth.model.js';

export type { User } from './auth.model.js';

// A fixed hash to verify against when the e-mail is unknown, so both failures take the same time.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$' + 'A'.repeat(86);

/**
 * Failed logins are counted per e-mail and per client address, in fixed windows of
 * LOGIN_FAILURE_WINDOW_MINUTES. LOGIN_MAX_FAILURES failures are answered 401 and leave the account
 * usable; the next failure answers 429 and locks: until the window ends, every attempt for that e-mail
 * or from that address answers 429 whatever the password, before the user is looked up or any password
 * hashed. Unknown e-mails are counted, locked and (while not locked) verified against a dummy hash the
 * same way, so the answers and their timing do not tell which e-mails exist.
 *
 * The e-mail's lock stops guessing spread over many addresses, but anyone can set it off: so it does not
 * hold against an address the account logged in from within KNOWN_ADDRESS_DAYS. There only the address's
 * own count applies, and a member keeps working while strangers guess at their e-mail.
 */
export async function login(deps: Deps, email: string, password: string, clientIp: string): Promise<{ token: string; user: User }> {
  const user = await checkAccountPassword(deps, email, password, clientIp);
  if (!user) throw fail('invalid_credentials');
  return openSession(deps, user);
}

/**
 * The account of `email` when `password` is its password, else null; counted as a login attempt (see
 * `login`): a password typed anywhere else (accepting an invitation as an existing account, changing one's
 * password) shares the login's failure budget, and past it answers 429 `login_rate_limited` as login does.
 */
export async function checkAccountPassword(deps: Deps, email: string, password: string, clientIp: string): Promise<User | null> {
  const { LOGIN_MAX_FAILURES, LOGIN_FAILURE_WINDOW_MINUTES } = deps.config;
  const windowMs = LOGIN_FAILURE_WINDOW_MINUTES * 60_000;
  const emailHash = sha256Hex(email.toLowerCase());
  const knownAddress = knownAddressKey(emailHash, clientIp);
  const [known, ...tallies] = await Promise.all([
    deps.counters.peek(knownAddress),
    ...[`email:${emailHash}`, `ip:${clientIp}`].map((subject) => openAttempt(deps, subject, windowMs)),
  ]);
  // From an address the account has logged in from, only that address's count can lock.
  const binding = known > 0 ? tallies.filter((tally) => tally.subject.startsWith('ip:')) : tallies;
  const refuseWhenOver = (failures: (tally: AttemptTally) => number) => {
    const over = binding.filter((tally) => failures(tally) > LOGIN_MAX_FAILURES);
    if (over.length === 0) return;
    const resetInMs = Math.max(...over.map((tally) => tally.resetInMs));
    throw fail('login_rate_limited', undefined, { retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)) });
  };
  refuseWhenOver((tally) => tally.earlierFailures);

  const found = await userStore(deps.db).byEmailWithHash(email);
  const valid = await verifyPassword(password, found?.passwordHash ?? DUMMY_HASH);
  if (!found || !valid) {
    refuseWhenOver((tally) => tally.earlierFailures + 1);
    return null;
  }
  await Promise.all([
    ...tallies.map((tally) => deps.counters.hit(successKey(tally.subject), Math.max(1, tally.resetInMs))),
    deps.counters.hit(knownAddress, KNOWN_ADDRESS_DAYS * 86_400_000),
  ]);
  const { passwordHash: _hash, ...user } = found;
  return user;
}

/** A new session of the user: the answer of a login (and of accepting an invitation). */
export async function openSession(deps: Deps, user: User): Promise<{ token: string; user: User }> {
  const token = randomToken('hs_');
  const expiresAt = new Date(deps.clock.now().getTime() + deps.config.SESSION_TTL_HOURS * 3_600_000);
  await sessionStore(deps.db).create(sha256Hex(token), user.id, expiresAt);
  return { token, user };
}

interface AttemptTally {
  subject: string;
  /** Attempts of this window before this one that did not succeed: failed, or still being verified. */
  earlierFailures: number;
  resetInMs: number;
}

const successKey = (subject: string) => `login-ok:${subject}`;

/** How long an address the account logged in from stays exempt from the e-mail's lock. */
const KNOWN_ADDRESS_DAYS = 30;
const knownAddressKey = (emailHash: string, clientIp: string) => `login-known:${emailHash}:${clientIp}`;

/**
 * Failures are attempts minus successes. The attempt is counted before its password is verified, so a
 * burst of concurrent guesses counts the ones still in flight as failures and verifies at most
 * LOGIN_MAX_FAILURES + 1 passwords per window. A success is counted in a window that ends with the
 * attempts' window, so it never offsets failures of a later one.
 */
async function openAttempt(deps: Deps, subject: string, windowMs: number): Promise<AttemptTally> {
  const [attempts, successes] = await Promise.all([deps.counters.hit(`login-attempt:${subject}`, windowMs), deps.counters.peek(successKey(subject))]);
  return { subject, earlierFailures: attempts.count - 1 - successes, resetInMs: attempts.resetInMs };
}

/** Revokes the session and ends the agent-console sockets opened with it, on every node. */
export async function logout(deps: Deps, token: string): Promise<void> {
  const sessionId = await sessionStore(deps.db).revoke(sha256Hex(token), deps.clock.now());
  await deps.cache.invalidateSession(sha256Hex(token));
  // With Redis the adapter relays the disconnect to the sockets of every node.
  if (sessionId) deps.realtime.io.of(NAMESPACES.agent).in(rooms.session(sessionId)).disconnectSockets(true);
}

/**
 * Ends every session of the user but `exceptSessionId`, on every node: their tokens answer 401 at once
 * (the remembered sessions go with the user's tag) and their agent consoles disconnect.
 */
export async function revokeSessionsOf(deps: Deps, userId: string, exceptSessionId?: string): Promise<void> {
  const revoked = await sessionStore(deps.db).revokeAllOf(userId, deps.clock.now(), exceptSessionId);
  await deps.cache.invalidateUser(userId);
  if (revoked.length > 0) deps.realtime.io.of(NAMESPACES.agent).in(revoked.map(rooms.session)).disconnectSockets(true);
}

export async function resolveSession(deps: Deps, token: string): Promise<User | null> {
  return (await liveSession(deps, token))?.user ?? null;
}

/** The live session of a token: its user, its id (the room of its sockets) and when it expires. */
export async function liveSession(deps: Deps, token: string): Promise<{ user: User; sessionId: string; expiresAt: Date } | null> {
  const session = await sessionStore(deps.db).live(sha256Hex(token), deps.clock.now());
  const user = session ? await userStore(deps.db).byId(session.userId) : null;
  return session && user ? { user, sessionId: session.id, expiresAt: session.expiresAt } : null;
}

export async function createUser(deps: Deps, input: { email: string; name: string; password: string; isOperator?: boolean }): Promise<User> {
  const users = userStore(deps.db);
  if (await users.byEmailWithHash(input.email)) throw fail('email_taken');
  // The unique index decides between two requests racing for the same e-mail.
  const user = await users.create({
    email: input.email,
    name: input.name,
    passwordHash: await hashPassword(input.password),
    isOperator: input.isOperator ?? false,
  });
  if (!user) throw fail('email_taken');
  return user;
}

/** The first operator comes from ADMIN_EMAIL / ADMIN_PASSWORD, and only while no user exists. */
export async function bootstrapOperator(deps: Deps): Promise<User | null> {
  const { ADMIN_EMAIL, ADMIN_PASSWORD } = deps.config;
  if (!ADMIN_EMAIL || !ADMIN_PASSWORD) return null;
  if ((await userStore(deps.db).count()) > 0) return null;
  try {
    return await createUser(deps, { email: ADMIN_EMAIL, name: 'Operator', password: ADMIN_PASSWORD, isOperator: true });
  } catch (error) {
    // Another node bootstrapped at the same moment.
    if (isAppError(error, 'email_taken')) return null;
    throw error;
  }
}

export function requireOperator(user: User): void {
  if (!user.isOperator) throw fail('operator_only');
}

export function findUser(deps: Deps, userId: string): Promise<User | null> {
  return userStore(deps.db).byId(userId);
}

/** The users of these ids that exist, in no particular order. */
export function findUsers(deps: Deps, userIds: string[]): Promise<User[]> {
  return userStore(deps.db).byIds(userIds);
}

export async function findUserByEmail(deps: Deps, email: string): Promise<User | null> {
  const found = await userStore(deps.db).byEmailWithHash(email);
  if (!found) return null;
  const { passwordHash: _hash, ...user } = found;
  return user;
}
