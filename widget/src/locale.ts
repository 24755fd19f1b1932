/**
 * The server refuses a start whose `locale` breaks its BCP47 rule (src/workspaces/workspaces.schemas.ts,
 * mirrored here so the bundle needs no zod), and pages often carry `lang="en_US"` or worse: without this
 * such a page could never chat.
 */
const TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const MAX_LENGTH = 35;

/**
 * `raw` as a tag the server accepts: trimmed, `_` read as `-`, then cut back subtag by subtag
 * (`de-CH-<junk>` still says German, Switzerland) until valid; undefined when not even the language is.
 */
export function normalizeLocale(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const subtags = raw.trim().replace(/_/g, '-').split('-');
  for (let n = subtags.length; n > 0; n--) {
    const tag = subtags.slice(0, n).join('-');
    if (tag.length <= MAX_LENGTH && TAG.test(tag)) return tag;
  }
  return undefined;
}
