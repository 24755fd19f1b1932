import type { Readable } from 'node:stream';
import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertSafeKey, StorageUnavailableError, type ObjectStorage, type StoredObject } from './object-storage.js';

export interface S3StorageOptions {
  bucket: string;
  /** Any S3-compatible endpoint (MinIO, versitygw, R2, ...); AWS when absent. */
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}


/**
 * Objects in one bucket of an S3-compatible store. A write is a multipart upload streamed in 5 MB parts:
 * S3 shows the object only when the upload is completed, and a failed or dropped upload is aborted (its
 * parts deleted), which is the store's own form of "write elsewhere, then make it visible".
 */
/**
 * Puts in flight at once on a node: the SDK holds each body in memory (up to a part, 5 MB) until it is sent,
 * so a burst of 100 uploads held some 50 MB of them at a time; the others wait with their file on disk.
 */
const PUTS_AT_ONCE = 4;

export class S3Storage implements ObjectStorage {
  readonly kind = 's3';
  private readonly client: S3Client;
  private putsRunning = 0;
  private readonly putsWaiting: (() => void)[] = [];

  constructor(private readonly options: S3StorageOptions) {
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      // Self-hosted stores answer on one host name; bucket subdomains would need DNS of their own.
      forcePathStyle: Boolean(options.endpoint),
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      // An unreachable store is answered 503 promptly rather than after the SDK's long default retries.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 30_000 },
    });
  }

  /**
   * Keys are the server's own (checked by `assertSafeKey`), so every refusal but a missing object is the
   * store being unusable: unreachable, or refusing these credentials or this bucket (a misconfiguration).
   */
  private unavailable(error: unknown): Error {
    return new StorageUnavailableError(error);
  }

  async put(key: string, body: Readable, contentType: string): Promise<void> {
    assertSafeKey(key);
    while (this.putsRunning >= PUTS_AT_ONCE) await new Promise<void>((resolve) => this.putsWaiting.push(resolve));
    this.putsRunning += 1;
    try {
      await this.send(key, body, contentType);
    } finally {
      this.putsRunning -= 1;
      this.putsWaiting.shift()?.();
    }
  }

  private async send(key: string, body: Readable, contentType: string): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: key, Body: body, ContentType: contentType },
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw this.unavailable(error);
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    assertSafeKey(key);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { body: answer.Body as Readable, size: answer.ContentLength ?? 0 };
    } catch (error) {
      // Only NoSuchKey: some stores answer an unknown access key with a 404 of another name.
      if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.name === 'NoSuchKey')) return null;
      throw this.unavailable(error);
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async deleteAll(prefix: string): Promise<void> {
    assertSafeKey(prefix);
    try {
      for (;;) {
        const listed = await this.client.send(new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: `${prefix}/`, MaxKeys: 1000 }));
        const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
        if (keys.length === 0) return;
        await this.client.send(new DeleteObjectsCommand({ Bucket: this.options.bucket, Delete: { Objects: keys, Quiet: true } }));
        if (!listed.IsTruncated) return;
      }
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
