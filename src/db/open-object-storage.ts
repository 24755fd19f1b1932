import type { Config } from '../config/config.js';
import { DiskStorage } from './disk-storage.js';
import type { ObjectStorage } from './object-storage.js';

/**
 * The store the configuration names: S3 when `S3_BUCKET` is set, else the disk under `DATA_DIR/media`.
 * The AWS SDK is loaded only then: it takes over a second to load, which every start would pay.
 */
export async function openObjectStorage(config: Config): Promise<ObjectStorage> {
  if (config.S3_BUCKET) {
    const { S3Storage } = await import('./s3-storage.js');
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
