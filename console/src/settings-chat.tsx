import { useState } from 'preact/hooks';
import { contrastRatio, MIN_CONTRAST, themeKey } from '../../src/livechat/theme.js';
import { WIDGET_STRING_KEYS } from '../../src/livechat/widget-strings.js';
import { t } from './strings.js';
import * as settings from './settings.js';
import { OtherProblems, problemOf, SettingField, Status, useLoad } from './settings-form.js';
import { text, useSubmit } from './widgets.js';

/** The theme entries the panel edits (the widget's canonical names); any others stored are kept as they are. */
const THEME_KEYS = ['primary', 'background', 'text', 'primary-text'] as const;
type ThemeKey = (typeof THEME_KEYS)[number];
/** The widget's own colours where a theme sets none. */
const WIDGET_DEFAULTS: Record<ThemeKey, string> = { primary: '#2d5be3', background: '#ffffff', text: '#1d2330', 'primary-text': '#ffffff' };

function themeOf(theme: Record<string, string> | null): Record<ThemeKey, string> {
  const found = { primary: '', background: '', text: '', 'primary-text': '' };
  for (const [name, value] of Object.entries(theme ?? {})) {
    const key = themeKey(name);
    if (key && key in found) found[key as ThemeKey] = value;
  }
  return found;
}

/** The pairs the widget shows as text on a background, below WCAG AA (4.5:1): what the panel warns about. */
export function lowContrast(theme: Record<ThemeKey, string>): { pair: string; ratio: number }[] {
  const colour = (key: ThemeKey) => theme[key].trim() || WIDGET_DEFAULTS[key];
  const pairs: [string, ThemeKey, ThemeKey][] = [
    [t.settingsText.textOnBackground, 'text', 'background'],
    [t.settingsText.primaryOnBackground, 'primary', 'background'],
    [t.settingsText.primaryTextOnPrimary, 'primary-text', 'primary'],
  ];
  const low: { pair: string; ratio: number }[] = [];
  for (const [pair, fore, back] of pairs) {
    // Without its own text colour, the widget picks black or white, whichever reads better on the primary.
    if (fore === 'primary-text' && !theme['primary-text'].trim()) continue;
    const ratio = contrastRatio(colour(fore), colour(back));
    if (ratio !== null && ratio < MIN_CONTRAST) low.push({ pair, ratio });
  }
  return low;
}

/** Entries of the form named `<prefix>.<key>` that are not empty. */
function entries(data: FormData, prefix: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of data.entries()) {
    if (typeof value === 'string' && name.startsWith(`${prefix}.`) && value.trim()) found[name.slice(prefix.length + 1)] = value;
  }
  return found;
}

export function ChatPanel() {
  const ready = useLoad(settings.loadChat, settings.loadWorkspace);
  const chat = settings.chat.value;
  const workspace = settings.workspace.value;
  if (!ready || !chat || !workspace) return <p class="muted" aria-busy="true" />;
  return <ChatForm current={chat.settings} locales={workspace.locales} />;
}

