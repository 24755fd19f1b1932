/**
 * The widget's own words (button labels, notices, hints) that a workspace may reword per locale. Shared
 * by the widget (whose built-in tables in widget/src/strings.ts must define every key) and the settings
 * service (which validates and resolves the workspace's overrides). Pure: the widget bundles this file.
 */

import { localeLookupOrder } from '../shared/locale.js';

export const WIDGET_STRING_KEYS = [
  'title',
  'open',
  'close',
  'messageLabel',
  'placeholder',
  'send',
  'you',
  'agent',
  'messages',
  'restart',
  'newCount',
  'online',
  'offline',
  'flood',
  'closed',
  'invalid',
  'network',
  'failed',
  'unavailable',
  'emailLabel',
  'emailHint',
  'emailInvalid',
  'offlineSent',
  'typing',
  'seen',
  'attach',
  'removeFile',
  'uploading',
  'fileTooLarge',
  'fileRejected',
] as const;

export type WidgetStringKey = (typeof WIDGET_STRING_KEYS)[number];

/** Overrides by locale; `*` applies to every locale. */
export type WidgetStringOverrides = Record<string, Partial<Record<WidgetStringKey, string>>>;

/** The key of the overrides that apply to every locale. */
export const ALL_LOCALES = '*';

/** Placeholders the widget fills in; a text without its placeholder loses that detail. */
export const WIDGET_STRING_PLACEHOLDERS: Partial<Record<WidgetStringKey, string>> = { newCount: '{n}', typing: '{name}' };

/**
 * The overrides for one locale, key by key: the exact tag (case-insensitive), then its primary subtag,
 * then `*`. Keys without an override are absent (the widget keeps its built-in words for them).
 */
export function resolveWidgetStrings(overrides: WidgetStringOverrides, locale: string | null | undefined): Partial<Record<WidgetStringKey, string>> {
  const byTag = new Map(Object.entries(overrides).map(([tag, strings]) => [tag.toLowerCase(), strings]));
  // Least specific first, so the more specific ones win.
  const resolved: Partial<Record<WidgetStringKey, string>> = {};
  for (const tag of [ALL_LOCALES, ...localeLookupOrder(locale).reverse()]) Object.assign(resolved, byTag.get(tag));
  return resolved;
}

/** Overrides that drop a placeholder the widget fills in: saved all the same, but worth a warning. */
export function widgetStringWarnings(overrides: WidgetStringOverrides | null | undefined): string[] {
  const warnings: string[] = [];
  for (const [tag, strings] of Object.entries(overrides ?? {})) {
    for (const [key, placeholder] of Object.entries(WIDGET_STRING_PLACEHOLDERS)) {
      const text = strings[key as WidgetStringKey];
      if (text !== undefined && !text.includes(placeholder)) {
        warnings.push(`widgetStrings["${tag}"].${key} has no ${placeholder}: the widget cannot show that detail.`);
      }
    }
  }
  return warnings;
}
