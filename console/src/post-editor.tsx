import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { FieldIssue } from './api.js';
import { attempt } from './api.js';
import { hrefOf, navigate } from './router.js';
import { call, error, ws } from './store.js';
import { t } from './strings.js';
import * as posts from './posts.js';
import { keptKey, openDraft, type Draft, type FieldName, type Fields } from './post-draft.js';
import { PostSidebar } from './post-sidebar.js';
import { FormProblem } from './widgets.js';

/** The post editor (its own chunk): `#/posts/new` creates a draft, `#/posts/<id>` edits one. */
export function PostEditor({ id }: { id: string }) {
  useEffect(() => {
    if (posts.locales.value.length === 0) void posts.loadChoices();
  }, []);
  return (
    <section class="box editor" aria-labelledby="editor-title">
      <div class="head">
        <a href={hrefOf('posts')} id="back-to-posts">
          {t.backToPosts}
        </a>
      </div>
      {id === 'new' ? <NewPost /> : <EditPost id={id} />}
    </section>
  );
}

const SAVE_TEXT = () => ({
  saved: t.saved,
  unsaved: t.unsaved,
  saving: t.saving,
  offline: t.keptLocally,
  restored: t.restored,
  conflict: t.conflictTitle,
  refused: t.unsaved,
});

function EditPost({ id }: { id: string }) {
  const draft = useMemo(() => openDraft(id), [id]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    draft.load().then(
      () => heading.current?.focus(),
      (err: unknown) => (error.value = err instanceof Error ? err.message : String(err)),
    );
    // Back online: what waits in this browser is saved now rather than at the next retry.
    const online = () => void draft.save();
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('online', online);
      draft.close();
    };
  }, [draft]);
  const post = draft.base.value;
  if (!post) return <p class="muted" aria-busy="true" />;
  return (
    <>
      <h2 id="editor-title" tabIndex={-1} ref={heading}>
        {draft.fields.value.title || t.title}
      </h2>
      <p id="save-state" role="status" class="muted" data-state={draft.state.value}>
        {SAVE_TEXT()[draft.state.value]}
      </p>
      {draft.conflict.value && <ConflictPanel draft={draft} />}
      <div class="editor-grid">
        <div class="stack wide">
          <PostFields fields={draft.fields.value} issues={draft.issues.value} onType={(name, value) => draft.type(name, value)} />
          <button type="button" id="save-now" onClick={() => void draft.save()} disabled={!draft.dirty() || draft.conflict.value !== null}>
            {t.saveNow}
          </button>
          <PostSidebar draft={draft} post={post} />
        </div>
        {/* Last in the page: the post's own headings (any level) come after every heading of the app. */}
        <section class="preview" aria-labelledby="preview-title">
          <h3 id="preview-title">{t.preview}</h3>
          <p class="muted">{t.previewHelp}</p>
          {/* The server's renderer and sanitizer made this HTML (POST .../posts/preview-render). */}
          <div id="preview" class="rendered" dangerouslySetInnerHTML={{ __html: draft.html.value }} />
        </section>
      </div>
    </>
  );
}

/** The editable fields; each shows the server's problem beside it. */
function PostFields(props: { fields: Fields; issues: FieldIssue[]; onType: (name: FieldName, value: string) => void; locale?: preact.ComponentChildren }) {
  const input = (name: FieldName, label: string, multiline?: number) => {
    const problem = props.issues.find((issue) => issue.path === name)?.message;
    const common = {
      id: `post-${name}`,
      value: props.fields[name],
      'aria-invalid': problem ? ('true' as const) : undefined,
      'aria-describedby': problem ? `post-${name}-problem` : undefined,
      onInput: (e: Event) => props.onType(name, (e.currentTarget as HTMLInputElement).value),
    };
    return (
      <p class="field">
        <label for={`post-${name}`}>{label}</label>
        {multiline ? <textarea rows={multiline} {...common} /> : <input type="text" {...common} />}
        {problem && (
          <span id={`post-${name}-problem`} class="field-error">
            {problem}
          </span>
        )}
      </p>
    );
  };
  return (
    <>
      {input('title', t.title)}
      {input('slug', t.slug)}
      {props.locale}
      {input('metaDescription', t.excerpt, 2)}
      {input('contentMarkdown', t.body, 16)}
    </>
  );
}

