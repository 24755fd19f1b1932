import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { assertSafeKey, StorageUnavailableError, type ObjectBytes, type ObjectStorage, type StoredObject } from './object-storage.js';

export interface S3StorageOptions {
  bucket: string;
  /** Any S3-compatible endpoint (MinIO, versitygw, R2, ...); AWS when absent. */
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}


/**
 * Objects in one bucket of an S3-compatible store. A write is one PutObject whose body streams from its
 * source with its length declared, so no byte of it is held in memory beyond the socket's buffers (a
 * multipart upload holds each 5 MB part until it is sent: 100 uploads at once took 300 MB). S3 shows the
 * object only once the put completes, and a dropped or failed put leaves nothing at the key. One put
 * carries at most 5 GiB, the bound of the upload size settings.
 */
export class S3Storage implements ObjectStorage {
  readonly kind = 's3';
  private readonly client: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      // Self-hosted stores answer on one host name; bucket subdomains would need DNS of their own.
      forcePathStyle: Boolean(options.endpoint),
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      // An unreachable store is answered 503 promptly rather than after the SDK's long default retries.
      maxAttempts: 2,
      // Puts declare their SHA-256 (a stored object is whole or absent); one the SDK computed itself would wrap
      // the streamed body in a stream of its own (aws-chunked) whose errors reach no one when the source fails.
      requestChecksumCalculation: 'WHEN_REQUIRED',
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

  async put(key: string, body: Readable, { contentType, size, sha256 }: ObjectBytes): Promise<void> {
    assertSafeKey(key);
    // The SDK does not notice a source that fails midway (a client gone): it would wait for the missing bytes.
    const sourceGone = new AbortController();
    const abandon = (error?: Error) => {
      if (!body.readableEnded && !sourceGone.signal.aborted) sourceGone.abort(error ?? new Error('the source of the put closed before its end'));
    };
    body.on('error', abandon);
    body.once('close', abandon);
    try {
      const put = new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        ContentLength: size,
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
      });
      await this.client.send(put, { abortSignal: sourceGone.signal });
    } catch (error) {
      body.destroy();
      throw this.unavailable(error);
    } finally {
      body.off('close', abandon);
      body.off('error', abandon);
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
