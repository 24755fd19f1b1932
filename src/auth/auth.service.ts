import type { Deps } from '../deps.js';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from '../shared/crypto.js';
import { fail, isAppError } from '../shared/errors.js';
import { sessionStore, userStore, type User } from './auth.model.js';

export type { User } from './auth.model.js';

// A fixed hash to verify against when the e-mail is unknown, so both failures take the same time.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$' + 'A'.repeat(86);

export async function login(deps: Deps, email: string, password: string, clientIp: string): Promise<{ token: string; user: User }> {
  const { LOGIN_MAX_FAILURES, LOGIN_FAILURE_WINDOW_MINUTES, SESSION_TTL_HOURS } = deps.config;
  const windowMs = LOGIN_FAILURE_WINDOW_MINUTES * 60_000;
  const failureKeys = [`login-fail:email:${sha256Hex(email.toLowerCase())}`, `login-fail:ip:${clientIp}`];

  const found = await userStore(deps.db).byEmailWithHash(email);
  const valid = await verifyPassword(password, found?.passwordHash ?? DUMMY_HASH);
  if (!found || !valid) {
    const counts = await Promise.all(failureKeys.map((key) => deps.counters.hit(key, windowMs)));
    const exceeded = counts.find((count) => count.count > LOGIN_MAX_FAILURES);
    if (exceeded) throw fail('login_rate_limited', undefined, { retryAfterSeconds: Math.ceil(exceeded.resetInMs / 1000) });
    throw fail('invalid_credentials');
  }

  const token = randomToken('hs_');
  const expiresAt = new Date(deps.clock.now().getTime() + SESSION_TTL_HOURS * 3_600_000);
  await sessionStore(deps.db).create(sha256Hex(token), found.id, expiresAt);
  const { passwordHash: _hash, ...user } = found;
  return { token, user };
}

export async function logout(deps: Deps, token: string): Promise<void> {
  await sessionStore(deps.db).revoke(sha256Hex(token), deps.clock.now());
  await deps.cache.invalidateSession(sha256Hex(token));
}

export async function resolveSession(deps: Deps, token: string): Promise<User | null> {
  return (await findLiveSession(deps, token))?.user ?? null;
}

/** The live session of this token with its user and when it expires (callers that remember it recheck expiry). */
export async function findLiveSession(deps: Deps, token: string): Promise<{ user: User; expiresAt: Date } | null> {
  const session = await sessionStore(deps.db).live(sha256Hex(token), deps.clock.now());
  const user = session ? await userStore(deps.db).byId(session.userId) : null;
  return session && user ? { user, expiresAt: session.expiresAt } : null;
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

export async function findUserByEmail(deps: Deps, email: string): Promise<User | null> {
  const found = await userStore(deps.db).byEmailWithHash(email);
  if (!found) return null;
  const { passwordHash: _hash, ...user } = found;
  return user;
}
