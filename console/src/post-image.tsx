import { useEffect, useRef, useState } from 'preact/hooks';
import { attempt, type FieldIssue } from './api.js';
import { altOf, getMedia, IMAGE_TYPES, isImage, listMedia, thumb, updateMedia, uploadMedia, type Media } from './media.js';
import { t } from './strings.js';
import * as posts from './posts.js';
import type { Draft } from './post-draft.js';
import { FormProblem } from './widgets.js';

/**
 * The post's image, chosen from the media library: search existing images, or upload one; saved on its own as
 * `imageMediaId` (after what is typed in the text). Every control is a labelled native control; results are
 * buttons named by the file (thumbnails are decorative), and what happened is said in a status region.
 */
export function PostImage({ draft, post }: { draft: Draft; post: posts.AdminPost }) {
  const [current, setCurrent] = useState<Media | null>(null);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Media[] | null>(null);
  const [status, setStatus] = useState('');
  const [problem, setProblem] = useState('');
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [newAlt, setNewAlt] = useState('');
  const searchRef = useRef<HTMLInputElement>(null);
  const chooseRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const id = post.imageMediaId;
    if (current?.id === id) return;
    setCurrent(null);
    if (id) void getMedia(id).then(setCurrent, () => undefined);
  }, [post.imageMediaId]);
  /** Where focus goes once the next render is drawn: the search field on opening, the opening button on closing. */
  const focusNext = useRef<'search' | 'choose' | null>(null);
  useEffect(() => {
    const target = focusNext.current === 'search' ? searchRef.current : focusNext.current === 'choose' && !open ? chooseRef.current : null;
    if (target) {
      focusNext.current = null;
      target.focus();
    }
  });

  const search = async (event?: Event) => {
    event?.preventDefault();
    const q = query.trim();
    const outcome = await attempt(() => listMedia(q));
    if (!outcome.ok) return setProblem(outcome.message);
    const images = outcome.value.items.filter(isImage);
    setFound(images);
    setStatus(t.mediaResults(images.length));
  };

  /** Saves `imageMediaId` on the draft (the text first: the save names the version it was made on). */
  const use = async (media: Media | null) => {
    setProblem('');
    setStatus('');
    await draft.save();
    const base = draft.base.value;
    if (!base || draft.dirty() || draft.conflict.value) return setProblem(t.unsaved);
    const outcome = await attempt(() => posts.setPostImage(post.id, base.version, media?.id ?? null));
    if (!outcome.ok) {
      setIssues(outcome.issues);
      if (outcome.issues.length === 0) setProblem(outcome.message === 'offline' ? t.keptLocally : outcome.message);
      return;
    }
    setIssues([]);
    draft.adopt(outcome.value);
    setCurrent(media);
    focusNext.current = 'choose';
    setOpen(false);
    setStatus(media ? t.postImageChosen(media.name) : t.postImageRemoved);
  };

  /** Adds the image at the end of the text as `![alt](media:<id>)` (saved with the text, like typing). */
  const insert = (media: Media) => {
    const text = draft.fields.value.contentMarkdown;
    const line = `![${altOf(media, post.locale).replace(/[[\]]/g, '')}](media:${media.id})`;
    draft.type('contentMarkdown', text ? `${text.replace(/\s*$/, '')}\n\n${line}\n` : `${line}\n`);
    setStatus(t.mediaInserted(media.name));
  };

  const uploadAndUse = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setProblem('');
    setStatus(t.mediaUploading(file.name));
    const outcome = await attempt(async () => {
      const media = await uploadMedia(file);
      // The alt text typed is the new file's text in the post's language (the library keeps one per locale).
      const alt = newAlt.trim();
      return alt ? updateMedia(media.id, { alt: { [post.locale]: alt } }) : media;
    });
    input.value = '';
    if (!outcome.ok) {
      setStatus('');
      return setProblem(outcome.message);
    }
    setNewAlt('');
    await use(outcome.value);
  };

  const imageProblem = issues.find((issue) => issue.path === 'imageMediaId')?.message;
  return (
    <section aria-labelledby="post-image-title">
      <h3 id="post-image-title">{t.postImage}</h3>
      {/* One stable box: the controls after it are never re-created (focus stays on them) when its content changes. */}
      <div class="post-image-box">
        {current ? (
          <figure id="post-image-current" class="post-image">
            <img src={thumb(current)} alt={altOf(current, post.locale) || current.name} width={160} />
            <figcaption>
              {current.name}
              {!altOf(current, post.locale) && <span class="muted"> · {t.mediaNoAlt(post.locale)}</span>}
            </figcaption>
          </figure>
        ) : (
          <p class="muted" id="post-image-none">
            {post.imageMediaId ? t.postImageMissing : t.postImageNone}
          </p>
        )}
      </div>
      <p class="actions">
        <button type="button" id="post-image-choose" ref={chooseRef} aria-expanded={open ? 'true' : 'false'} aria-controls="post-image-picker" onClick={() => {
          if (!open) focusNext.current = 'search';
          setOpen(!open);
          if (!open && found === null) void search();
        }}>
          {t.postImageChoose}
        </button>
        {post.imageMediaId && (
          <button type="button" id="post-image-remove" onClick={() => void use(null)}>
            {t.postImageRemove}
          </button>
        )}
      </p>
      {open && (
        <div id="post-image-picker" class="stack" role="group" aria-label={t.postImagePicker}>
          <p class="muted">{t.mediaPickerHelp}</p>
          <form class="stack" role="search" onSubmit={(e) => void search(e)}>
            <label for="post-image-search">{t.mediaSearch}</label>
            <input id="post-image-search" type="search" ref={searchRef} value={query} onInput={(e) => setQuery(e.currentTarget.value)} onKeyDown={(e) => {
              if (e.key === 'Escape') {
                focusNext.current = 'choose';
                setOpen(false);
              }
            }} />
            <button type="submit">{t.search}</button>
          </form>
          {found && found.length > 0 && (
            <ul id="post-image-results" class="plain media-grid" aria-label={t.mediaResultsLabel}>
              {found.map((media) => (
                <li key={media.id}>
                  <button type="button" class="media-choice" data-media-id={media.id} aria-pressed={media.id === post.imageMediaId ? 'true' : 'false'} onClick={() => void use(media)}>
                    <img src={thumb(media)} alt="" width={80} loading="lazy" />
                    <span>{t.postImageUse(media.name)}</span>
                  </button>
                  <button type="button" class="media-insert" data-media-id={media.id} onClick={() => insert(media)}>
                    {t.mediaInsert(media.name)}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <p class="field">
            <label for="post-image-alt">{t.mediaAltForUpload(post.locale)}</label>
            <input id="post-image-alt" type="text" value={newAlt} maxLength={1000} aria-describedby="post-image-alt-help" onInput={(e) => setNewAlt(e.currentTarget.value)} />
            <span id="post-image-alt-help" class="muted">
              {t.mediaAltHelp}
            </span>
          </p>
          <p class="field">
            <label for="post-image-upload">{t.postImageUpload}</label>
            <input id="post-image-upload" type="file" accept={IMAGE_TYPES} onChange={(e) => void uploadAndUse(e.currentTarget)} />
          </p>
        </div>
      )}
      {imageProblem && <FormProblem id="post-image-problem" message={imageProblem} />}
      <p id="post-image-status" role="status" class="muted">
        {status}
      </p>
      {problem && <FormProblem id="post-image-form-problem" message={problem} />}
    </section>
  );
}
