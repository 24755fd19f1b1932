import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { FieldIssue } from './api.js';
import { hrefOf } from './router.js';
import { error } from './store.js';
import { t } from './strings.js';
import * as posts from './posts.js';
import * as navs from './navigations.js';
import { FormProblem } from './widgets.js';
import { NavigationSettings } from './navigation-settings.js';

type Editor = navs.OpenNavigation;

const report = (err: unknown) => (error.value = err instanceof Error ? err.message : String(err));

/** The words an item goes by: its label in the first locale that has one, else its post's title. */
function labelOf(node: navs.TreeNode): string {
  const locales = posts.locales.value;
  const label = [...locales, ...Object.keys(node.labels)].map((locale) => node.labels[locale]?.trim()).find((text) => text);
  if (label) return label;
  const post = node.type === 'POST' ? navs.postChoices.value.find((choice) => choice.id === node.postId) : undefined;
  return post?.title ?? t.navNoLabel;
}

/** One menu's items as a tree, arranged with buttons (keyboard first); saved whole with `If-Match`. */
export function NavigationEditor({ id }: { id: string }) {
  const editor = useMemo(() => navs.openNavigation(id), [id]);
  const [announcement, setAnnouncement] = useState('');
  /** The control to focus once the tree has re-rendered (a moved item may have been rebuilt elsewhere). */
  const focusNext = useRef<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  /** Why the navigation could not be shown (gone, another workspace's, no connection). */
  const [failed, setFailed] = useState('');
  useEffect(() => {
    const choices = navs.loadPostChoices();
    editor.load().then(
      () => {
        heading.current?.focus();
        // After the newest posts (asked for below, alongside the navigation): only those older are read here.
        void choices.then(() => navs.loadLinkedPosts(linkedPosts(editor.tree.value)));
      },
      (err: unknown) => setFailed(err instanceof Error ? err.message : String(err)),
    );
    if (posts.locales.value.length === 0) void posts.loadChoices();
  }, [editor]);
  const tree = editor.tree.value;
  // In the commit that rebuilt the tree, not after the next frame: the moved control's old element is gone,
  // and until then the focus sat on the page itself (a screen reader says so; a loaded page kept it there).
  useLayoutEffect(() => {
    if (!focusNext.current) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = null;
  }, [tree]);
  const navigation = editor.base.value;
  if (failed)
    return (
      <section class="box" aria-labelledby="navigation-failed">
        <FormProblem id="navigation-failed" message={failed} />
        <a href={hrefOf('structure')}>{t.backToStructure}</a>
      </section>
    );
  if (!navigation) return <p class="box muted" aria-busy="true" />;

  const move = (node: navs.TreeNode, how: navs.Move) => {
    const result = navs.moved(tree, node.id, how);
    const label = labelOf(node);
    if (!result) return setAnnouncement(t.navCannotMove(label));
    focusNext.current = `item-${node.id}-${how}`;
    editor.change(result.tree);
    setAnnouncement(t.navMoved(label, result.placed.position, result.placed.count, result.placed.parent ? labelOf(result.placed.parent) : null));
  };
  const remove = (node: navs.TreeNode) => {
    focusNext.current = 'nav-items-title';
    editor.change(navs.withoutNode(tree, node.id));
    setAnnouncement(t.navRemoved(labelOf(node)));
  };
  const add = (node: navs.TreeNode) => {
    editor.change([...tree, node]);
    setAnnouncement(t.navAdded(labelOf(node)));
  };
  const saving = editor.state.value === 'saving';
  return (
    <section class="box navigation-editor" aria-labelledby="navigation-title">
      <div class="head">
        <a href={hrefOf('structure')} id="back-to-structure">
          {t.backToStructure}
        </a>
      </div>
      <h2 id="navigation-title" tabIndex={-1} ref={heading}>
        {`${navigation.name} (${navigation.key})`}
      </h2>
      <NavigationSettings editor={editor} />
      <p id="nav-state" role="status" class="muted" data-state={editor.state.value}>
        {t.navStates[editor.state.value]}
      </p>
      {editor.state.value === 'conflict' && <ConflictChoice editor={editor} />}
      {editor.state.value === 'restored' && (
        <p class="actions">
          <button type="button" id="nav-discard" onClick={() => void editor.takeTheirs().catch(report)}>
            {t.navDiscard}
          </button>
        </p>
      )}
      {editor.problem.value && <FormProblem id="nav-problem" message={editor.problem.value} />}
      <h3 id="nav-items-title" tabIndex={-1}>
        {t.navItems}
      </h3>
      <p id="nav-help" class="muted">
        {t.navTreeHelp}
      </p>
      {tree.length === 0 ? (
        <p class="muted">{t.navNoItems}</p>
      ) : (
        <ol id="nav-tree" class="tree" aria-labelledby="nav-items-title" aria-describedby="nav-help">
          {tree.map((node) => (
            <ItemRow key={node.id} node={node} editor={editor} onMove={move} onRemove={remove} />
          ))}
        </ol>
      )}
      <p id="nav-announce" class="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      <p class="actions">
        {/* Not `disabled` while saving: the focus stays on it (a disabled button drops it to the page's start). */}
        <button type="button" id="nav-save" class="primary" aria-disabled={saving ? 'true' : undefined} onClick={() => void (saving || editor.save().catch(report))}>
          {t.navSave}
        </button>
      </p>
      <AddItem onAdd={add} />
    </section>
  );
}

