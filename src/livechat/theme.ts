/**
 * Theme names and colour contrast, shared by the widget (which derives readable text colours) and the
 * settings service (which warns about unreadable themes). Pure functions: the widget bundles this file.
 */

/** Theme names map to the widget's CSS variables: `primary`, `primaryColor`, `--hearth-primary` all mean the same. */
const THEME_ALIASES: Record<string, string> = {
  'primary-color': 'primary',
  'accent': 'primary',
  'accent-color': 'primary',
  'brand-color': 'primary',
  'text-color': 'text',
  'background-color': 'background',
  'font-family': 'font',
  'border-radius': 'radius',
};

/** The canonical short name of a theme entry (`primary`, `text`, ...), or null for an unusable name. */
export function themeKey(name: string): string | null {
  const kebab = name
    .replace(/^--/, '')
    .replace(/_/g, '-')
    .replace(/^hearth-/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
  if (!/^[a-z0-9-]{1,40}$/.test(kebab)) return null;
  return THEME_ALIASES[kebab] ?? kebab;
}

/** WCAG AA for normal text. */
export const MIN_CONTRAST = 4.5;
export const DARK_TEXT = '#000000';
export const LIGHT_TEXT = '#ffffff';

/** `#rgb`, `#rrggbb`, `rgb(r, g, b)`: [r, g, b] in 0..255; anything else (names, variables, gradients) is null. */
export function parseColor(value: string): [number, number, number] | null {
  const text = value.trim().toLowerCase();
  let match = /^#([0-9a-f]{3})$/.exec(text);
  if (match) return [...match[1]].map((c) => parseInt(c + c, 16)) as [number, number, number];
  match = /^#([0-9a-f]{6})(?:[0-9a-f]{2})?$/.exec(text);
  if (match) return [0, 2, 4].map((i) => parseInt(match![1].slice(i, i + 2), 16)) as [number, number, number];
  match = /^rgba?\(\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*(?:[,/]\s*[\d.]+%?\s*)?\)$/.exec(text);
  if (match) {
    const rgb = [match[1], match[2], match[3]].map(Number);
    return rgb.every((n) => n <= 255) ? (rgb as [number, number, number]) : null;
  }
  return null;
}

function luminance([r, g, b]: [number, number, number]): number {
  const channel = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** WCAG contrast ratio (1..21) of two colours, or null when either cannot be parsed. */
export function contrastRatio(a: string, b: string): number | null {
  const ca = parseColor(a);
  const cb = parseColor(b);
  if (!ca || !cb) return null;
  const [hi, lo] = [luminance(ca), luminance(cb)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** White or near-black, whichever reads better on `background` (black or white always reaches 4.5:1, whatever the colour). */
export function readableTextOn(background: string): string | null {
  const onLight = contrastRatio(DARK_TEXT, background);
  const onDark = contrastRatio(LIGHT_TEXT, background);
  if (onLight === null || onDark === null) return null;
  return onDark >= onLight ? LIGHT_TEXT : DARK_TEXT;
}

/**
 * What a theme would make hard to read: text on the background, explicit text on the primary colour,
 * and the primary colour used as text or outline on the background (the widget itself puts readable
 * text on the primary colour when no `primary-text` is given).
 */
export function themeContrastWarnings(theme: Record<string, string> | null | undefined): string[] {
  if (!theme) return [];
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(theme)) {
    const key = themeKey(name);
    if (key && typeof value === 'string') values[key] = value;
  }
  const background = values.background ?? '#ffffff';
  const checks: [string, string | undefined, string][] = [
    ['primary', values.primary, background],
    ['text', values.text, background],
    ['primary-text', values['primary-text'], values.primary ?? '#2d5be3'],
  ];
  const warnings: string[] = [];
  for (const [name, colour, against] of checks) {
    if (!colour) continue;
    const ratio = contrastRatio(colour, against);
    if (ratio !== null && ratio < MIN_CONTRAST) {
      warnings.push(`Theme colour ${name} (${colour}) has a contrast of ${ratio.toFixed(2)}:1 against ${against}; WCAG AA needs ${MIN_CONTRAST}:1.`);
    }
  }
  return warnings;
}
