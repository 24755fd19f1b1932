/*
 * The admin posts list's `q` (a literal part of the draft title or slug, any case) without reading every
 * post: each post stores the three-character pieces ("grams") of its title and slug, and a search reads only
 * the posts holding one gram of `q`, then matches `q` itself on those. A post whose title or slug contains
 * `q` holds every gram of `q`, so none is missed. An equality on an array field is what every engine serves
 * from its storage (MongoDB: a multikey index; FerretDB over PostgreSQL: a jsonb containment the database
 * evaluates), where a pattern is not (FerretDB decodes every post of the workspace to test one).
 */

const GRAM_LENGTH = 3;

/**
 * Lowercased, and every character that is neither a letter nor a digit made a space: a title and its slug
 * ("Easter menu", "easter-menu") then share their grams. Character by character, so a text that contains
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

/** What a post stores for the search: the distinct grams of its draft title and slug. */
export function searchGramsOf(title: string, slug: string): string[] {
  return [...new Set([...gramsOf(folded(title)), ...gramsOf(folded(slug))])];
}

/** English letters, most frequent first: a gram of rare characters is held by few posts. */
const COMMON_FIRST = 'etaoinsrhldcumfpgwybvkxjqz';

function rarity(char: string): number {
  if (char === ' ') return 0;
  const rank = COMMON_FIRST.indexOf(char);
  // Digits and letters of other alphabets: rarer than any English letter in most workspaces.
  return rank === -1 ? COMMON_FIRST.length : rank + 1;
}

/** The gram of `q` a search reads posts by (the one of rarest characters), or null when `q` has no gram (under three characters). */
export function lookupGram(q: string): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const gram of gramsOf(folded(q))) {
    const score = Array.from(gram).reduce((sum, char) => sum + rarity(char), 0);
    if (score > bestScore) [best, bestScore] = [gram, score];
  }
  return best;
}
