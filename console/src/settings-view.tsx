import { useEffect, useRef, useState } from 'preact/hooks';
import { hrefOf, route } from './router.js';
import { t } from './strings.js';
import * as settings from './settings.js';
import { Confirm, OtherProblems, SettingField, Status, useLoad } from './settings-form.js';
import { ChatPanel } from './settings-chat.js';
import { AppointmentsPanel } from './settings-booking.js';
import { WebhooksPanel } from './settings-webhooks.js';
import { SETTINGS_CSS } from './settings-style.js';
import { text, useSubmit } from './widgets.js';

/**
 * The owners' settings (its own chunk, loaded the first time Settings opens): `#/settings/<part>`, each part
 * one panel with its own forms.
 */

const style = document.createElement('style');
style.textContent = SETTINGS_CSS;
document.head.append(style);

const PARTS = ['workspace', 'keys', 'chat', 'appointments', 'webhooks'] as const;
type Part = (typeof PARTS)[number];

const PANELS: Record<Part, () => preact.JSX.Element> = {
  workspace: WorkspacePanel,
  keys: KeysPanel,
  chat: ChatPanel,
  appointments: AppointmentsPanel,
  webhooks: WebhooksPanel,
};

export function SettingsView() {
  const s = t.settingsText;
  const part = PARTS.find((p) => p === route.value.id) ?? 'workspace';
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    // Another part picked: the focus goes to its heading (not on the first paint).
    if (first.current) first.current = false;
    else heading.current?.focus();
  }, [part]);
  const Panel = PANELS[part];
  return (
    <div class="settings">
      <nav class="box parts" aria-label={s.parts}>
        <ul>
          {PARTS.map((p) => (
            <li key={p}>
              <a href={hrefOf('settings', p)} id={`settings-nav-${p}`} aria-current={p === part ? 'page' : undefined}>
                {s.partNames[p]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section class="box" aria-labelledby="settings-title">
        <h2 id="settings-title" tabIndex={-1} ref={heading}>
          {s.partNames[part]}
        </h2>
        <Panel key={part} />
      </section>
    </div>
  );
}

const list = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

function WorkspacePanel() {
  const s = t.settingsText;
  const ready = useLoad(settings.loadWorkspace);
  const [done, setDone] = useState('');
  const form = useSubmit(
    (data) => {
      setDone('');
      return settings.saveWorkspace({
        name: text(data, 'name'),
        locales: list(text(data, 'locales')),
        defaultLocale: text(data, 'defaultLocale').trim(),
        siteUrl: text(data, 'siteUrl').trim() || null,
      });
    },
    () => setDone(s.saved),
  );
  const w = settings.workspace.value;
  if (!ready || !w) return <p class="muted" aria-busy="true" />;
  return (
    <form id="workspace-form" class="stack" onSubmit={form.onSubmit} noValidate>
      <SettingField id="ws-name" name="name" label={s.workspaceName} value={w.name} issues={form.issues} />
      <SettingField id="ws-locales" name="locales" label={s.locales} help={s.localesHelp} value={w.locales.join(', ')} issues={form.issues} />
      <SettingField id="ws-default-locale" name="defaultLocale" label={s.defaultLocale} help={s.defaultLocaleHelp} value={w.defaultLocale} issues={form.issues} />
      <SettingField id="ws-site-url" name="siteUrl" label={s.siteUrl} help={s.siteUrlHelp} kind="url" value={w.siteUrl} placeholder="https://www.example.com" issues={form.issues} />
      <OtherProblems id="workspace-problem" issues={form.issues} message={form.message} names={['name', 'locales', 'defaultLocale', 'siteUrl']} />
      <button type="submit" disabled={form.busy}>
        {s.save}
      </button>
      <Status id="workspace-status" text={done} />
    </form>
  );
}

function KeysPanel() {
  const s = t.settingsText;
  const ready = useLoad(settings.loadChat);
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [problem, setProblem] = useState('');
  const run = async (work: () => Promise<void>) => {
    setProblem('');
    setStatus('');
    try {
      await work();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  const publishable = settings.chat.value?.publishableKey ?? null;
  return (
    <>
      <h3 id="api-key-title">{s.apiKey}</h3>
      <p class="muted">{s.apiKeyHelp}</p>
      <p>
        <code id="api-key" class="secret">
          {apiKey ?? s.hiddenKey}
        </code>
      </p>
      <div class="actions">
        {apiKey ? (
          <button type="button" id="hide-key" onClick={() => setApiKey(null)}>
            {s.hideKey}
          </button>
        ) : (
          <button type="button" id="reveal-key" onClick={() => void run(async () => setApiKey(await settings.revealKey()))}>
            {s.revealKey}
          </button>
        )}
        <Confirm
          id="rotate-key"
          label={s.rotateKey}
          question={s.rotateKeyQuestion}
          yes={s.rotateKeyYes}
          onYes={() =>
            run(async () => {
              setApiKey(await settings.rotateKey());
              setStatus(s.keyRotated);
            })
          }
        />
      </div>
      <h3 id="publishable-title">{s.publishableKey}</h3>
      <p class="muted">{s.publishableHelp}</p>
      <p id="publishable-key">{!ready ? '…' : publishable ? <code class="secret">{publishable}</code> : s.noPublishableKey}</p>
      {publishable && (
        <div class="actions">
          <Confirm id="rotate-publishable" label={s.rotatePublishable} question={s.rotatePublishableQuestion} yes={s.rotateKeyYes} onYes={() => run(async () => void (await settings.rotatePublishableKey()))} />
        </div>
      )}
      {problem && <p role="alert" class="field-error" id="keys-problem">{problem}</p>}
      <Status id="keys-status" text={status} />
    </>
  );
}
