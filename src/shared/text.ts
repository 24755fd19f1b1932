import { z } from 'zod';

/** User text as a literal pattern: every regex metacharacter escaped, so a search is never run as a pattern. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** U+0000 (NUL). */
const NUL = '\u0000';

/**
 * A string of a request body: any text but U+0000. PostgreSQL, under FerretDB's faster handler, cannot hold
 * U+0000 in text or jsonb, so a NUL that reached a stored document or a query's filter was a 500 there (and
 * stored on SQLite: one rule for every engine). It is refused at the edge with a field-level 400, the one
 * character that is; nothing else is stripped or rewritten (chat texts are kept character for character,
 * decisions.md). Free-form JSON objects keep it: they are stored as JSON text (`storeJson`), where it is the
 * six characters `\u0000`. `test/architecture/request-text.unit.test.ts` checks every route body uses this.
 */
export const inputText = () => z.string().refine((value) => !value.includes(NUL), 'must not contain the character U+0000 (NUL)');
