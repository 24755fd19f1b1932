import type { Request } from 'express';
import type { Deps } from '../deps.js';
import type { Authentication, AuthMode, MemoAuthentication, NodeAuthenticator, RawCredentials, RouteDef } from '../http/route.js';
import { sha256Hex } from '../shared/crypto.js';
import { fail } from '../shared/errors.js';
import { credentialKindOf, resolveKey, type CredentialKind } from '../credentials/credentials.service.js';
import { liveSession } from '../auth/auth.service.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { accessWorkspace } from '../workspaces/members.service.js';
import type { KeyPrincipal } from './principals.js';
import { credentialsTag, sessionTag, userTag, workspaceTag } from '../cache/caches.js';
import { ByteLru } from '../cache/lru.js';
import './principals.js';

function header(req: Request, name: string): string | undefined {
  const value = req.get(name);
  return value && value.trim() ? value.trim() : undefined;
}

/**
 * The key a request presents: either header, else the `publishableKey` query of a GET. A URL carries
 * publishable keys only: proxies, browsers and logs keep URLs, and the workspace key must stay secret.
 */
function presentedKey(fromHeader: (name: string) => string | undefined, query: unknown): { key: string; inUrl: boolean } | undefined {
  const inHeader = fromHeader('x-api-key') ?? fromHeader('x-publishable-key');
  if (inHeader) return { key: inHeader, inUrl: false };
  const inQuery = (query as { publishableKey?: unknown } | undefined)?.publishableKey;
  return typeof inQuery === 'string' && inQuery ? { key: inQuery, inUrl: true } : undefined;
}

const ACCEPTS: Partial<Record<AuthMode, CredentialKind[]>> = {
  workspaceKey: ['workspace'],
  publishableKey: ['publishable'],
  publishableKeyOptional: ['publishable'],
  workspaceOrPublishableKey: ['workspace', 'publishable'],
};

/**
 * What a key's requests are limited by: the resolved credential (spellings of one key share one budget).
 * A publishable key is public (every page embedding the widget shows it), so its budget is per client
 * address: one client spending it cannot answer every other visitor's widget with 429.
 */
function keyRateSubject(kind: CredentialKind, workspaceId: string, ip: string | undefined): string {
  return kind === 'publishable' ? `key:publishable:${workspaceId}:ip:${ip}` : `key:${kind}:${workspaceId}`;
}

/** A path token's rate-limit subject: a hash, so neither counters nor logs hold the secret. */
const subjectOf = (token: string) => `token:${sha256Hex(token)}`;

const FAILURE_WINDOW_MS = 60_000;
const failureKeyOf = (ip: string | undefined) => `auth-fail:ip:${ip}`;
const failureKey = (req: Request) => failureKeyOf(req.ip);

/**
 * Unknown keys are counted per client address (each distinct one once a minute, see `unknownLately`);
 * past `AUTH_FAILURES_PER_MINUTE` that address gets 429 before any key it sends is looked up, so guessing
 * keys is throttled whatever key each guess carries.
 */
async function refuseWhileGuessing(deps: Deps, req: Request): Promise<void> {
  if ((await deps.counters.peek(failureKey(req))) >= deps.config.AUTH_FAILURES_PER_MINUTE) {
    throw fail('auth_rate_limited', undefined, { retryAfterSeconds: FAILURE_WINDOW_MS / 1000 });
  }
}

async function countFailure(deps: Deps, req: Request): Promise<void> {
  await deps.counters.hit(failureKey(req), FAILURE_WINDOW_MS);
}

/**
 * Key -> workspace, remembered per node for a few seconds (unknown keys never): a key rotation or a
 * workspace update ends it on every node through the cache's invalidation.
 */
const keyMemo = (key: string) => `key:${sha256Hex(key)}`;

function resolveKeyRemembered(deps: Deps, key: string, memoKey: string) {
  return deps.cache.memo.remember(
    memoKey,
    (found) => [credentialsTag(found.workspace.id), workspaceTag(found.workspace.id)],
    async () => {
      const resolved = await resolveKey(deps, key);
      const workspace = resolved ? await findWorkspace(deps, resolved.workspaceId) : null;
      return resolved && workspace ? { kind: resolved.kind, workspace } : null;
    },
  );
}

