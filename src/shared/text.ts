/** User text as a literal pattern: every regex metacharacter escaped, so a search is never run as a pattern. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