function ConflictChoice({ editor }: { editor: Editor }) {
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => panel.current?.focus(), []);
  return (
    <div id="nav-conflict" class="conflict" role="group" aria-labelledby="nav-state" tabIndex={-1} ref={panel}>
      <p>{t.navConflictHelp}</p>
      <p class="actions">
        <button type="button" id="nav-save-mine" onClick={() => void editor.saveOver().catch(report)}>
          {t.navSaveMine}
        </button>
        <button type="button" id="nav-take-theirs" onClick={() => void editor.takeTheirs().catch(report)}>
          {t.navTakeTheirs}
        </button>
      </p>
    </div>
  );
}

const ARROWS: Record<string, navs.Move | undefined> = { ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'outdent', ArrowRight: 'indent' };

const MOVES: { how: navs.Move; glyph: string; text: (label: string) => string }[] = [
  { how: 'up', glyph: '↑', text: (label) => t.navMoveUp(label) },
  { how: 'down', glyph: '↓', text: (label) => t.navMoveDown(label) },
  { how: 'outdent', glyph: '←', text: (label) => t.navOutdent(label) },
  { how: 'indent', glyph: '→', text: (label) => t.navIndent(label) },
];

function ItemRow(props: { node: navs.TreeNode; editor: Editor; onMove: (node: navs.TreeNode, how: navs.Move) => void; onRemove: (node: navs.TreeNode) => void }) {
  const { node, editor } = props;
  const issues = editor.itemIssues.value[node.id] ?? [];
  const label = labelOf(node);
  const base = `item-${node.id}`;
  /** Alt + an arrow key on one of the item's buttons moves it, as the buttons do. */
  const onKeyDown = (e: KeyboardEvent) => {
    const how = e.altKey && !e.ctrlKey && !e.metaKey ? ARROWS[e.key] : undefined;
    if (!how) return;
    e.preventDefault();
    e.stopPropagation();
    props.onMove(node, how);
  };
  // Opened when the server refuses one of its fields; closed only by the person (typing must not close it).
  const details = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (issues.length > 0 && details.current) details.current.open = true;
  }, [issues.length]);
  const target = node.type === 'CUSTOM_URL' ? node.customUrl : node.type === 'POST' ? (navs.postChoices.value.find((post) => post.id === node.postId)?.title ?? '') : '';
  const facts = [t.navItemTypes[node.type], target, node.hiddenLocales.length ? t.navHiddenIn(node.hiddenLocales.join(', ')) : ''].filter(Boolean).join(' · ');
  return (
    <li id={base} data-label={label}>
      <div class="nav-row" onKeyDown={onKeyDown}>
        <span class="nav-what">
          <span class="who">{label}</span> <span class="muted">{facts}</span>
        </span>
        <span class="actions">
          {MOVES.map(({ how, glyph, text }) => (
            <button type="button" key={how} id={`${base}-${how}`} class="icon" title={text(label)} onClick={() => props.onMove(node, how)}>
              <span aria-hidden="true">{glyph}</span>
              <span class="visually-hidden">{text(label)}</span>
            </button>
          ))}
        </span>
      </div>
      {issues.length > 0 && <p class="field-error">{t.navStates.refused}</p>}
      <details ref={details}>
        <summary id={`${base}-edit`}>
          {t.navEdit}
          <span class="visually-hidden">{` ${label}`}</span>
        </summary>
        <ItemFields node={node} editor={editor} issues={issues} />
        <button type="button" id={`${base}-remove`} class="danger" onClick={() => props.onRemove(node)}>
          {t.navRemove}
          <span class="visually-hidden">{` ${label}`}</span>
        </button>
      </details>
      {node.children.length > 0 && (
        <ol aria-label={label}>
          {node.children.map((child) => (
            <ItemRow key={child.id} {...props} node={child} />
          ))}
        </ol>
      )}
    </li>
  );
}

