/**
 * The deepest nesting of objects and arrays a JSON body may have (the body itself is level 1). Deeper
 * documents are refused before anything is stored: serializing them later would overflow the stack,
 * and a stored document that cannot be returned breaks every list that includes it.
 */
export const JSON_MAX_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when the JSON text nests deeper than `max`; one pass over the bytes, no recursion, strings skipped. */
export function jsonDeeperThan(bytes: Uint8Array, max = JSON_MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth -= 1;
  }
  return false;
}
