import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { hrefOf, route, type Section } from './router.js';
import { afterFirstPaint, loadView } from './store.js';
import { t } from './strings.js';
import * as posts from './posts.js';
import { FilterSelect, SearchBox, when } from './widgets.js';

/** The navigation leaves out what the member's role cannot use (the server refuses it anyway). */
export const sectionShown = (section: Section) => (section !== 'posts' && section !== 'media' && section !== 'structure') || posts.writesContent.value;

/** The editor is its own chunk, loaded the first time a post is opened. */
type EditorModule = { PostEditor: ComponentType<{ id: string }> };
let editorModule: Promise<EditorModule> | null = null;
const loadEditor = () => (editorModule ??= import('./post-editor.js'));

export function PostsView() {
  const id = route.value.id;
  if (!posts.writesContent.value) return <p class="box">{t.postsOnlyEditors}</p>;
  return id ? <EditorSlot id={id} /> : <PostList />;
}

function EditorSlot({ id }: { id: string }) {
  const [editor, setEditor] = useState<EditorModule | null>(null);
  useEffect(() => {
    void loadEditor().then(setEditor);
  }, []);
  if (!editor) return <p class="box muted" aria-busy="true">{t.loadingEditor}</p>;
  const { PostEditor } = editor;
  return <PostEditor key={id} id={id} />;
}

function PostList() {
  useEffect(() => {
    loadView(posts.loadPosts);
    afterFirstPaint(() => void posts.loadChoices());
  }, []);
  const items = posts.list.value;
  const stateOptions = Object.fromEntries((['all', 'DRAFT', 'PUBLISHED', 'UNPUBLISHED', 'SCHEDULED'] as const).map((state) => [state, t.postStates[state]])) as Record<posts.StateFilter, string>;
  const typeOptions: Record<string, string> = { '': t.anyType, ...Object.fromEntries(posts.types.value.map((type) => [type.slug, type.name])) };
  const localeOptions: Record<string, string> = { '': t.anyLocale, ...Object.fromEntries(posts.locales.value.map((locale) => [locale, locale])) };
  return (
    <section class="box" aria-labelledby="posts-title">
      <div class="head">
        <h2 id="posts-title">{t.posts}</h2>
        <a class="button" id="new-post" href={hrefOf('posts', 'new')}>
          {t.newPost}
        </a>
      </div>
      <div class="filters">
        <FilterSelect id="post-state" label={t.state} filter={posts.stateFilter} options={stateOptions} onChange={posts.refilter} />
        <FilterSelect id="post-type" label={t.postType} filter={posts.typeFilter} options={typeOptions} onChange={posts.refilter} />
        <FilterSelect id="post-locale" label={t.locale} filter={posts.localeFilter} options={localeOptions} onChange={posts.refilter} />
        <SearchBox id="post-search" label={t.search} placeholder={t.searchPosts} text={posts.query} onSearch={posts.refilter} />
      </div>
      <ul id="posts" class="entries" aria-label={t.posts}>
        {items.map((post) => (
          <li key={post.id}>
            <a href={hrefOf('posts', post.id)} id={`post-${post.id}`} data-state={post.state}>
              <span class="who">{post.title}</span>
              <span class="last">{` · ${post.locale} · ${stateText(post)} · ${when(post.updatedAt)}`}</span>
            </a>
          </li>
        ))}
      </ul>
      {posts.loaded.value && items.length === 0 && <p class="muted">{t.noPosts}</p>}
      <Pager />
    </section>
  );
}

function stateText(post: posts.ListedPost): string {
  const publish = post.scheduled.find((change) => change.action === 'publish');
  const state = publish ? t.scheduledAt(when(publish.at)) : t.postStates[post.state];
  return post.state === 'PUBLISHED' && post.hasUnpublishedChanges ? `${state} (${t.unpublishedChanges})` : state;
}

function Pager() {
  const current = posts.page.value;
  const more = posts.hasNext.value;
  if (current <= 1 && !more) return null;
  return (
    <nav class="pager" aria-label={t.postsPages}>
      <button type="button" disabled={current <= 1} onClick={() => posts.turnPage(current - 1)}>
        {t.previousPage}
      </button>
      <span id="posts-page" aria-live="polite">
        {t.pageNumber(current)}
      </span>
      <button type="button" id="next-page" disabled={!more} onClick={() => posts.turnPage(current + 1)}>
        {t.nextPage}
      </button>
    </nav>
  );
}
