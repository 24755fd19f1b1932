import type { Signal } from '@preact/signals';
import { useRef } from 'preact/hooks';

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