/** The server's problem for `path` on this item, shown under its field. */
function Problem({ id, issues, path }: { id: string; issues: FieldIssue[]; path: string }) {
  const problem = issues.find((issue) => issue.path === path)?.message;
  return problem ? (
    <span id={id} class="field-error">
      {problem}
    </span>
  ) : null;
}

const invalid = (issues: FieldIssue[], path: string, id: string) =>
  issues.some((issue) => issue.path === path) ? { 'aria-invalid': 'true' as const, 'aria-describedby': id } : {};

function ItemFields({ node, editor, issues }: { node: navs.TreeNode; editor: Editor; issues: FieldIssue[] }) {
  const base = `item-${node.id}`;
  const edit = (path: string, change: (draft: navs.TreeNode) => void) => {
    editor.change(navs.withNode(editor.tree.value, node.id, change));
    editor.touched(node.id, path);
    // A label typed in any locale answers "at least one label".
    if (path.startsWith('labels.')) editor.touched(node.id, 'labels');
  };
  const known = new Set(['customUrl', 'postId', 'labels', ...posts.locales.value.map((locale) => `labels.${locale}`)]);
  const others = issues.filter((issue) => !known.has(issue.path));
  return (
    <div class="stack">
      {node.type === 'CUSTOM_URL' && (
        <p class="field">
          <label for={`${base}-url`}>{t.navUrl}</label>
          <input id={`${base}-url`} type="text" value={node.customUrl} {...invalid(issues, 'customUrl', `${base}-url-problem`)} onInput={(e) => edit('customUrl', (draft) => (draft.customUrl = e.currentTarget.value))} />
          <Problem id={`${base}-url-problem`} issues={issues} path="customUrl" />
        </p>
      )}
      {node.type === 'POST' && (
        <p class="field">
          <label for={`${base}-post`}>{t.navPost}</label>
          <PostSelect id={`${base}-post`} value={node.postId} attributes={invalid(issues, 'postId', `${base}-post-problem`)} onChange={(value) => edit('postId', (draft) => (draft.postId = value))} />
          <Problem id={`${base}-post-problem`} issues={issues} path="postId" />
        </p>
      )}
      {posts.locales.value.map((locale) => (
        <div class="locale-row" key={locale}>
          <p class="field">
            <label for={`${base}-label-${locale}`}>{t.navLabelIn(locale)}</label>
            <input
              id={`${base}-label-${locale}`}
              type="text"
              value={node.labels[locale] ?? ''}
              {...invalid(issues, `labels.${locale}`, `${base}-label-${locale}-problem`)}
              onInput={(e) => edit(`labels.${locale}`, (draft) => (draft.labels[locale] = e.currentTarget.value))}
            />
            <Problem id={`${base}-label-${locale}-problem`} issues={issues} path={`labels.${locale}`} />
          </p>
          <label class="check">
            <input
              type="checkbox"
              id={`${base}-hide-${locale}`}
              checked={node.hiddenLocales.includes(locale)}
              onChange={(e) => {
                const hide = e.currentTarget.checked;
                edit('hiddenLocales', (draft) => (draft.hiddenLocales = hide ? [...draft.hiddenLocales, locale] : draft.hiddenLocales.filter((code) => code !== locale)));
              }}
            />{' '}
            {t.navHideIn(locale)}
          </label>
        </div>
      ))}
      <Problem id={`${base}-labels-problem`} issues={issues} path="labels" />
      {others.map((issue) => (
        <span class="field-error" key={issue.path}>{`${issue.path}: ${issue.message}`}</span>
      ))}
    </div>
  );
}

