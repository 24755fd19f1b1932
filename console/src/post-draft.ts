import { batch, signal } from '@preact/signals';
import { ApiError, type FieldIssue } from './api.js';
import { call, error, workspaceId, ws } from './store.js';
import { postPath, versionedCall, type AdminPost } from './posts.js';

/**
 * One open post being edited: what the server last answered (`base`, with its version), what the person has
 * typed (`fields`), and the saving between them. Every save names the version it was made on (`If-Match`);
 * what is typed is also kept in localStorage at once, so a reload, a crash or a dropped connection loses
 * nothing: it is restored on the next open and saved then.
 */

export const FIELDS = ['title', 'slug', 'metaDescription', 'contentMarkdown'] as const;
export type FieldName = (typeof FIELDS)[number];
export type Fields = Record<FieldName, string>;

export const fieldsOf = (post: AdminPost): Fields => ({
  title: post.title,
  slug: post.slug,
  metaDescription: post.metaDescription,
  contentMarkdown: post.contentMarkdown ?? '',
});

const changed = (from: Fields, to: Fields) => FIELDS.filter((name) => from[name] !== to[name]);

/** What localStorage keeps of an unsaved edit: the fields typed and the version and fields they were typed on. */
interface Kept {
  version: number;
  base: Fields;
  fields: Fields;
}

export const keptKey = (postId: string) => `hearth.console.post.${workspaceId.value ?? ''}.${postId}`;

function readKept(postId: string): Kept | null {
  try {
    const text = localStorage.getItem(keptKey(postId));
    return text ? (JSON.parse(text) as Kept) : null;
  } catch {
    return null;
  }
}

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'offline' | 'restored' | 'conflict' | 'refused';

/** A field typed differently here and saved differently by someone else since: the person keeps one. */
export interface Conflict {
  theirs: AdminPost;
  fields: FieldName[];
}

const AUTOSAVE_MS = 1000;
const RETRY_MS = 3000;
const RENDER_MS = 300;

