import type { Signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { attempt, type FieldIssue } from './api.js';

/** A labelled select over a signal: picking an option sets it and calls `onChange`. */
export function FilterSelect<T extends string>(props: { id: string; label: string; filter: Signal<T>; options: Record<T, string>; onChange: () => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.filter.value}
        onChange={(e) => {
          props.filter.value = e.currentTarget.value as T;
          props.onChange();
        }}
      >
        {(Object.entries(props.options) as [T, string][]).map(([value, text]) => (
          <option value={value}>{text}</option>
        ))}
      </select>
    </>
  );
}

/** A labelled search field over a signal; `onSearch` runs once typing pauses. */
export function SearchBox(props: { id: string; label: string; placeholder: string; text: Signal<string>; onSearch: () => void }) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="search"
        placeholder={props.placeholder}
        value={props.text.value}
        onInput={(e) => {
          props.text.value = e.currentTarget.value;
          clearTimeout(timer.current);
          timer.current = setTimeout(props.onSearch, 250);
        }}
      />
    </>
  );
}

/** A moment in the browser's words and time zone; a dash for none. */
export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * Text a member is typing, kept for the tab's life (a reload or a dropped connection keeps it): only what was
 * sent is forgotten.
 */
export const drafts = {
  get: (key: string) => sessionStorage.getItem(`hearth.console.draft.${key}`) ?? '',
  set: (key: string, text: string) => (text ? sessionStorage.setItem(`hearth.console.draft.${key}`, text) : sessionStorage.removeItem(`hearth.console.draft.${key}`)),
};

/**
 * A form sent to the server: `run` gets the form's fields; on a 400 each field's problem is kept for its
 * `Field`, any other refusal for the form's alert. Inputs are left as typed whatever the answer.
 */
export function useSubmit<T>(run: (data: FormData) => Promise<T>, onDone: (value: T, form: HTMLFormElement) => void) {
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setBusy(true);
    const outcome = await attempt(() => run(new FormData(form)));
    setBusy(false);
    setIssues(outcome.ok ? [] : outcome.issues);
    setMessage(outcome.ok || outcome.issues.length > 0 ? '' : outcome.message);
    if (outcome.ok) onDone(outcome.value, form);
    // After the render that marks the fields: the first refused one takes the focus.
    else setTimeout(() => form.querySelector<HTMLElement>('[aria-invalid=true]')?.focus(), 0);
  };
  return { onSubmit, issues, message, busy };
}

/** A form's fields as text: every control these forms send is a text input or a select. */
export const text = (data: FormData, name: string) => (data.get(name) as string | null) ?? '';

/** A labelled input whose problem (the server's issue for its `name`) shows beside it and is announced. */
export function Field(props: {
  id: string;
  name: string;
  label: string;
  issues: FieldIssue[];
  type?: 'text' | 'email' | 'password';
  autocomplete?: string;
  value?: string;
}) {
  const problem = props.issues.find((issue) => issue.path === props.name)?.message;
  const attributes = {
    id: props.id,
    name: props.name,
    autocomplete: props.autocomplete,
    defaultValue: props.value,
    'aria-invalid': problem ? ('true' as const) : undefined,
    'aria-describedby': problem ? `${props.id}-problem` : undefined,
  };
  return (
    <p class="field">
      <label for={props.id}>{props.label}</label>
      {props.type === 'password' ? <input type="password" {...attributes} /> : props.type === 'email' ? <input type="email" {...attributes} /> : <input type="text" {...attributes} />}
      {problem && (
        <span id={`${props.id}-problem`} class="field-error">
          {problem}
        </span>
      )}
    </p>
  );
}

/**
 * A labelled textarea whose text is kept as a draft (`drafts`, under `draftKey`) as it is typed, with the
 * server's problem for it beside it and announced. The form holds the text (it clears it once sent).
 */
export function DraftArea(props: { id: string; problemId: string; label: string; draftKey: string; rows: number; text: string; problem: string; onText: (text: string) => void }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        rows={props.rows}
        value={props.text}
        aria-invalid={props.problem ? 'true' : undefined}
        aria-describedby={props.problem ? props.problemId : undefined}
        onInput={(e) => {
          const value = e.currentTarget.value;
          drafts.set(props.draftKey, value);
          props.onText(value);
        }}
      />
      {props.problem && (
        <p id={props.problemId} class="field-error">
          {props.problem}
        </p>
      )}
    </>
  );
}

/** A form's refusal that belongs to no one field (a conflict, an expired link). */
export function FormProblem({ id, message }: { id: string; message: string }) {
  return (
    <p id={id} role="alert" class="field-error">
      {message}
    </p>
  );
}

/**
 * A deletion that asks first: the button, then the question with "yes" and "keep it". The focus goes to
 * "keep it", so a stray Enter deletes nothing, and back to the button when kept. `onYes` answers the
 * problem to show, or null when done. Ids: `<id>`, `<id>-question`, `<id>-confirm`, `<id>-keep`, `<id>-problem`.
 */
export function AskFirst(props: { id: string; label: string; question: string; yes: string; keep: string; onYes: () => Promise<string | null> }) {
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState('');
  const keep = useRef<HTMLButtonElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);
  const yes = async () => {
    setProblem('');
    setProblem((await props.onYes()) ?? '');
  };
  const kept = () => {
    setAsking(false);
    setTimeout(() => start.current?.focus(), 0);
  };
  return (
    <>
      {asking ? (
        <div class="confirm" role="group" aria-labelledby={`${props.id}-question`}>
          <p id={`${props.id}-question`}>{props.question}</p>
          <button type="button" id={`${props.id}-confirm`} class="danger" onClick={() => void yes()}>
            {props.yes}
          </button>
          <button type="button" id={`${props.id}-keep`} ref={keep} onClick={kept}>
            {props.keep}
          </button>
        </div>
      ) : (
        <p>
          <button type="button" id={props.id} class="danger" ref={start} onClick={() => setAsking(true)}>
            {props.label}
          </button>
        </p>
      )}
      {problem && <FormProblem id={`${props.id}-problem`} message={problem} />}
    </>
  );
}
