import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { FieldIssue } from './api.js';
import { error } from './store.js';
import { t } from './strings.js';
import { FormProblem } from './widgets.js';

/**
 * The settings forms' parts. Fields are uncontrolled (`defaultValue`): whatever the server answers, what was
 * typed stays in them; a 400's issue shows beside the field it names (`businessHours.mon.1` beside
 * `businessHours.mon`), any other refusal above the form's button.
 */

/** The issue for a field: its own path, or a path inside it. */
export const problemOf = (issues: FieldIssue[], name: string) => issues.find((issue) => issue.path === name || issue.path.startsWith(`${name}.`))?.message;

/** Loads what a panel shows once it is mounted; a failure is the app's alert. */
export function useLoad(...loads: (() => Promise<void>)[]): boolean {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    Promise.all(loads.map((load) => load())).then(
      () => setReady(true),
      (err: unknown) => (error.value = err instanceof Error ? err.message : String(err)),
    );
  }, []);
  return ready;
}

type Kind = 'text' | 'url' | 'email' | 'number' | 'textarea';

/** A labelled input (or textarea) whose server problem shows beside it and is announced with it. */
export function SettingField(props: {
  id: string;
  name: string;
  label: string;
  issues: FieldIssue[];
  value?: string | number | null;
  kind?: Kind;
  help?: string;
  rows?: number;
  placeholder?: string;
  autocomplete?: string;
}) {
  const problem = problemOf(props.issues, props.name);
  const described = [props.help ? `${props.id}-help` : '', problem ? `${props.id}-problem` : ''].filter(Boolean).join(' ');
  const common = {
    id: props.id,
    name: props.name,
    defaultValue: props.value === null || props.value === undefined ? '' : String(props.value),
    placeholder: props.placeholder,
    autocomplete: props.autocomplete ?? 'off',
    'aria-invalid': problem ? ('true' as const) : undefined,
    'aria-describedby': described || undefined,
  };
  const kind = props.kind ?? 'text';
  return (
    <p class="field">
      <label for={props.id}>{props.label}</label>
      {props.help && (
        <span id={`${props.id}-help`} class="muted help">
          {props.help}
        </span>
      )}
      {kind === 'textarea' ? (
        <textarea rows={props.rows ?? 3} {...common} />
      ) : kind === 'number' ? (
        <input type="text" inputMode="numeric" {...common} />
      ) : kind === 'url' ? (
        <input type="url" {...common} />
      ) : kind === 'email' ? (
        <input type="email" {...common} />
      ) : (
        <input type="text" {...common} />
      )}
      {problem && (
        <span id={`${props.id}-problem`} class="field-error">
          {problem}
        </span>
      )}
    </p>
  );
}

/** The issues no field of the form shows (and any refusal that names no field): above the form's button. */
export function OtherProblems({ id, issues, message, names }: { id: string; issues: FieldIssue[]; message: string; names: string[] }) {
  const rest = issues.filter((issue) => !names.some((name) => issue.path === name || issue.path.startsWith(`${name}.`)));
  const text = [message, ...rest.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))].filter(Boolean).join(' ');
  return text ? <FormProblem id={id} message={text} /> : null;
}

/** A done message after a save, announced. */
export function Status({ id, text }: { id: string; text: string }) {
  return (
    <p role="status" id={id} class="muted">
      {text}
    </p>
  );
}

/**
 * An action that needs a second click (rotating a key or a secret, deleting): the question with its yes and
 * cancel, the yes focused; cancel (or Escape) puts the focus back on the asking button.
 */
export function Confirm(props: { id: string; label: string; question: string; yes: string; danger?: boolean; onYes: () => Promise<void> | void; children?: ComponentChildren }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const back = () => {
    setAsking(false);
    setTimeout(() => document.getElementById(props.id)?.focus(), 0);
  };
  if (!asking) {
    return (
      <button type="button" id={props.id} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span role="group" aria-label={props.question} class="confirm" onKeyDown={(e) => e.key === 'Escape' && back()}>
      <span>{props.question}</span>
      <button
        type="button"
        id={`${props.id}-yes`}
        class={props.danger === false ? undefined : 'danger'}
        disabled={busy}
        ref={(button) => button?.focus()}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onYes();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {props.yes}
      </button>
      <button type="button" onClick={back}>
        {t.cancel}
      </button>
    </span>
  );
}

/** A secret shown once (a new endpoint's or a rotated one): stays until its owner says it is stored. */
export function OnceSecret({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <div id="new-secret" class="once" role="alert">
      <p>
        <strong>{label}</strong> {t.settingsText.secretOnce}
      </p>
      <p>
        <code id="new-secret-value" class="secret">
          {secret}
        </code>
      </p>
      <button type="button" id="secret-stored" ref={(button) => button?.focus()} onClick={onDone}>
        {t.settingsText.secretStored}
      </button>
    </div>
  );
}