/**
 * Keys this node found unknown in the last minute. A stale key sent again and again (an old embed, seen
 * by every visitor behind one carrier NAT) is one wrong key: answered without the database and counted
 * once against the address, so guessing is throttled by distinct keys and a crowd sharing an address is
 * not locked out by one site's mistake. A key never becomes known later: keys are minted at random.
 */
const UNKNOWN_LATELY_MS = 60_000;
/** Keys remembered as unknown at most (each counts 1 against the LRU's byte bound). */
const UNKNOWN_LATELY_MAX = 10_000;
const unknownLately = (deps: Deps) => new ByteLru<true>({ maxBytes: UNKNOWN_LATELY_MAX, ttlMs: UNKNOWN_LATELY_MS, now: () => deps.clock.now().getTime() });

/**
 * Session -> user, remembered per node for a few seconds; logout (this session) or a user change ends it
 * everywhere, and expiry is checked on every request, remembered or not.
 */
async function resolveSessionRemembered(deps: Deps, token: string) {
  const tokenHash = sha256Hex(token);
  const session = await deps.cache.memo.remember(`session:${tokenHash}`, ({ user }) => [sessionTag(tokenHash), userTag(user.id)], () => liveSession(deps, token));
  return session && session.expiresAt > deps.clock.now() ? session.user : null;
}

/** Counts an unknown credential against the address, once per distinct credential per minute. */
async function countUnknownOnce(deps: Deps, req: Request, unknown: ByteLru<true>, memoKey: string): Promise<void> {
  if (unknown.get(memoKey) === true) return;
  unknown.set(memoKey, true, 1);
  await countFailure(deps, req);
}

async function resolveWorkspaceCredential(deps: Deps, req: Request, mode: AuthMode, unknown: ByteLru<true>): Promise<Authentication> {
  const accepted = ACCEPTS[mode]!;
  const presented = presentedKey((name) => header(req, name), req.method === 'GET' ? req.query : undefined);
  const lenient = mode === 'publishableKeyOptional';
  const anonymous = { context: { workspace: null, credentialKind: null } };
  if (!presented) {
    if (lenient) return anonymous;
    throw fail('missing_credential');
  }
  const { key, inUrl } = presented;
  const kind = credentialKindOf(key);
  if (kind === 'workspace' && inUrl) throw fail('wrong_credential_kind', 'The workspace API key travels in the X-Api-Key header, never in a URL.');
  if (kind && !accepted.includes(kind)) throw fail('wrong_credential_kind');
  await refuseWhileGuessing(deps, req);
  const memoKey = keyMemo(key);
  const knownUnknown = unknown.get(memoKey) === true;
  const resolved = knownUnknown ? null : await resolveKeyRemembered(deps, key, memoKey);
  if (!resolved) {
    await countUnknownOnce(deps, req, unknown, memoKey);
    if (lenient) return anonymous;
    throw fail('invalid_credential');
  }
  const { workspace } = resolved;
  const principal: KeyPrincipal = { workspace, credentialKind: resolved.kind };
  return { context: principal, rateSubject: keyRateSubject(resolved.kind, workspace.id, req.ip) };
}

function bearerToken(req: Request): string {
  const match = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  if (!match) throw fail('missing_session');
  return match[1];
}

/**
 * A node's one auth resolution: `resolve` turns the credential a route declares (its `auth` mode) into the
 * handler's principal, once per request, and names what the request is rate limited by: the credential it
 * presented. It keeps the keys it found unknown lately (see `UNKNOWN_LATELY_MS`). `fromMemory` is the same
 * resolution from remembered answers only, for the fast path (`authenticateFromMemo`); it keeps the last key
 * each connection sent: a kept-alive client sends one key on every request, so it is hashed once per
 * connection, and the answer is reused while the memo holds the very same resolution (a rotation or
 * workspace change replaces or drops that).
 */
export function nodeAuthenticator(deps: Deps): NodeAuthenticator {
  const unknown = unknownLately(deps);
  const lastKeyOf = new WeakMap<object, LastKey>();
  return {
    resolve: (_deps, def, req) => authenticate(deps, def, req, unknown),
    fromMemory: (def, raw) => authenticateFromMemo(deps, def, raw, lastKeyOf),
    principalOf: (def, workspaceId) => keyPrincipalOf(deps, def, workspaceId),
  };
}