export function openDraft(postId: string) {
  const base = signal<AdminPost | null>(null);
  const fields = signal<Fields>({ title: '', slug: '', metaDescription: '', contentMarkdown: '' });
  const state = signal<SaveState>('saved');
  const conflict = signal<Conflict | null>(null);
  const issues = signal<FieldIssue[]>([]);
  const html = signal('');
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  let renderTimer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<void> | null = null;
  let again = false;
  let closed = false;
  /** While a conflict is open: the fields the unsaved edit was typed on (kept with it, for a reload). */
  let typedOn: Fields | null = null;

  const dirty = () => (base.value ? changed(fieldsOf(base.value), fields.value).length > 0 : false);

  function keep(): void {
    const post = base.value;
    if (!post) return;
    const on = conflict.value && typedOn ? typedOn : fieldsOf(post);
    if (changed(on, fields.value).length) localStorage.setItem(keptKey(postId), JSON.stringify({ version: post.version, base: on, fields: fields.value } satisfies Kept));
    else localStorage.removeItem(keptKey(postId));
  }

  function render(): void {
    clearTimeout(renderTimer);
    renderTimer = setTimeout(() => {
      const markdown = fields.value.contentMarkdown;
      // With the post's locale: its media images show the alt texts visitors of that locale will get.
      call<{ contentHtml: string }>('POST', `${ws()}/posts/preview-render`, { contentMarkdown: markdown, locale: base.value?.locale })
        .then((res) => {
          if (!closed && fields.value.contentMarkdown === markdown) html.value = res.contentHtml;
        })
        .catch(() => undefined);
    }, RENDER_MS);
  }

  function schedule(ms = AUTOSAVE_MS): void {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => void save(), ms);
  }

  /**
   * Someone saved since `base`: each field takes the change made on one side only; a field both changed
   * differently is a conflict for the person to settle. Without one the merge is saved at once.
   */
  function merge(theirs: AdminPost): void {
    const mine = fields.value;
    const before = base.value ? fieldsOf(base.value) : mine;
    const saved = fieldsOf(theirs);
    const merged = { ...mine };
    const clashes: FieldName[] = [];
    for (const name of FIELDS) {
      if (mine[name] === before[name]) merged[name] = saved[name];
      else if (saved[name] !== before[name] && saved[name] !== mine[name]) clashes.push(name);
    }
    typedOn = clashes.length ? before : null;
    batch(() => {
      base.value = theirs;
      fields.value = merged;
      conflict.value = clashes.length ? { theirs, fields: clashes } : null;
      state.value = clashes.length ? 'conflict' : dirty() ? 'unsaved' : 'saved';
    });
    // Until the person decides, the browser keeps the unsaved side with the fields it was typed on.
    keep();
    render();
    if (clashes.length === 0 && dirty()) schedule(0);
  }

  async function saveOnce(): Promise<void> {
    const post = base.value;
    if (!post || conflict.value || !dirty()) return;
    const sent = fields.value;
    const patch = Object.fromEntries(changed(fieldsOf(post), sent).map((name) => [name, sent[name]]));
    state.value = 'saving';
    try {
      const stored = await versionedCall<AdminPost>('PATCH', postPath(postId), patch, post.version);
      if (closed) return;
      batch(() => {
        base.value = stored;
        issues.value = [];
        state.value = dirty() ? 'unsaved' : 'saved';
      });
      keep();
      if (dirty()) schedule();
    } catch (err) {
      if (closed) return;
      if (err instanceof ApiError && err.status === 412) merge(await call<AdminPost>('GET', postPath(postId)));
      else if (err instanceof ApiError && err.status === 0) {
        state.value = 'offline';
        schedule(RETRY_MS);
      } else if (err instanceof ApiError && (err.issues.length || err.status === 409)) {
        batch(() => {
          issues.value = err.issues.length ? err.issues : [{ path: 'slug', message: err.message }];
          state.value = 'refused';
        });
      } else {
        error.value = err instanceof Error ? err.message : String(err);
        state.value = 'offline';
        schedule(RETRY_MS);
      }
    }
  }

  /** Saves what is typed now; a call while a save runs makes one more afterwards. */
  function save(): Promise<void> {
    clearTimeout(saveTimer);
    if (saving) {
      again = true;
      return saving;
    }
    saving = (async () => {
      do {
        again = false;
        await saveOnce();
      } while (again && !closed);
    })().finally(() => (saving = null));
    return saving;
  }

  return {
    base,
    fields,
    state,
    conflict,
    issues,
    html,
    dirty,
    save,
    /** Loads the post; an edit kept from before is restored over it (or met as a conflict when the post moved on). */
    async load(): Promise<void> {
      const post = await call<AdminPost>('GET', postPath(postId));
      if (closed) return;
      const kept = readKept(postId);
      const restoring = kept && changed(kept.base, kept.fields).length > 0;
      batch(() => {
        base.value = restoring ? { ...post, ...kept.base, version: kept.version } : post;
        fields.value = restoring ? kept.fields : fieldsOf(post);
      });
      if (restoring && kept.version !== post.version) merge(post);
      else if (restoring) {
        state.value = 'restored';
        schedule(0);
      }
      render();
    },
    type(name: FieldName, value: string): void {
      fields.value = { ...fields.value, [name]: value };
      if (issues.value.some((issue) => issue.path === name)) issues.value = issues.value.filter((issue) => issue.path !== name);
      if (conflict.value) return void keep();
      state.value = state.value === 'offline' ? 'offline' : 'unsaved';
      keep();
      if (name === 'contentMarkdown') render();
      schedule();
    },
    /** Settles a conflict: one side's fields are kept and saved over the other's version. */
    resolve(keepMine: boolean): void {
      const open = conflict.value;
      if (!open) return;
      const theirs = fieldsOf(open.theirs);
      typedOn = null;
      batch(() => {
        if (!keepMine) fields.value = { ...fields.value, ...Object.fromEntries(open.fields.map((name) => [name, theirs[name]])) };
        conflict.value = null;
        state.value = dirty() ? 'unsaved' : 'saved';
      });
      keep();
      render();
      if (dirty()) void save();
    },
    /** A publish or unpublish answered the post at its new version. */
    adopt(post: AdminPost): void {
      base.value = post;
      keep();
      if (dirty()) schedule();
    },
    close(): void {
      closed = true;
      clearTimeout(saveTimer);
      clearTimeout(renderTimer);
    },
  };
}

export type Draft = ReturnType<typeof openDraft>;
