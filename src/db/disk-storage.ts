import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, StorageUnavailableError, type ObjectBytes, type ObjectStorage, type StoredObject } from './object-storage.js';

/** Errors of the disk itself (full, read-only, gone), as opposed to a missing file. */
const DISK_FAULTS = new Set(['ENOSPC', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'EDQUOT', 'ENOTDIR']);

const isDiskFault = (error: unknown) => DISK_FAULTS.has((error as NodeJS.ErrnoException).code ?? '');

/**
 * Objects as files under one directory. A write goes to `.incoming/<random>` on the same file system
 * and is renamed to its key once complete (a rename is atomic), so a crash or a dropped upload leaves
 * at most an orphan in `.incoming/`, never a partial file at a key.
 */
export class DiskStorage implements ObjectStorage {
  readonly kind = 'disk';
  private readonly root: string;
  private readonly incoming: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.incoming = join(this.root, '.incoming');
  }

  private pathOf(key: string): string {
    assertSafeKey(key);
    return join(this.root, key);
  }

  // A write that did not end is never renamed into place: the declared bytes need no check here.
  async put(key: string, body: Readable, _bytes: ObjectBytes): Promise<void> {
    const target = this.pathOf(key);
    const temporary = join(this.incoming, randomBytes(12).toString('hex'));
    // The source may fail while the folder is made: the pipeline then reports that, not an unhandled 'error'.
    const reportedByPipeline = () => undefined;
    body.on('error', reportedByPipeline);
    try {
      await mkdir(this.incoming, { recursive: true });
      await pipeline(body, createWriteStream(temporary, { flags: 'wx' }));
      await mkdir(dirname(target), { recursive: true });
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw isDiskFault(error) ? new StorageUnavailableError(error) : error;
    } finally {
      body.off('error', reportedByPipeline);
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    const path = this.pathOf(key);
    try {
      const { size } = await stat(path);
      return { body: createReadStream(path), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw isDiskFault(error) ? new StorageUnavailableError(error) : error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await rm(this.pathOf(key), { force: true });
    } catch (error) {
      throw isDiskFault(error) ? new StorageUnavailableError(error) : error;
    }
  }

  async deleteAll(prefix: string): Promise<void> {
    try {
      await rm(this.pathOf(prefix), { recursive: true, force: true });
    } catch (error) {
      throw isDiskFault(error) ? new StorageUnavailableError(error) : error;
    }
  }

  async close(): Promise<void> {}
}
