import { expect, test } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { signature } from '../../src/webhooks/webhooks.signing.js';

// Webhook-Signature keys: a receiver verifies with the secret it configured, so which bytes key the HMAC
// is part of the contract (decisions: "keyed with the webhook secret", the Standard Webhooks way).
const signed = (key: Buffer | string) => `v1,${createHmac('sha256', key).update('msg_1.1700000000.{"a":1}').digest('base64')}`;
const ours = (secret: string) => signature(secret, 'msg_1', 1700000000, '{"a":1}');

test('a secret of its own choosing keys the HMAC with its text', () => {
  expect(ours('top secret')).toBe(signed('top secret'));
});

test('a Standard Webhooks secret (whsec_ and base64, as endpoints are minted) keys it with the decoded bytes', () => {
  const bytes = randomBytes(32);
  expect(ours(`whsec_${bytes.toString('base64')}`)).toBe(signed(bytes));
  expect(ours(`whsec_${randomBytes(16).toString('base64')}`)).not.toBe(signed(Buffer.alloc(0)));
});

test('a whsec_ secret that is no such encoding is keyed by its text, never by the empty key it would decode to', () => {
  for (const secret of ['whsec_', 'whsec_!!!', 'whsec_a', `whsec_${randomBytes(8).toString('base64')}`, 'whsec_not base64 at all']) {
    expect(ours(secret)).toBe(signed(secret));
    expect(ours(secret)).not.toBe(signed(Buffer.alloc(0)));
  }
});
