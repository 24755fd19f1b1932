import type { Readable } from 'node:stream';

/** One stored object as read back: its bytes as a stream and their length. */
export interface StoredObject {
  body: Readable;
  size: number;
}

/** What is known of an object's bytes before they are stored. */
export interface ObjectBytes {
  contentType: string;
  size: number;
  /** Hex SHA-256 of the whole content. */
  sha256: string;
}

/**
 * Where uploaded files and their variants live: the local disk under `DATA_DIR` (the embedded default)
 * or an S3-compatible store, chosen by configuration. An object appears at its key only once all its
 * bytes are written (a temporary file renamed into place; an S3 put completed), so a
 * reader never sees half an object and a dropped write leaves nothing at the key. Failures of the store
 * itself (unreachable, refusing) are thrown as `StorageUnavailableError`.
 */
export interface ObjectStorage {
  readonly kind: 'disk' | 's3';
  /**
   * Stores the bytes read from `body`, which must be exactly the ones `bytes` describes: told their length,
   * S3 streams the put; told their hash, it refuses a body that ends early or differs instead of keeping it.
   */
  put(key: string, body: Readable, bytes: ObjectBytes): Promise<void>;
  /** null when nothing is stored at the key. */
  get(key: string): Promise<StoredObject | null>;
  /** Removes the object; nothing stored is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `prefix/` (a file and its variants). */
  deleteAll(prefix: string): Promise<void>;
  close(): Promise<void>;
}

/** The store could not be reached or refused the operation: answered 503 with `Retry-After` at the edge. */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`object storage unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StorageUnavailableError';
  }
}

/** Keys are made by the server from ids and hashes; this keeps any other shape out (no `..`, no absolute paths). */
export function assertSafeKey(key: string): void {
  if (!/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i.test(key) || key.includes('..')) throw new Error(`unsafe storage key: ${key}`);
}
