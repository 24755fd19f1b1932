import { z } from 'zod';

export const MAX_SLUG_LENGTH = 200;

/**
 * Letters and digits of any script, each with its combining marks (Devanagari vowel signs, Thai tone
 * marks and the like stay decomposed after NFC), and `-`, `_`, `.`, `~`. A mark must sit on a letter or
 * digit: a lone or leading mark renders as nothing or on the previous URL character.
 */
const SLUG_PATTERN = /^(?:[\p{L}\p{N}]\p{M}*|[-_.~])+$/u;

/** The one spelling a slug is stored and looked up in: NFC, lowercased (lowercasing can decompose, e.g. `İ`, so NFC again). */
export function normalizeSlug(raw: string): string {
  return raw.normalize('NFC').toLowerCase().normalize('NFC');
}

/** Why a normalized slug is refused, or null when it is a slug. Length counts code points. */
export function slugProblem(slug: string): string | null {
  const length = [...slug].length;
  if (length === 0) return 'must not be empty';
  if (length > MAX_SLUG_LENGTH) return `must be at most ${MAX_SLUG_LENGTH} characters`;
  if (slug.includes('/')) return 'must not contain "/"';
  if (/\s/u.test(slug)) return 'must not contain whitespace';
  if (/\p{Cc}/u.test(slug)) return 'must not contain control characters';
  // `.` and `..` are dot-segments: clients resolve them away, so such a slug could never be requested.
  if (slug === '.' || slug === '..') return 'must not be "." or ".."';
  if (!SLUG_PATTERN.test(slug)) return 'must be letters, digits (any script, with their combining marks), "-", "_", "." and "~"';
  return null;
}

/** The slug a path segment names, or null when no slug can be spelled that way (lookups answer 404). */
export function slugFromPath(segment: string): string | null {
  const slug = normalizeSlug(segment);
  return slugProblem(slug) === null ? slug : null;
}

export const SLUG_RULE =
  'Slugs are Unicode letters and digits of any script (with their combining marks), `-`, `_`, `.` and `~`, 1 to 200 characters (code points, counted after normalization); never `/`, whitespace or control characters, nor `.` or `..` alone. They are NFC-normalized and lowercased on the way in, so `Café` and `cafe\\u0301` (e + combining acute) both store as `café`.';

/** A slug field (posts, canonical slugs, categories, post types): normalized, then checked. */
export const slugSchema = z
  .string()
  .transform((raw, ctx) => {
    const slug = normalizeSlug(raw);
    const problem = slugProblem(slug);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return slug;
  })
  .meta({ description: 'A slug: letters and digits of any script, `-`, `_`, `.`, `~`; 1 to 200 code points; stored NFC-normalized and lowercased.' });