function ChatForm({ current, locales }: { current: settings.ChatSettings; locales: string[] }) {
  const s = t.settingsText;
  const [theme, setTheme] = useState(() => themeOf(current.theme));
  const [done, setDone] = useState('');
  const [warnings, setWarnings] = useState<string[]>([]);
  const form = useSubmit(
    (data) => {
      setDone('');
      const typedTheme = entries(data, 'theme');
      // Stored entries the panel does not edit are kept; the edited ones go under their canonical names.
      const kept = Object.fromEntries(Object.entries(current.theme ?? {}).filter(([name]) => !THEME_KEYS.includes(themeKey(name) as ThemeKey)));
      const nextTheme = { ...kept, ...typedTheme };
      const strings: Record<string, Record<string, string>> = {};
      for (const locale of ['*', ...locales]) {
        const typed = entries(data, `widgetStrings.${locale}`);
        if (Object.keys(typed).length) strings[locale] = typed;
      }
      // Overrides of locales the workspace no longer has are kept.
      for (const [locale, typed] of Object.entries(current.widgetStrings)) if (!(locale in strings) && locale !== '*' && !locales.includes(locale)) strings[locale] = typed;
      const online = text(data, 'forceOnline');
      return settings.saveChat({
        enabled: data.get('enabled') === 'on',
        greeting: text(data, 'greeting'),
        greetings: entries(data, 'greetings'),
        offlineMessage: text(data, 'offlineMessage').trim() || null,
        offlineMessages: entries(data, 'offlineMessages'),
        theme: Object.keys(nextTheme).length ? nextTheme : null,
        forceOnline: online === '' ? null : online === 'true',
        widgetStrings: strings,
      });
    },
    (saved) => {
      setWarnings(saved);
      setDone(s.saved);
    },
  );
  const low = lowContrast(theme);
  const onlineProblem = problemOf(form.issues, 'forceOnline');
  return (
    <form id="chat-form" class="stack" onSubmit={form.onSubmit} noValidate>
      <p class="check">
        <input type="checkbox" id="chat-enabled" name="enabled" defaultChecked={current.enabled} />
        <label for="chat-enabled">{s.chatEnabled}</label>
      </p>
      <p class="field">
        <label for="chat-online">{s.forceOnline}</label>
        <select id="chat-online" name="forceOnline" defaultValue={current.forceOnline === null ? '' : String(current.forceOnline)} aria-invalid={onlineProblem ? 'true' : undefined}>
          <option value="">{s.followPresence}</option>
          <option value="true">{s.alwaysOnline}</option>
          <option value="false">{s.alwaysOffline}</option>
        </select>
        {onlineProblem && <span class="field-error">{onlineProblem}</span>}
      </p>
      <fieldset>
        <legend>{s.texts}</legend>
        <SettingField id="chat-greeting" name="greeting" label={s.greetingDefault} value={current.greeting} issues={form.issues} />
        <SettingField id="chat-offline" name="offlineMessage" label={s.offlineDefault} value={current.offlineMessage} issues={form.issues} />
        {locales.map((locale) => (
          <div key={locale} class="pair">
            <SettingField id={`chat-greeting-${locale}`} name={`greetings.${locale}`} label={s.greetingIn(locale)} value={current.greetings[locale]} issues={form.issues} />
            <SettingField id={`chat-offline-${locale}`} name={`offlineMessages.${locale}`} label={s.offlineIn(locale)} value={current.offlineMessages[locale]} issues={form.issues} />
          </div>
        ))}
      </fieldset>
      <fieldset onInput={(e) => {
        const input = e.target as HTMLInputElement;
        const key = input.name.replace(/^theme\./, '');
        if (THEME_KEYS.includes(key as ThemeKey)) setTheme((before) => ({ ...before, [key]: input.value }));
      }}>
        <legend>{s.theme}</legend>
        <p class="muted">{s.themeHelp}</p>
        {THEME_KEYS.map((key) => (
          <SettingField key={key} id={`theme-${key}`} name={`theme.${key}`} label={s.themeNames[key]} value={theme[key]} placeholder={WIDGET_DEFAULTS[key]} issues={form.issues} />
        ))}
        <div id="contrast-warning" role="status" class={low.length ? 'warning' : undefined}>
          {low.length > 0 && (
            <>
              <p>{s.lowContrast}</p>
              <ul>
                {low.map((one) => (
                  <li key={one.pair}>{s.contrastOf(one.pair, one.ratio.toFixed(2))}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      </fieldset>
      <fieldset>
        <legend>{s.widgetStrings}</legend>
        <p class="muted">{s.widgetStringsHelp}</p>
        {['*', ...locales].map((locale) => (
          <details key={locale} open={Object.keys(current.widgetStrings[locale] ?? {}).length > 0 || form.issues.some((issue) => issue.path.startsWith(`widgetStrings.${locale}.`))}>
            <summary>{locale === '*' ? s.everyLocale : s.inLocale(locale)}</summary>
            {WIDGET_STRING_KEYS.map((key) => (
              <SettingField key={key} id={`strings-${locale === '*' ? 'all' : locale}-${key}`} name={`widgetStrings.${locale}.${key}`} label={key} value={current.widgetStrings[locale]?.[key]} issues={form.issues} />
            ))}
          </details>
        ))}
      </fieldset>
      <OtherProblems id="chat-problem" issues={form.issues} message={form.message} names={['enabled', 'forceOnline', 'greeting', 'offlineMessage', 'greetings', 'offlineMessages', 'theme', 'widgetStrings']} />
      <button type="submit" disabled={form.busy}>
        {s.save}
      </button>
      <Status id="chat-status" text={done} />
      {warnings.length > 0 && (
        <ul id="chat-warnings" class="warning">
          {warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      )}
    </form>
  );
}
