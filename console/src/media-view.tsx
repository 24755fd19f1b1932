import { useEffect, useRef, useState } from 'preact/hooks';
import { attempt } from './api.js';
import { getMedia, listMedia, MEDIA_TYPES, sizeText, thumb, uploadMedia, type Media } from './media.js';
import { MediaEditor } from './media-editor.js';
import { addMediaStyle } from './media-style.js';
import { hrefOf, navigate, route } from './router.js';
import { call, report, ws } from './store.js';
import { t } from './strings.js';

addMediaStyle();

/** A page of the list: what a screen shows without the server reading much. */
const PAGE = 30;

const typeOf = (media: Media) => (media.contentType.split('/')[1] ?? media.contentType).toUpperCase();
export const dimensionsOf = (media: Media) => (media.width !== null && media.height !== null ? `${media.width} × ${media.height} px` : '');
const factsOf = (media: Media) => [typeOf(media), sizeText(media.size), dimensionsOf(media)].filter(Boolean).join(' · ');

/** Moves the focus once the next render is drawn (the element may not exist yet). */
const focusSoon = (id: string) => setTimeout(() => document.getElementById(id)?.focus(), 0);

/**
 * The media library (its own chunk): `#/media` lists the workspace's files newest first, with a search by
 * name, more pages on demand and an upload; `#/media/<id>` opens one file beside the list (instead of it on a
 * narrow screen) to change its name, alt texts and focal point, or to delete it.
 */
export function MediaView() {
  const id = route.value.id;
  const [items, setItems] = useState<Media[]>([]);
  const [total, setTotal] = useState(0);
  const [page, setPage] = useState(1);
  const [hasNext, setHasNext] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const [locales, setLocales] = useState<string[]>([]);
  /** The open file when it is not among the pages loaded (a link to it, or a later page). */
  const [fetched, setFetched] = useState<Media | 'missing' | null>(null);

  const load = async (q: string, next: number) => {
    try {
      const answer = await listMedia(q, next, PAGE);
      setItems((shown) => (next === 1 ? answer.items : [...shown, ...answer.items.filter((item) => !shown.some((one) => one.id === item.id))]));
      setTotal(answer.pageInfo.total);
      setHasNext(answer.pageInfo.hasNext);
      setPage(next);
      setLoaded(true);
      return answer;
    } catch (err) {
      report(err);
      return null;
    }
  };

  useEffect(() => {
    void load('', 1);
    void call<{ locales: string[]; defaultLocale: string }>('GET', ws()).then(
      (workspace) => setLocales([workspace.defaultLocale, ...workspace.locales.filter((locale) => locale !== workspace.defaultLocale)]),
      report,
    );
  }, []);

  const listed = id ? items.find((item) => item.id === id) : undefined;
  useEffect(() => {
    setFetched(null);
    if (!id || listed) return;
    void attempt(() => getMedia(id)).then((outcome) => setFetched(outcome.ok ? outcome.value : 'missing'));
  }, [id, loaded]);
  const selected = listed ?? (fetched && fetched !== 'missing' && fetched.id === id ? fetched : null);

  const search = async (event: Event) => {
    event.preventDefault();
    const found = await load(query.trim(), 1);
    if (found) setStatus(t.mediaFound(found.pageInfo.total));
  };
  const more = async () => {
    const added = await load(query.trim(), page + 1);
    // The first new entry takes the focus: the list goes on where the reader was.
    if (added?.items[0]) focusSoon(`media-${added.items[0].id}`);
  };
  const uploaded = (media: Media) => {
    setItems((shown) => [media, ...shown]);
    setTotal((count) => count + 1);
    setStatus(t.mediaUploaded(media.name));
    navigate('media', media.id);
  };
  const saved = (media: Media) => setItems((shown) => shown.map((item) => (item.id === media.id ? media : item)));
  const deleted = (media: Media) => {
    setItems((shown) => shown.filter((item) => item.id !== media.id));
    setTotal((count) => Math.max(0, count - 1));
    setStatus(t.mediaDeleted(media.name));
    navigate('media');
    focusSoon('media-title');
  };
  const back = () => {
    navigate('media');
    if (id) focusSoon(`media-${id}`);
  };

  return (
    <div class={id ? 'cols media-library has-selection' : 'cols media-library'}>
      <section class="box media-list" aria-labelledby="media-title">
        <h2 id="media-title" tabIndex={-1}>
          {t.mediaLibrary}
        </h2>
        <Upload onUploaded={uploaded} />
        <form class="media-search" role="search" onSubmit={(e) => void search(e)}>
          <label for="media-search">{t.mediaSearchName}</label>
          <span class="row-inline">
            <input id="media-search" type="search" value={query} maxLength={200} onInput={(e) => setQuery(e.currentTarget.value)} />
            <button type="submit">{t.search}</button>
          </span>
        </form>
        <p id="media-status" role="status" class="muted">
          {status}
        </p>
        <ul id="media-items" class="media-items" aria-label={t.mediaFiles}>
          {items.map((media) => (
            <li key={media.id}>
              <a href={hrefOf('media', media.id)} id={`media-${media.id}`} aria-current={media.id === id ? 'true' : undefined}>
                {media.width !== null ? <img src={thumb(media)} alt="" width={64} height={48} loading="lazy" /> : <span class="file-icon" aria-hidden="true">{typeOf(media)}</span>}
                <span class="media-text">
                  <span class="who">{media.name}</span>
                  <span class="last">{factsOf(media)}</span>
                </span>
              </a>
            </li>
          ))}
        </ul>
        {loaded && <p class="muted" id="media-count">{t.mediaCount(items.length, total)}</p>}
        {hasNext && (
          <button type="button" id="media-more" onClick={() => void more()}>
            {t.mediaMore}
          </button>
        )}
      </section>
      {id ? (
        selected ? (
          <MediaEditor key={selected.id} media={selected} locales={locales} onSaved={saved} onDeleted={deleted} onBack={back} />
        ) : (
          <section class="box" aria-labelledby="media-editor-title">
            <button type="button" class="back" onClick={back}>
              {t.backToMedia}
            </button>
            <h2 id="media-editor-title">{fetched === 'missing' ? t.mediaNotFound : t.loadingMedia}</h2>
          </section>
        )
      ) : (
        <p class="box placeholder muted">{t.mediaPick}</p>
      )}
    </div>
  );
}

