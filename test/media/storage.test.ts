import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      const big = 'x'.repeat(6 * 1024 * 1024 + 17); // more than one 5 MB multipart part
      await store.put('media/w1/m1/original', Readable.from([Buffer.from(big)]), 'application/octet-stream');
      await store.put('media/w1/m1/variants/a.webp', Readable.from([Buffer.from('variant')]), 'image/webp');
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
      const writing = store.put('media/w2/dropped/original', source, 'image/png');
      source.write(Buffer.alloc(6 * 1024 * 1024, 1));
      setTimeout(() => source.destroy(new Error('client went away')), 50);
      await expect(writing).rejects.toThrow();
      expect(await store.get('media/w2/dropped/original')).toBeNull();
      if (store.kind === 'disk') expect(readdirSync(join(diskRoot, '.incoming'))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test('keys the server did not make are refused before any I/O', async () => {
    const store = open();
    try {
      await expect(store.get('../etc/passwd')).rejects.toThrow(/unsafe storage key/);
      await expect(store.put('/abs', Readable.from(['x']), 'text/plain')).rejects.toThrow(/unsafe storage key/);
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
      await expect(store.put('media/x/y/original', Readable.from([Buffer.from('z')]), 'text/plain')).rejects.toBeInstanceOf(StorageUnavailableError);
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
    await expect(store.put('media/x/y/original', Readable.from([Buffer.from('z')]), 'text/plain')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(store.get('media/x/y/original')).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
