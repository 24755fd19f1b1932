import { useEffect, useState } from 'preact/hooks';
import { attempt, type FieldIssue } from './api.js';
import { deleteMedia, isImage, sizeText, updateMedia, usesOf, variant, type Media, type MediaUse } from './media.js';
import { hrefOf } from './router.js';
import { t } from './strings.js';
import { AskFirst, Field, FormProblem, text, useSubmit, when } from './widgets.js';

/** A coordinate as typed: empty is none; anything else a number (the server says when it is out of 0..1). */
const coordinate = (typed: string): number | null => (typed.trim() === '' ? null : Number(typed.replace(',', '.')));
const typedOf = (value: number | undefined) => (value === undefined ? '' : String(value));
const round = (value: number) => Math.min(1, Math.max(0, Math.round(value * 100) / 100));

/**
 * One file of the library: its facts, its name, an alt text per workspace locale and its focal point (two
 * number fields, arrows step by 0.01; a click on the preview sets both), saved together, each refused field's
 * problem beside it. Deleting asks first; a file a published post shows is kept and those posts are listed.
 */
export function MediaEditor(props: { media: Media; locales: string[]; onSaved: (media: Media) => void; onDeleted: (media: Media) => void; onBack: () => void }) {
  const { media, locales } = props;
  const image = isImage(media);
  const [x, setX] = useState(typedOf(media.focalPoint?.x));
  const [y, setY] = useState(typedOf(media.focalPoint?.y));
  const [status, setStatus] = useState('');
  const [uses, setUses] = useState<MediaUse[]>([]);
  useEffect(() => {
    document.getElementById('media-editor-title')?.focus();
  }, []);

  const form = useSubmit(
    (data) => {
      const alt: Record<string, string> = Object.fromEntries(locales.map((locale): [string, string] => [locale, text(data, `alt.${locale}`).trim()]).filter(([, value]) => value !== ''));
      const focalPoint = x.trim() === '' && y.trim() === '' ? null : { x: coordinate(x), y: coordinate(y) };
      setStatus('');
      // A half-typed focal point goes as typed: the server names the coordinate that is missing or wrong.
      return updateMedia(media.id, { name: text(data, 'name'), ...(image ? { alt, focalPoint: focalPoint as Media['focalPoint'] } : {}) });
    },
    (updated) => {
      setX(typedOf(updated.focalPoint?.x));
      setY(typedOf(updated.focalPoint?.y));
      setStatus(t.mediaSaved);
      props.onSaved(updated);
    },
  );
  const focalProblem = form.issues.find((issue) => issue.path === 'focalPoint')?.message;

  const remove = async () => {
    const outcome = await attempt(() => deleteMedia(media.id));
    if (outcome.ok) {
      props.onDeleted(media);
      return null;
    }
    const found = await usesOf(outcome.issues);
    setUses(found);
    return found.length > 0 ? t.mediaInUse : outcome.message;
  };

  const pick = (event: MouseEvent) => {
    const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    setX(String(round((event.clientX - box.left) / box.width)));
    setY(String(round((event.clientY - box.top) / box.height)));
  };
  const marker = { x: coordinate(x), y: coordinate(y) };
  const showMarker = marker.x !== null && marker.y !== null && marker.x >= 0 && marker.x <= 1 && marker.y >= 0 && marker.y <= 1;

  return (
    <section class="box media-editor" aria-labelledby="media-editor-title">
      <div class="head">
        <button type="button" class="back" onClick={props.onBack}>
          {t.backToMedia}
        </button>
        <h2 id="media-editor-title" tabIndex={-1}>
          {media.name}
        </h2>
      </div>
      {image && (
        // A mouse convenience: the same point is set by keyboard in the focal point's fields below.
        <div class="focal-preview" onClick={pick}>
          <img src={variant(media, 320)} alt={t.mediaPreview(media.name)} width={media.width ?? undefined} height={media.height ?? undefined} />
          {showMarker && <span class="focal-marker" aria-hidden="true" style={{ left: `${marker.x! * 100}%`, top: `${marker.y! * 100}%` }} />}
        </div>
      )}
      <dl class="facts">
        <dt>{t.mediaType}</dt>
        <dd>{media.contentType}</dd>
        <dt>{t.mediaSize}</dt>
        <dd>{sizeText(media.size)}</dd>
        {image && (
          <>
            <dt>{t.mediaDimensions}</dt>
            <dd>{`${media.width} × ${media.height} px`}</dd>
          </>
        )}
        <dt>{t.mediaAdded}</dt>
        <dd>{when(media.createdAt)}</dd>
      </dl>
      <p>
        <a href={media.url} target="_blank" rel="noopener noreferrer" id="media-open">
          {t.mediaOpen}
        </a>
      </p>
      <form id="media-form" class="stack" noValidate onSubmit={form.onSubmit}>
        <Field id="media-name" name="name" label={t.mediaName} issues={form.issues} value={media.name} />
        {image && (
          <fieldset class="media-fieldset" aria-describedby="media-alt-help">
            <legend>{t.mediaAlt(locales.join(', '))}</legend>
            <p id="media-alt-help" class="muted">
              {t.mediaAltWhat}
            </p>
            {locales.map((locale) => (
              <Field key={locale} id={`media-alt-${locale}`} name={`alt.${locale}`} label={t.mediaAlt(locale)} issues={form.issues} value={media.alt[locale] ?? ''} />
            ))}
          </fieldset>
        )}
        {image && (
          <fieldset class="media-fieldset" aria-describedby={focalProblem ? 'media-focal-help media-focal-problem' : 'media-focal-help'}>
            <legend>{t.focalPoint}</legend>
            <p id="media-focal-help" class="muted">
              {t.focalHelp}
            </p>
            <div class="focal-fields">
              <Coordinate id="media-focal-x" name="focalPoint.x" label={t.focalX} value={x} onValue={setX} issues={form.issues} />
              <Coordinate id="media-focal-y" name="focalPoint.y" label={t.focalY} value={y} onValue={setY} issues={form.issues} />
            </div>
            {focalProblem && (
              <p id="media-focal-problem" class="field-error">
                {focalProblem}
              </p>
            )}
          </fieldset>
        )}
        {form.message && <FormProblem id="media-form-problem" message={form.message} />}
        <p>
          <button type="submit" id="media-save" disabled={form.busy}>
            {t.mediaSave}
          </button>
        </p>
        <p id="media-saved" role="status" class="muted">
          {status}
        </p>
      </form>
      <AskFirst id="media-delete" label={t.mediaDelete} question={t.mediaConfirmDelete(media.name)} yes={t.mediaYesDelete} keep={t.mediaKeep} onYes={remove} />
      {uses.length > 0 && (
        <section aria-labelledby="media-uses-title">
          <h3 id="media-uses-title">{t.mediaUsedBy}</h3>
          <ul id="media-uses" class="plain">
            {uses.map(({ postId, shownAs, post }) => (
              <li key={postId}>
                <a href={hrefOf('posts', postId)} data-post-id={postId}>
                  {t.mediaShownBy(shownAs, post)}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}

/** A number field 0..1 (arrows step by 0.01), its server problem beside it. */
function Coordinate(props: { id: string; name: string; label: string; value: string; onValue: (value: string) => void; issues: FieldIssue[] }) {
  const problem = props.issues.find((issue) => issue.path === props.name)?.message;
  return (
    <p class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type="number"
        inputMode="decimal"
        min={0}
        max={1}
        step={0.01}
        value={props.value}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem ? `${props.id}-problem` : undefined}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
      {problem && (
        <span id={`${props.id}-problem`} class="field-error">
          {problem}
        </span>
      )}
    </p>
  );
}
