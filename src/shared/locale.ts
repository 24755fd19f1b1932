/** A BCP 47 language tag as Hearth accepts one (`en`, `de-CH`, `zh-Hant-TW`): server schemas and the widget. */
export const LOCALE_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
export const LOCALE_TAG_MAX_LENGTH = 35;

/** The primary language subtag of a BCP 47 tag, lower-cased (`de-CH` -> `de`); '' for none. */
function primaryLanguage(tag: string | null | undefined): string {
  return (tag ?? '').split(/[-_]/)[0].toLowerCase();
}

/**
 * The primary language of `tag` when `tables` has an entry of its own for it (so `constructor` or
 * `__proto__` never picks up what every object inherits), else undefined.
 */
export function supportedLanguage(tables: Record<string, unknown>, tag: string | null | undefined): string | undefined {
  const primary = primaryLanguage(tag);
  return Object.prototype.hasOwnProperty.call(tables, primary) ? primary : undefined;
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
