import { randomToken } from '../shared/crypto.js';

/**
 * The visitor's path tokens: `ct_` cancels a pending request, `mt_` manages a confirmed appointment.
 * Each names its appointment (`<prefix><24-hex id>_<43 random URL-safe chars>`), so its lookup is a
 * primary-key read, which every engine serves without scanning (FerretDB scans any other filter, across
 * every tenant's appointments); the stored SHA-256 of the whole token must match as well.
 */
export type TokenKind = 'cancellation' | 'manage';

const PREFIX: Record<TokenKind, string> = { cancellation: 'ct_', manage: 'mt_' };
const SECRET = '[A-Za-z0-9_-]{43}';
const NAMED: Record<TokenKind, RegExp> = {
  cancellation: new RegExp(`^ct_([0-9a-f]{24})_${SECRET}$`),
  manage: new RegExp(`^mt_([0-9a-f]{24})_${SECRET}$`),
};
// Tokens issued before tokens named their appointment (`<prefix><43 chars>`): found by hash alone, which
// scans on FerretDB. They live until their request is answered or their appointment has passed; guessing
// them costs the guesser its address's budget of unknown credentials (`access/authenticate.ts`).
const LEGACY: Record<TokenKind, RegExp> = {
  cancellation: new RegExp(`^ct_${SECRET}$`),
  manage: new RegExp(`^mt_${SECRET}$`),
};

/** Where a token's appointment is found: by its id, by hash alone (legacy), or nowhere (not a token of this kind). */
export type TokenRef = { id: string } | { legacy: true };

export const mintToken = (kind: TokenKind, appointmentId: string) => randomToken(`${PREFIX[kind]}${appointmentId}_`);

export function parseToken(kind: TokenKind, token: string): TokenRef | null {
  const id = NAMED[kind].exec(token)?.[1];
  if (id) return { id };
  return LEGACY[kind].test(token) ? { legacy: true } : null;
}
