import type { Strings } from './strings.js';

/** What the server accepts in a chat (it reads the bytes and decides; this only narrows the picker). */
export const ACCEPT = 'image/jpeg,image/png,image/webp,image/avif,image/gif,application/pdf';

/**
 * The file the visitor picked (button, paste or drop), shown until it is sent or removed: a thumbnail for
 * an image, its name (as text), a remove button, and the upload's progress while it is sent.
 */
export class FilePreview {
  readonly box: HTMLElement;
  file: File | null = null;
  private readonly thumb: HTMLImageElement;
  private readonly name: HTMLElement;
  private readonly bar: HTMLProgressElement;

  constructor(doc: Document, strings: Strings, private readonly picked: () => void) {
    this.box = doc.createElement('div');
    this.box.className = 'preview';
    this.box.hidden = true;
    this.thumb = doc.createElement('img');
    this.thumb.alt = '';
    this.name = doc.createElement('span');
    this.bar = doc.createElement('progress');
    this.bar.max = 1;
    this.bar.hidden = true;
    this.bar.setAttribute('aria-label', strings.uploading);
    const remove = doc.createElement('button');
    remove.className = 'rm';
    remove.type = 'button';
    remove.setAttribute('aria-label', strings.removeFile);
    remove.textContent = '×';
    remove.addEventListener('click', () => this.set(null));
    this.box.append(this.thumb, this.name, this.bar, remove);
  }

  /** Shows `file` (null removes it). */
  set(file: File | null): void {
    if (this.thumb.src) URL.revokeObjectURL(this.thumb.src);
    this.thumb.removeAttribute('src');
    this.file = file;
    this.box.hidden = !file;
    this.thumb.hidden = !file?.type.startsWith('image/');
    if (file && !this.thumb.hidden) this.thumb.src = URL.createObjectURL(file);
    this.name.textContent = file?.name ?? '';
    this.bar.value = 0;
    if (file) this.picked();
  }

  /** The share of the upload sent (0..1), or null when none is under way. */
  progress(fraction: number | null): void {
    this.bar.hidden = fraction === null;
    if (fraction !== null) this.bar.value = fraction;
  }
}