/**
 * What `resolveWorkspaceCredential` gives a key of this workspace, read afresh rather than kept from the
 * request that first built an answer: remembered like a key's workspace, and dropped with it by any change.
 */
async function keyPrincipalOf(deps: Deps, def: RouteDef, workspaceId: string): Promise<KeyPrincipal | undefined> {
  const kind = ACCEPTS[def.auth]?.[0];
  if (!kind) return undefined;
  const workspace = await deps.cache.memo.remember(`workspace:${workspaceId}`, () => [workspaceTag(workspaceId)], () => findWorkspace(deps, workspaceId));
  return workspace ? { workspace, credentialKind: kind } : undefined;
}

async function authenticate(deps: Deps, def: RouteDef, req: Request, unknown: ByteLru<true>): Promise<Authentication> {
  switch (def.auth) {
    case 'none':
      return { context: {} };
    case 'conversationToken':
    case 'cancellationToken':
    case 'manageToken': {
      // The domain service looks the token up; here it is the subject of the limit. A token that names
      // nothing is a guess: counted against the address like an unknown key (each distinct one once a
      // minute), so random tokens cannot each spend a fresh budget on lookups.
      await refuseWhileGuessing(deps, req);
      const token = String(req.params.token);
      return { context: {}, rateSubject: subjectOf(token), onNotFound: () => countUnknownOnce(deps, req, unknown, subjectOf(token)) };
    }
    case 'session':
    case 'member': {
      const user = await resolveSessionRemembered(deps, bearerToken(req));
      if (!user) throw fail('invalid_session');
      if (def.auth === 'session') return { context: { user } };
      const access = await accessWorkspace(deps, user, String(req.params.wid), def.role ?? 'agent');
      return { context: { user, ...access } };
    }
    default:
      return resolveWorkspaceCredential(deps, req, def.auth, unknown);
  }
}

/** A public route's resolution, as `authenticate` gives it: no principal, nothing to count. */
const PUBLIC: MemoAuthentication = Object.freeze({ context: Object.freeze({}) });

type RememberedKey = { kind: CredentialKind; workspace: KeyPrincipal['workspace'] };

/** What a connection sent last: its key, the key's memo key, and the answer that resolved to. */
interface LastKey {
  key: string;
  memoKey: string;
  resolved?: RememberedKey;
  answer?: MemoAuthentication;
}

/**
 * The same resolution as `authenticate` for a GET of a key-authenticated or public route, from remembered answers
 * only: undefined whenever it would need the database, refuse, or count a failure (the caller then hands
 * the request to the full path, which does all that). The address's guessing throttle is not read here
 * but named (`throttle`): the caller counts the request only while it is open, in the same Redis round
 * trip, and hands a throttled request to the full path, so that refusal keeps its one code path.
 * The answer may be the very object given for the connection's previous request: callers never change it.
 */
function authenticateFromMemo(deps: Deps, def: RouteDef, raw: RawCredentials, lastKeyOf: WeakMap<object, LastKey>): MemoAuthentication | undefined {
  if (def.auth === 'none') return PUBLIC;
  const accepted = ACCEPTS[def.auth];
  if (!accepted) return undefined;
  const fromHeader = (name: string) => {
    const value = raw.header(name)?.trim();
    return value ? value : undefined;
  };
  const presented = presentedKey(fromHeader, raw.query);
  if (!presented) return undefined;
  const { key, inUrl } = presented;
  const kind = credentialKindOf(key);
  if ((kind && !accepted.includes(kind)) || (kind === 'workspace' && inUrl)) return undefined;
  let last = lastKeyOf.get(raw.connection);
  if (last?.key !== key) lastKeyOf.set(raw.connection, (last = { key, memoKey: keyMemo(key) }));
  const resolved = deps.cache.memo.peek<RememberedKey>(last.memoKey);
  if (!resolved) return undefined;
  if (last.resolved === resolved && last.answer) return last.answer;
  const principal: KeyPrincipal = { workspace: resolved.workspace, credentialKind: resolved.kind };
  last.resolved = resolved;
  return (last.answer = {
    context: principal,
    rateSubject: keyRateSubject(resolved.kind, resolved.workspace.id, raw.ip),
    throttle: { key: failureKeyOf(raw.ip), reached: deps.config.AUTH_FAILURES_PER_MINUTE },
  });
}