function ConflictPanel({ draft }: { draft: Draft }) {
  const open = draft.conflict.value!;
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => panel.current?.focus(), []);
  const theirs: Record<string, string> = { ...open.theirs, contentMarkdown: open.theirs.contentMarkdown ?? '' } as unknown as Record<string, string>;
  return (
    <div id="conflict" class="conflict" role="group" aria-labelledby="conflict-title" tabIndex={-1} ref={panel}>
      <h3 id="conflict-title">{t.conflictTitle}</h3>
      <p>{t.conflictHelp}</p>
      {open.fields.map((name) => (
        <div class="sides" key={name}>
          <h4>{t.field[name]}</h4>
          <div>
            <p class="muted">{t.serverVersion}</p>
            <pre id={`theirs-${name}`}>{theirs[name]}</pre>
          </div>
          <div>
            <p class="muted">{t.yourVersion}</p>
            <pre id={`mine-${name}`}>{draft.fields.value[name]}</pre>
          </div>
        </div>
      ))}
      <p class="actions">
        <button type="button" id="keep-mine" onClick={() => draft.resolve(true)}>
          {t.keepMine}
        </button>
        <button type="button" id="keep-theirs" onClick={() => draft.resolve(false)}>
          {t.keepTheirs}
        </button>
      </p>
    </div>
  );
}

const NEW_KEY = 'new';
const slugFrom = (title: string) =>
  title
    .normalize('NFKC')
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);

/** A new draft: typed into localStorage as well until the server has it. */
function NewPost() {
  const stored = useMemo(() => {
    try {
      return JSON.parse(localStorage.getItem(keptNewKey()) ?? 'null') as (Fields & { locale: string; slugTouched: boolean }) | null;
    } catch {
      return null;
    }
  }, []);
  const [fields, setFields] = useState<Fields>(stored ?? { title: '', slug: '', metaDescription: '', contentMarkdown: '' });
  const [locale, setLocale] = useState(stored?.locale ?? '');
  const [slugTouched, setSlugTouched] = useState(stored?.slugTouched ?? false);
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const chosenLocale = locale || posts.locales.value[0] || '';
  const remember = (next: Fields, nextLocale: string, touched: boolean) => localStorage.setItem(keptNewKey(), JSON.stringify({ ...next, locale: nextLocale, slugTouched: touched }));
  const onType = (name: FieldName, value: string) => {
    const touched = slugTouched || name === 'slug';
    const next = { ...fields, [name]: value, ...(name === 'title' && !touched ? { slug: slugFrom(value) } : {}) };
    setFields(next);
    setSlugTouched(touched);
    remember(next, locale, touched);
  };
  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    const outcome = await attempt(() => call<posts.AdminPost>('POST', `${ws()}/posts`, { ...fields, locale: chosenLocale, contentMarkdown: fields.contentMarkdown || null }));
    setBusy(false);
    if (outcome.ok) {
      localStorage.removeItem(keptNewKey());
      navigate('posts', outcome.value.id);
      return;
    }
    setIssues(outcome.issues);
    setProblem(outcome.issues.length ? '' : outcome.message);
  };
  const localeChoice = (
    <p class="field">
      <label for="post-locale-new">{t.locale}</label>
      <select
        id="post-locale-new"
        value={chosenLocale}
        onChange={(e) => {
          setLocale(e.currentTarget.value);
          remember(fields, e.currentTarget.value, slugTouched);
        }}
      >
        {posts.locales.value.map((code) => (
          <option key={code} value={code}>
            {code}
          </option>
        ))}
      </select>
    </p>
  );
  return (
    <form id="new-post-form" class="stack wide" onSubmit={create}>
      <h2 id="editor-title">{t.newPost}</h2>
      <PostFields fields={fields} issues={issues} onType={onType} locale={localeChoice} />
      {problem && <FormProblem id="new-post-problem" message={problem} />}
      <button type="submit" disabled={busy}>
        {t.createDraft}
      </button>
    </form>
  );
}

const keptNewKey = () => keptKey(NEW_KEY);
