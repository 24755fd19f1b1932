import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/**
 * Standard Webhooks signature: `v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>`, keyed with the
 * URL's `secret` parameter (its UTF-8 bytes; a `whsec_` secret is base64-decoded as the standard does).
 */
export function signature(secret: string, webhookId: string, timestamp: number, body: string): string {
  return signatureWith(signingKey(secret), webhookId, timestamp, body);
}

/** `signature` with the secret's key imported already: a burst signs thousands of deliveries with the same few secrets. */
export function signatureWith(key: KeyObject, webhookId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The HMAC key of a secret (see `standardSecretBytes`). */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(standardSecretBytes(secret) ?? Buffer.from(secret, 'utf8'));
}

/**
 * The key bytes of a Standard Webhooks secret: `whsec_` and the canonical base64 of at least 16 bytes (as
 * endpoints are minted). Anything else is keyed by its own text: `whsec_`, `whsec_!!!` or `whsec_a` decode
 * to no bytes at all, and an empty key would let anyone forge the signature.
 */
function standardSecretBytes(secret: string): Buffer | undefined {
  if (!secret.startsWith('whsec_')) return undefined;
  const encoded = secret.slice('whsec_'.length);
  const bytes = Buffer.from(encoded, 'base64');
  return bytes.length >= 16 && bytes.toString('base64') === encoded ? bytes : undefined;
}
