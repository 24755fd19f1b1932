import { LOCALE_TAG, LOCALE_TAG_MAX_LENGTH } from '../../src/shared/locale.js';

// The server refuses a start whose `locale` breaks LOCALE_TAG, and pages often carry `lang="en_US"` or
// worse: without this such a page could never chat.

/**
 * `raw` as a tag the server accepts: trimmed, `_` read as `-`, then cut back subtag by subtag
 * (`de-CH-<junk>` still says German, Switzerland) until valid; undefined when not even the language is.
 */
export function normalizeLocale(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const subtags = raw.trim().replace(/_/g, '-').split('-');
  for (let n = subtags.length; n > 0; n--) {
    const tag = subtags.slice(0, n).join('-');
    if (tag.length <= LOCALE_TAG_MAX_LENGTH && LOCALE_TAG.test(tag)) return tag;
  }
  return undefined;
}
