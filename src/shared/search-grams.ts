import { escapeRegex } from './text.js';

/*
 * A search by a literal part of a few text fields, any case (the admin posts list's `q` on the draft title and
 * slug, the inbox's on a visitor's name, e-mail and subject), without reading every record: each record stores
 * the three-character pieces ("grams") of those fields as `searchGrams`, and a search reads only the records
 * holding one gram of `q`, then matches `q` itself on those. A record whose field contains `q` holds every
 * gram of `q`, so none is missed. An equality on an array field is what every engine serves from its storage
 * (MongoDB: a multikey index; FerretDB over PostgreSQL: a jsonb containment the database evaluates), where a
 * pattern is not (FerretDB decodes every record of the workspace to test one).
 */

const GRAM_LENGTH = 3;

/**
 * Lowercased, and every character that is neither a letter nor a digit made a space: a title and its slug
 * ("Easter menu", "easter-menu"), a name and its e-mail address, then share their grams. Character by character, so a text that contains
 * `q` still contains `q` folded.
 */
function folded(text: string): string[] {
  return Array.from(text.toLowerCase(), (char) => (/[\p{L}\p{N}]/u.test(char) ? char : ' '));
}

function gramsOf(chars: string[]): string[] {
  const grams: string[] = [];
  for (let i = 0; i + GRAM_LENGTH <= chars.length; i += 1) grams.push(chars.slice(i, i + GRAM_LENGTH).join(''));
  return grams;
}

/** What a record stores for the search: the distinct grams of its searched fields (each on its own: `q` matches within one). */
export function searchGramsOf(...fields: (string | null | undefined)[]): string[] {
  return [...new Set(fields.flatMap((field) => (field ? gramsOf(folded(field)) : [])))];
}

/** English letters, most frequent first: a gram of rare characters is held by few posts. */
const COMMON_FIRST = 'etaoinsrhldcumfpgwybvkxjqz';

function rarity(char: string): number {
  if (char === ' ') return 0;
  const rank = COMMON_FIRST.indexOf(char);
  // Digits and letters of other alphabets: rarer than any English letter in most workspaces.
  return rank === -1 ? COMMON_FIRST.length : rank + 1;
}

/** The gram of `q` a search reads records by (the one of rarest characters), or null when `q` has no gram (under three characters). */
export function lookupGram(q: string): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const gram of gramsOf(folded(q))) {
    const score = Array.from(gram).reduce((sum, char) => sum + rarity(char), 0);
    if (score > bestScore) [best, bestScore] = [gram, score];
  }
  return best;
}

/**
 * The filter of a search for `q` in `fields` (a case-insensitive part of one of them, matched literally): the
 * records holding `q`'s gram, then `q` itself among those; by pattern alone when `q` has no gram.
 */
export function literalSearch(q: string, fields: string[]): Record<string, unknown> {
  const pattern = { $regex: escapeRegex(q), $options: 'i' };
  const gram = lookupGram(q);
  return { $or: fields.map((field) => ({ [field]: pattern })), ...(gram !== null && { searchGrams: gram }) };
}
