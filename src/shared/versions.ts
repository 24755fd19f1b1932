import { fail } from './errors.js';

/**
 * 412 `version_mismatch` unless `version` (what is stored now) is one of the versions the caller names
 * (`If-Match`, read by `http/versioned.ts`); no names: any version is fine.
 */
export function requireVersion(what: string, version: number, ifMatch: readonly number[] | undefined): void {
  if (ifMatch && !ifMatch.includes(version)) {
    throw fail('version_mismatch', `The ${what} is at version ${version} (ETag "${version}"), not the one If-Match names; reload it and retry.`);
  }
}
