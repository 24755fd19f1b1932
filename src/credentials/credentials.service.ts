import type { Deps } from '../deps.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { credentialStore, type CredentialKind } from './credentials.model.js';

export type { CredentialKind } from './credentials.model.js';

const PREFIX: Record<CredentialKind, string> = { workspace: 'sk_', publishable: 'pk_' };

export function credentialKindOf(key: string): CredentialKind | null {
  if (key.startsWith('sk_')) return 'workspace';
  if (key.startsWith('pk_')) return 'publishable';
  return null;
}

/** Mints a new key of this kind; the previous live key of the same kind stops working at once. */
export async function rotateKey(deps: Deps, workspaceId: string, kind: CredentialKind): Promise<string> {
  const store = credentialStore(deps.db);
  const key = randomToken(PREFIX[kind]);
  await store.revokeAll(workspaceId, kind, deps.clock.now());
  await store.insert(workspaceId, kind, sha256Hex(key), deps.secretBox.seal(key));
  // Nodes remember resolved keys for a few seconds: the revoked one must stop everywhere now.
  await deps.cache.invalidateCredentials(workspaceId);
  return key;
}

/** The live key in plaintext (the CMS "Reveal"), or null when none was minted yet. */
export async function revealKey(deps: Deps, workspaceId: string, kind: CredentialKind): Promise<string | null> {
  const credential = await credentialStore(deps.db).live(workspaceId, kind);
  return credential ? deps.secretBox.open(credential.sealed) : null;
}

/** The live key, minted on first use (the publishable key is minted when live chat is first activated). */
export async function ensureKey(deps: Deps, workspaceId: string, kind: CredentialKind): Promise<string> {
  return (await revealKey(deps, workspaceId, kind)) ?? rotateKey(deps, workspaceId, kind);
}

/** Looks a presented key up by its hash; revoked and unknown keys resolve to nothing. */
export async function resolveKey(deps: Deps, key: string): Promise<{ workspaceId: string; kind: CredentialKind } | null> {
  const kind = credentialKindOf(key);
  if (!kind) return null;
  const credential = await credentialStore(deps.db).liveByHash(sha256Hex(key));
  return credential && credential.kind === kind ? { workspaceId: credential.workspaceId, kind } : null;
}
