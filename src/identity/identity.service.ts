import { z } from 'zod';
import type { Deps } from '../deps.js';
import { constantTimeEqual, hmacSha256Hex } from '../shared/crypto.js';
import { revealKey } from '../credentials/credentials.service.js';
import { identitySecretStore } from './identity.model.js';
import { visitorIdentitySchema, type VerifiedVisitor } from './identity.schemas.js';

/** The fixed context of the derived signing secret (versioned, per the spec). */
export const IDENTITY_CONTEXT = 'service:live-chat:identity:v1';

/** Derived secret: lowercase hex of HMAC-SHA256(key = workspace API key, message = context). */
export function derivedIdentitySecret(apiKey: string): string {
  return hmacSha256Hex(apiKey, IDENTITY_CONTEXT);
}

/** identityToken = hex HMAC-SHA256 over externalId, keyed with the secret's UTF-8 bytes. */
export function signIdentity(secret: string, externalId: string): string {
  return hmacSha256Hex(secret, externalId);
}

/** Sets (or clears, with null) the explicit identity secret of the live-chat settings; stored encrypted. */
export async function setExplicitIdentitySecret(deps: Deps, workspaceId: string, secret: string | null): Promise<void> {
  await identitySecretStore(deps.db).set(workspaceId, secret === null ? null : deps.secretBox.seal(secret));
}

export async function hasExplicitIdentitySecret(deps: Deps, workspaceId: string): Promise<boolean> {
  return (await identitySecretStore(deps.db).get(workspaceId)) !== null;
}

/** The secrets a token may be signed with: the derived one, plus the explicit one when configured. */
async function identitySecrets(deps: Deps, workspaceId: string): Promise<string[]> {
  const [apiKey, sealedExplicit] = await Promise.all([revealKey(deps, workspaceId, 'workspace'), identitySecretStore(deps.db).get(workspaceId)]);
  const secrets: string[] = [];
  if (apiKey) secrets.push(derivedIdentitySecret(apiKey));
  if (sealedExplicit) secrets.push(deps.secretBox.open(sealedExplicit));
  return secrets;
}

/**
 * True when `identityToken` is a valid signature of `externalId` under one of the workspace's secrets.
 * Hex case is ignored; comparison is constant-time. Anything malformed is simply not verified.
 */
export async function verifyIdentityToken(deps: Deps, workspaceId: string, externalId: unknown, identityToken: unknown): Promise<boolean> {
  if (typeof externalId !== 'string' || typeof identityToken !== 'string') return false;
  if (!/^[0-9a-fA-F]{64}$/.test(identityToken)) return false;
  const presented = identityToken.toLowerCase();
  const secrets = await identitySecrets(deps, workspaceId);
  let valid = false;
  for (const secret of secrets) valid = constantTimeEqual(signIdentity(secret, externalId), presented) || valid;
  return valid;
}

/**
 * A visitor identity object as a request carried it: verified, or why not. Every failure (malformed,
 * over its bounds, unsigned, wrongly signed) is the caller's anonymous path, never an error: the spec
 * starts such a chat and books such a request anonymously. Absent (undefined or null): null.
 */
export async function checkVisitorIdentity(deps: Deps, workspaceId: string, visitor: unknown): Promise<{ verified: VerifiedVisitor } | { failure: string } | null> {
  if (visitor === undefined || visitor === null) return null;
  const parsed = visitorIdentitySchema.safeParse(visitor);
  if (!parsed.success) return { failure: 'malformed identity payload' };
  const { externalId, name, email, attributes, identityToken } = parsed.data;
  if (!identityToken) return { failure: 'identity token missing' };
  if (!(await verifyIdentityToken(deps, workspaceId, externalId, identityToken))) return { failure: 'identity signature invalid' };
  // The signature covers `externalId` only: an e-mail the page sends beside it is used only when it is one
  // address (replies are mailed to it; "me@a.com, victim@b.org" would mail both).
  const mailable = email !== undefined && z.email().safeParse(email).success ? email : null;
  return { verified: { externalId, name: name ?? null, email: mailable, attributes: attributes ?? null } };
}
