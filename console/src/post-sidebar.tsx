import { useEffect, useState } from 'preact/hooks';
import { attempt } from './api.js';
import { hrefOf, navigate } from './router.js';
import { call, ws } from './store.js';
import { t } from './strings.js';
import * as posts from './posts.js';
import type { Draft } from './post-draft.js';
import { FormProblem, when } from './widgets.js';
import { Classification, DeletePost } from './post-extras.js';
import { PostImage } from './post-image.js';

/** Beside the text: publication (now, later, undo), the preview link and the translations. */
export function PostSidebar({ draft, post }: { draft: Draft; post: posts.AdminPost }) {
  return (
    <div class="sidebar">
      <Publication draft={draft} post={post} />
      <PreviewLink post={post} />
      <Translations draft={draft} post={post} />
      <PostImage draft={draft} post={post} />
      <Classification draft={draft} post={post} />
      <DeletePost draft={draft} post={post} />
    </div>
  );
}

function Publication({ draft, post }: { draft: Draft; post: posts.AdminPost }) {
  const [pending, setPending] = useState<posts.ScheduledChange[]>([]);
  const [at, setAt] = useState('');
  const [done, setDone] = useState('');
  const [problem, setProblem] = useState('');
  const reloadSchedule = async () => setPending((await call<{ items: posts.ScheduledChange[] }>('GET', `${posts.postPath(post.id)}/schedule`)).items);
  useEffect(() => void reloadSchedule().catch(() => undefined), [post.id]);

  /** What is typed is saved first: a publish copies the saved draft. */
  const run = async (action: 'publish' | 'unpublish', when?: string) => {
    setDone('');
    setProblem('');
    await draft.save();
    if (draft.dirty() || draft.conflict.value) return setProblem(t.unsaved);
    const outcome = await attempt(() => call<posts.AdminPost | posts.ScheduledChange>('POST', `${posts.postPath(post.id)}/${action}`, when ? { at: when } : {}));
    if (!outcome.ok) return setProblem(outcome.message);
    if ('version' in outcome.value) {
      draft.adopt(outcome.value);
      setDone(action === 'publish' ? t.published : t.unpublishedDone);
    } else setDone(t.scheduledDone(whenOf(outcome.value.at)));
    await reloadSchedule();
  };
  const cancel = async (change: posts.ScheduledChange) => {
    const outcome = await attempt(() => call('DELETE', `${posts.postPath(post.id)}/schedule/${change.id}`));
    if (!outcome.ok) setProblem(outcome.message);
    await reloadSchedule();
  };
  const published = post.state === 'PUBLISHED';
  return (
    <section aria-labelledby="publication-title">
      <h3 id="publication-title">{t.publication}</h3>
      <p id="publication-state">
        {t.postState(t.postStates[post.state])}
        {post.publishedAt ? ` · ${when(post.publishedAt)}` : ''}
        {published && post.hasUnpublishedChanges ? ` · ${t.unpublishedChanges}` : ''}
      </p>
      <p class="actions">
        <button type="button" id="publish" onClick={() => void run('publish')}>
          {t.publish}
        </button>
        {published && (
          <button type="button" id="unpublish" onClick={() => void run('unpublish')}>
            {t.unpublish}
          </button>
        )}
      </p>
      <form
        class="stack"
        id="schedule-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (at) void run('publish', new Date(at).toISOString());
        }}
      >
        <label for="publish-at">{t.publishAt}</label>
        <input id="publish-at" type="datetime-local" value={at} onInput={(e) => setAt(e.currentTarget.value)} required />
        <button type="submit">{t.schedule}</button>
      </form>
      {pending.length > 0 && (
        <ul id="schedule" class="plain">
          {pending.map((change) => {
            const what = t.scheduledChange(change.action, whenOf(change.at));
            return (
              <li key={change.id}>
                {what}{' '}
                <button type="button" onClick={() => void cancel(change)} aria-label={t.cancelSchedule(what)}>
                  {t.cancel}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <p id="publication-status" role="status" class="muted">
        {done}
      </p>
      {problem && <FormProblem id="publication-problem" message={problem} />}
    </section>
  );
}

const whenOf = (iso: string) => new Date(iso).toLocaleString();

function PreviewLink({ post }: { post: posts.AdminPost }) {
  const [link, setLink] = useState<{ token: string; url: string | null } | null>(null);
  const [problem, setProblem] = useState('');
  const make = async () => {
    const outcome = await attempt(() => call<{ token: string; url: string | null }>('POST', `${posts.postPath(post.id)}/preview-token`, {}));
    if (outcome.ok) setLink(outcome.value);
    else setProblem(outcome.message);
  };
  return (
    <section aria-labelledby="preview-link-title">
      <h3 id="preview-link-title">{t.previewLink}</h3>
      <p class="muted">{t.previewLinkHelp}</p>
      <button type="button" id="make-preview-link" onClick={() => void make()}>
        {t.makePreviewLink}
      </button>
      {link &&
        (link.url ? (
          <p>
            <a id="preview-link" href={link.url} target="_blank" rel="noopener noreferrer">
              {link.url}
            </a>
          </p>
        ) : (
          <p id="preview-token" class="message">
            {t.previewNoSite(link.token)}
          </p>
        ))}
      {problem && <FormProblem id="preview-link-problem" message={problem} />}
    </section>
  );
}

function Translations({ draft, post }: { draft: Draft; post: posts.AdminPost }) {
  const [variants, setVariants] = useState<posts.AdminPost[]>([]);
  const [problem, setProblem] = useState('');
  useEffect(() => {
    void posts.translationsOf(post).then(setVariants, () => undefined);
  }, [post.translationGroupId, posts.locales.value.length]);
  const missing = posts.locales.value.filter((locale) => !variants.some((variant) => variant.locale === locale) && locale !== post.locale);
  /** A translation starts as a copy of this post's text, in the other locale, under the same slug. */
  const translate = async (locale: string) => {
    setProblem('');
    const { title, slug, metaDescription, contentMarkdown } = draft.fields.value;
    const outcome = await attempt(() =>
      call<posts.AdminPost>('POST', `${ws()}/posts`, { locale, translationOf: post.id, title, slug, metaDescription, contentMarkdown: contentMarkdown || null, type: post.type }),
    );
    if (outcome.ok) navigate('posts', outcome.value.id);
    else setProblem(outcome.issues.map((issue) => issue.message).join('; ') || outcome.message);
  };
  return (
    <section aria-labelledby="translations-title">
      <h3 id="translations-title">{t.translations}</h3>
      <ul id="translations" class="plain">
        {variants.map((variant) => (
          <li key={variant.id} data-locale={variant.locale}>
            {variant.id === post.id ? (
              t.thisLocale(variant.locale)
            ) : (
              <a href={hrefOf('posts', variant.id)}>{`${variant.locale}: ${variant.title}`}</a>
            )}
            {` · ${t.postStates[variant.state]}`}
          </li>
        ))}
      </ul>
      {missing.map((locale) => (
        <button type="button" key={locale} class="add-translation" data-locale={locale} onClick={() => void translate(locale)}>
          {t.addTranslation(locale)}
        </button>
      ))}
      {problem && <FormProblem id="translation-problem" message={problem} />}
    </section>
  );
}
