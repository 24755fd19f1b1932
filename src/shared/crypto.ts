import { createCipheriv, createDecipheriv, createHmac, hash, hkdfSync, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** URL-safe random token with the given prefix; 32 bytes give 43 characters of crypto-grade randomness. */
export function randomToken(prefix = '', bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** One-shot `hash` (Node ≥ 20.12), about twice as fast as a Hash object: keys and tokens are hashed on hot paths. */
export function sha256Hex(value: string | Buffer): string {
  return hash('sha256', value, 'hex');
}

export function hmacSha256Hex(key: string | Buffer, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** AES-256-GCM with a key derived from the configured secret; output is `iv.tag.ciphertext` in base64url. */
export class SecretBox {
  private readonly key: Buffer;
  private readonly signingKey: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'hearth', 'credential-encryption-v1', 32));
    this.signingKey = Buffer.from(hkdfSync('sha256', secret, 'hearth', 'url-signing-v1', 32));
  }

  /** A MAC of `message` (hex, 32 chars) under a key of its own derived from the secret: signed URLs. */
  sign(message: string): string {
    return hmacSha256Hex(this.signingKey, message).slice(0, 32);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.');
  }

  open(sealed: string): string {
    const [iv, tag, ciphertext] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  }
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64 };

/** Memory-hard password hash (scrypt), self-describing so parameters can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}