/**
 * The upload: a labelled file field (Enter or Space opens the picker), or a file dropped on its area. While it
 * goes, a progress bar; a refusal (too big, not an allowed type, corrupt) shows the server's words beside it.
 */
function Upload({ onUploaded }: { onUploaded: (media: Media) => void }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [problem, setProblem] = useState('');
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const busy = useRef(false);
  const send = async (file: File) => {
    // One upload at a time: a pick while one goes is ignored (the field stays enabled: disabling it would drop the focus).
    if (busy.current) return;
    busy.current = true;
    setProblem('');
    setProgress(0);
    const outcome = await attempt(() => uploadMedia(file, setProgress));
    busy.current = false;
    setProgress(null);
    if (input.current) input.current.value = '';
    if (outcome.ok) onUploaded(outcome.value);
    else setProblem(outcome.message);
  };
  return (
    <div
      class={dragging ? 'media-upload dragging' : 'media-upload'}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        const file = e.dataTransfer?.files[0];
        if (file) void send(file);
      }}
    >
      <label for="media-upload">{t.mediaUploadLabel}</label>
      <input
        id="media-upload"
        ref={input}
        type="file"
        accept={MEDIA_TYPES}
        aria-busy={progress !== null ? 'true' : undefined}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem ? 'media-upload-hint media-upload-problem' : 'media-upload-hint'}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void send(file);
        }}
      />
      <span id="media-upload-hint" class="muted">
        {t.mediaDropHint}
      </span>
      {progress !== null && <progress id="media-upload-progress" max={1} value={progress} aria-label={t.mediaUploadProgress} />}
      {problem && (
        <p id="media-upload-problem" role="alert" class="field-error">
          {problem}
        </p>
      )}
    </div>
  );
}
