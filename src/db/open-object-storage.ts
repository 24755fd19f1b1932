import type { Config } from '../config/config.js';
import { DiskStorage } from './disk-storage.js';
import type { ObjectStorage } from './object-storage.js';
import { S3Storage } from './s3-storage.js';

/** The store the configuration names: S3 when `S3_BUCKET` is set, else the disk under `DATA_DIR/media`. */
export function openObjectStorage(config: Config): ObjectStorage {
  if (config.S3_BUCKET) {
    return new S3Storage({
      bucket: config.S3_BUCKET,
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    });
  }
  return new DiskStorage(`${config.DATA_DIR}/media`);
}
