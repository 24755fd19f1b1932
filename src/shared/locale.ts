/** The primary language subtag of a BCP 47 tag, lower-cased (`de-CH` -> `de`); '' for none. */
export function primaryLanguage(tag: string | null | undefined): string {
  return (tag ?? '').split(/[-_]/)[0].toLowerCase();
}

/**
 * The keys a locale's texts are looked up under, most specific first: the tag (trimmed, lower-cased),
 * then its primary language (`de-CH` -> `de-ch`, `de`); none for an empty tag.
 */
export function localeLookupOrder(locale: string | null | undefined): string[] {
  const tag = (locale ?? '').trim().toLowerCase();
  if (!tag) return [];
  const primary = primaryLanguage(tag);
  return primary && primary !== tag ? [tag, primary] : [tag];
}
