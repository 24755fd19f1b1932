/**
 * User-supplied free-form JSON (customConfig, schemaOrg, theme, metadata, jsonLd) is stored as its JSON
 * text: MongoDB-compatible engines reject keys with `.` or a leading `$`, and a string comes back exactly
 * as it went in, whatever its keys.
 */
export function storeJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function loadJson<T = unknown>(stored: string | null | undefined): T | null {
  return stored === undefined || stored === null ? null : (JSON.parse(stored) as T);
}
