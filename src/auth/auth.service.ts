import type { Deps } from '../shared/deps.js';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from '../shared/crypto.js';
import { AppError, conflict, forbidden, notFound, tooManyRequests } from '../http/errors.js';
import { workspaceStore, type Workspace } from '../workspaces/workspaces.model.js';
import { membershipStore, sessionStore, userStore, type Role, type User } from './auth.model.js';

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
    if (exceeded) throw tooManyRequests(Math.ceil(exceeded.resetInMs / 1000), 'Too many failed logins; retry later.');
    throw new AppError(401, 'invalid_credentials', 'E-mail or password is wrong.');
  }

  const token = randomToken('hs_');
  const expiresAt = new Date(deps.clock.now().getTime() + SESSION_TTL_HOURS * 3_600_000);
  await sessionStore(deps.db).create(sha256Hex(token), found.id, expiresAt);
  const { passwordHash: _hash, ...user } = found;
  return { token, user };
}

export async function logout(deps: Deps, token: string): Promise<void> {
  await sessionStore(deps.db).revoke(sha256Hex(token), deps.clock.now());
}

export async function resolveSession(deps: Deps, token: string): Promise<User | null> {
  const userId = await sessionStore(deps.db).liveUserId(sha256Hex(token), deps.clock.now());
  return userId ? userStore(deps.db).byId(userId) : null;
}

export async function createUser(deps: Deps, input: { email: string; name: string; password: string; isOperator?: boolean }): Promise<User> {
  const users = userStore(deps.db);
  if (await users.byEmailWithHash(input.email)) throw conflict('email_taken', 'A user with this e-mail exists.');
  return users.create({
    email: input.email,
    name: input.name,
    passwordHash: await hashPassword(input.password),
    isOperator: input.isOperator ?? false,
  });
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
    if (error instanceof AppError && error.code === 'email_taken') return null;
    throw error;
  }
}

const RANK: Record<Role, number> = { agent: 1, owner: 2 };

/**
 * A workspace as seen by a team member: 404 when the user is not a member (it does not exist for them),
 * 403 when the membership's role is below what the action needs. Operators reach every workspace.
 */
export async function accessWorkspace(deps: Deps, user: User, workspaceId: string, least: Role): Promise<{ workspace: Workspace; role: Role | 'operator' }> {
  const workspace = await workspaceStore(deps.db).byId(workspaceId);
  if (!workspace) throw notFound('workspace_not_found', 'No such workspace.');
  if (user.isOperator) return { workspace, role: 'operator' };
  const role = await membershipStore(deps.db).role(workspace.id, user.id);
  if (!role) throw notFound('workspace_not_found', 'No such workspace.');
  if (RANK[role] < RANK[least]) throw forbidden();
  return { workspace, role };
}

export function requireOperator(user: User): void {
  if (!user.isOperator) throw forbidden('Only operators may do this.');
}

export async function addMember(deps: Deps, workspaceId: string, userId: string, role: Role): Promise<void> {
  if (!(await userStore(deps.db).byId(userId))) throw notFound('user_not_found', 'No such user.');
  await membershipStore(deps.db).upsert(workspaceId, userId, role);
}