/** The posts the tree's items link. */
function linkedPosts(tree: navs.TreeNode[]): string[] {
  return tree.flatMap((node) => [...(node.type === 'POST' && node.postId ? [node.postId] : []), ...linkedPosts(node.children)]);
}

/** A choice of post: the newest ones, or those a search by title or slug finds among all of them. */
function PostSelect(props: { id: string; value: string; attributes?: ReturnType<typeof invalid>; onChange: (value: string) => void }) {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<string[] | null>(null);
  const [problem, setProblem] = useState('');
  const search = () => {
    const q = query.trim();
    if (!q) return setFound(null);
    navs.findPostChoices(q).then(
      (ids) => {
        setFound(ids);
        setProblem('');
      },
      (err: unknown) => setProblem(err instanceof Error ? err.message : String(err)),
    );
  };
  const shown = found ? navs.postChoices.value.filter((post) => found.includes(post.id) || post.id === props.value) : navs.postChoices.value;
  return (
    <span class="post-select">
      <span class="post-search">
        <input
          type="search"
          id={`${props.id}-search`}
          aria-label={t.navFindPost}
          placeholder={t.navFindPost}
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => {
            // Enter searches; it must not submit the form around it.
            if (e.key !== 'Enter') return;
            e.preventDefault();
            search();
          }}
        />
        <button type="button" id={`${props.id}-find`} onClick={search}>
          {t.navFind}
        </button>
      </span>
      <select id={props.id} value={props.value} {...props.attributes} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{t.navChoosePost}</option>
        {shown.map((post) => (
          <option key={post.id} value={post.id}>{`${post.title} (${post.locale})`}</option>
        ))}
      </select>
      <span role="status" class="muted">
        {problem || (found ? t.navPostsFound(found.length) : '')}
      </span>
    </span>
  );
}

/** A new item, appended at the top level; the tree's buttons then place it. Saved with the tree. */
function AddItem({ onAdd }: { onAdd: (node: navs.TreeNode) => void }) {
  const [type, setType] = useState<navs.ItemType>('CUSTOM_URL');
  const [labels, setLabels] = useState<Record<string, string>>({});
  const [url, setUrl] = useState('');
  const [postId, setPostId] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    onAdd({ id: navs.newItemId(), type, customUrl: url, postId, labels, hiddenLocales: [], imageUrl: null, customConfig: null, children: [] });
    setLabels({});
    setUrl('');
    setPostId('');
  };
  return (
    <form id="nav-add" class="stack" onSubmit={submit} aria-labelledby="nav-add-title">
      <h3 id="nav-add-title">{t.navAddItem}</h3>
      <p class="field">
        <label for="nav-add-type">{t.navItemType}</label>
        <select id="nav-add-type" value={type} onChange={(e) => setType(e.currentTarget.value as navs.ItemType)}>
          {(['CUSTOM_URL', 'POST', 'HEADING'] as const).map((kind) => (
            <option key={kind} value={kind}>
              {t.navItemTypes[kind]}
            </option>
          ))}
        </select>
      </p>
      {posts.locales.value.map((locale) => (
        <p class="field" key={locale}>
          <label for={`nav-add-label-${locale}`}>{t.navLabelIn(locale)}</label>
          <input id={`nav-add-label-${locale}`} type="text" value={labels[locale] ?? ''} onInput={(e) => setLabels({ ...labels, [locale]: e.currentTarget.value })} />
        </p>
      ))}
      {type === 'CUSTOM_URL' && (
        <p class="field">
          <label for="nav-add-url">{t.navUrl}</label>
          <input id="nav-add-url" type="text" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </p>
      )}
      {type === 'POST' && (
        <p class="field">
          <label for="nav-add-post">{t.navPost}</label>
          <PostSelect id="nav-add-post" value={postId} onChange={setPostId} />
        </p>
      )}
      <button type="submit" id="nav-add-submit">
        {t.navAddButton}
      </button>
    </form>
  );
}
