import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DiskStorage } from '../../src/db/disk-storage.js';
import { S3Storage } from '../../src/db/s3-storage.js';
import { StorageUnavailableError, type ObjectStorage } from '../../src/db/object-storage.js';
import { freePort } from '../../src/db/embedded-engine.js';
import { startS3Server, type RunningS3 } from '../support/services.js';

/** Both stores behind the one interface, each against a real server: the disk, and versitygw on loopback. */
let s3: RunningS3;
let diskRoot: string;

beforeAll(async () => {
  s3 = await startS3Server();
  diskRoot = mkdtempSync(join(tmpdir(), 'hearth-disk-store-'));
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  rmSync(diskRoot, { recursive: true, force: true });
});

/** What the store is told of bytes before it reads them. */
const described = (bytes: Buffer | string, contentType = 'application/octet-stream') => ({
  contentType,
  size: Buffer.byteLength(bytes),
  sha256: createHash('sha256').update(bytes).digest('hex'),
});

const text = async (body: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const stores: [string, () => ObjectStorage][] = [
  ['disk', () => new DiskStorage(diskRoot)],
  ['s3', () => new S3Storage({ bucket: s3.bucket, endpoint: s3.url, region: 'us-east-1', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey })],
];

describe.each(stores)('%s storage', (_kind, open) => {
  test('an object written is read back whole; deleting it (or its folder) leaves nothing', async () => {
    const store = open();
    try {
      const big = 'x'.repeat(6 * 1024 * 1024 + 17); // more than a multipart upload's 5 MB part, in one put
      await store.put('media/w1/m1/original', Readable.from([Buffer.from(big)]), described(big));
      await store.put('media/w1/m1/variants/a.webp', Readable.from([Buffer.from('variant')]), described('variant', 'image/webp'));
      const read = await store.get('media/w1/m1/original');
      expect(read?.size).toBe(big.length);
      expect(await text(read!.body)).toBe(big);
      expect(await store.get('media/w1/absent/original')).toBeNull();
      await store.delete('media/w1/m1/original');
      expect(await store.get('media/w1/m1/original')).toBeNull();
      expect(await store.get('media/w1/m1/variants/a.webp')).not.toBeNull();
      await store.deleteAll('media/w1/m1');
      expect(await store.get('media/w1/m1/variants/a.webp')).toBeNull();
      await store.delete('media/w1/never-there');
    } finally {
      await store.close();
    }
  });

  test('a write whose source fails midway leaves nothing at its key (and nothing half-written anywhere)', async () => {
    const store = open();
    try {
      const source = new PassThrough();
      const whole = Buffer.alloc(8 * 1024 * 1024, 1);
      const writing = store.put('media/w2/dropped/original', source, described(whole, 'image/png'));
      source.write(whole.subarray(0, 6 * 1024 * 1024));
      setTimeout(() => source.destroy(new Error('client went away')), 50);
      await expect(writing).rejects.toThrow();
      expect(await store.get('media/w2/dropped/original')).toBeNull();
      if (store.kind === 'disk') expect(readdirSync(join(diskRoot, '.incoming'))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test('a source that fails before the write began is refused the same way, with no unhandled error', async () => {
    const store = open();
    try {
      const source = new PassThrough();
      const writing = store.put('media/w2/early/original', source, described('never sent', 'image/png'));
      source.destroy(new Error('client went away at once'));
      await expect(writing).rejects.toThrow();
      expect(await store.get('media/w2/early/original')).toBeNull();
      if (store.kind === 'disk') expect(readdirSync(join(diskRoot, '.incoming'))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  // Same length: a shorter body would leave the store waiting for the rest (callers declare what they hold).
  test('s3: bytes that differ from what the put declared are refused and nothing is kept', async () => {
    const store = open();
    try {
      if (store.kind !== 's3') return;
      await expect(store.put('media/w3/changed/original', Readable.from([Buffer.from('other bytes sent')]), described('the bytes meant!'))).rejects.toThrow();
      expect(await store.get('media/w3/changed/original')).toBeNull();
    } finally {
      await store.close();
    }
  });

  test('keys the server did not make are refused before any I/O', async () => {
    const store = open();
    try {
      await expect(store.get('../etc/passwd')).rejects.toThrow(/unsafe storage key/);
      await expect(store.put('/abs', Readable.from(['x']), described('x'))).rejects.toThrow(/unsafe storage key/);
    } finally {
      await store.close();
    }
  });
});

describe('a store that cannot be used answers StorageUnavailableError', () => {
  test('s3: nothing listening at the endpoint', async () => {
    const port = await freePort();
    const store = new S3Storage({ bucket: 'b', endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', accessKeyId: 'a', secretAccessKey: 'b' });
    try {
      await expect(store.get('media/x/y/original')).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(store.put('media/x/y/original', Readable.from([Buffer.from('z')]), described('z'))).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      await store.close();
    }
  });

  test('s3: wrong credentials are the store refusing, not a missing object', async () => {
    const store = new S3Storage({ bucket: s3.bucket, endpoint: s3.url, region: 'us-east-1', accessKeyId: 'nobody', secretAccessKey: 'wrong-wrong-wrong' });
    try {
      await expect(store.get('media/x/y/original')).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      await store.close();
    }
  });

  test('disk: the storage folder cannot be made (a file is in its way)', async () => {
    const blocker = join(diskRoot, 'not-a-folder');
    writeFileSync(blocker, 'x');
    const store = new DiskStorage(join(blocker, 'media'));
    await expect(store.put('media/x/y/original', Readable.from([Buffer.from('z')]), described('z'))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(store.get('media/x/y/original')).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
