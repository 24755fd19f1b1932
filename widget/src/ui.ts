import type { ChatMessage } from '../../src/realtime/events.js';
import { readableTextOn, themeKey } from '../../src/livechat/theme.js';
import { compareMessages } from './transport.js';
import { stringsFor, type Strings } from './strings.js';
import { ACCEPT, FilePreview } from './file-preview.js';

/**
 * The widget's DOM: one host element with a shadow root, so the host page's styles do not reach in and
 * ours do not leak out. Every piece of text is set with `textContent`, never parsed as HTML.
 */

const CSS = `
:host{all:initial}
*{box-sizing:border-box}
.w{position:fixed;right:20px;bottom:20px;z-index:2147483000;font-family:var(--hearth-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);font-size:14px;line-height:1.4;color:var(--hearth-text,#1d2330)}
.launcher{all:unset;box-sizing:border-box;cursor:pointer;width:56px;height:56px;border-radius:50%;background:var(--hearth-primary,#2d5be3);color:var(--hearth-primary-text,#fff);display:flex;align-items:center;justify-content:center;box-shadow:0 4px 14px rgba(0,0,0,.25);position:relative;float:right}
.launcher:focus-visible,button:focus-visible,textarea:focus-visible{outline:3px solid var(--hearth-focus,#ffbf47);outline-offset:2px}
.launcher svg{width:26px;height:26px;fill:currentColor}
.badge{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;border-radius:10px;background:#d4351c;color:#fff;font-size:12px;display:flex;align-items:center;justify-content:center;padding:0 5px}
.badge[hidden]{display:none}
.panel{position:absolute;right:0;bottom:70px;width:min(360px,calc(100vw - 40px));height:min(520px,calc(100vh - 110px));background:var(--hearth-background,#fff);border-radius:var(--hearth-radius,12px);box-shadow:0 8px 30px rgba(0,0,0,.25);display:flex;flex-direction:column;overflow:hidden}
.panel[hidden]{display:none}
header{background:var(--hearth-primary,#2d5be3);color:var(--hearth-primary-text,#fff);padding:12px 14px;display:flex;align-items:center;gap:8px}
header h2{font-size:16px;margin:0;flex:1;font-weight:600}
.state{font-size:12px;opacity:.9}
.x{all:unset;box-sizing:border-box;cursor:pointer;font-size:24px;line-height:1;min-width:44px;min-height:44px;display:flex;align-items:center;justify-content:center;border-radius:6px;margin:-8px -8px -8px 0}
.intro{margin:12px 14px 0;padding:10px 12px;background:var(--hearth-intro-background,#f1f3f8);border-radius:10px;white-space:pre-wrap}
.log{flex:1;overflow-y:auto}
ol{list-style:none;margin:0;padding:12px 14px;display:flex;flex-direction:column;gap:8px}
li{max-width:80%;padding:8px 11px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}
li.VISITOR{align-self:flex-end;background:var(--hearth-primary,#2d5be3);color:var(--hearth-primary-text,#fff)}
.typing{margin:0 12px 4px;font-size:12px;color:#545b66;min-height:16px}
li .who{display:block;font-size:12px;font-weight:600}li[data-seen]::after{content:attr(data-seen);display:block;font-size:12px;text-align:right}
li.AGENT{align-self:flex-start;background:var(--hearth-agent-background,#eceff5);color:var(--hearth-text,#1d2330)}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.notice{margin:0 14px 8px;padding:8px 10px;border-radius:8px;background:#fdf2e9;color:#6b3200;font-size:13px}
.notice[hidden],.restart[hidden]{display:none}
.restart{all:unset;box-sizing:border-box;cursor:pointer;display:block;min-height:44px;margin:0 14px 10px;padding:12px 10px;text-align:center;border-radius:8px;border:2px solid var(--hearth-primary,#2d5be3);color:var(--hearth-text,#1d2330)}
form{display:flex;gap:8px;padding:10px 14px}
.email[hidden]+form{border-top:1px solid #e3e6ee}
form[hidden]{display:none}
textarea,input{font:inherit;font-size:16px;color:#1d2330;padding:10px;border:1px solid #767d8c;border-radius:8px;min-height:44px;background:#fff}
textarea{flex:1;resize:none;max-height:120px}
.email{display:flex;flex-direction:column;gap:4px;padding:10px 14px 0;border-top:1px solid #e3e6ee;font-size:13px}
.email[hidden]{display:none}
.email input{width:100%}
.send{all:unset;box-sizing:border-box;cursor:pointer;min-height:44px;min-width:44px;padding:0 14px;display:flex;align-items:center;justify-content:center;border-radius:8px;background:var(--hearth-primary,#2d5be3);color:var(--hearth-primary-text,#fff);font-weight:600}
@media (max-width:480px){
.w{right:12px;bottom:12px}
.panel{position:fixed;inset:0;width:100%;height:100%;border-radius:0}
.w.open .launcher{display:none}
}
.send[disabled]{opacity:.5;cursor:default}
.rm{all:unset;cursor:pointer;min-width:44px;min-height:44px;display:flex;align-items:center;justify-content:center;font-size:20px}
.attach{all:unset;box-sizing:border-box;cursor:pointer;min-width:44px;min-height:44px;display:flex;align-items:center;justify-content:center;border-radius:8px;border:1px solid #767d8c}
.attach svg{width:20px;height:20px;fill:none;stroke:currentColor;stroke-width:2}
.preview{display:flex;align-items:center;gap:8px;margin:0 14px;padding:6px;border:1px solid #e3e6ee;border-radius:8px}
.preview[hidden],.preview img[hidden],progress[hidden]{display:none}
.preview img{max-width:64px;max-height:64px;border-radius:4px}.preview span{flex:1;overflow-wrap:anywhere}
li a{color:inherit}li img{display:block;max-width:100%;max-height:200px;border-radius:8px;margin-top:4px}
`;

/** The widget's fixed words; see strings.ts for the languages. */
export type UiStrings = Strings;

export const DEFAULT_STRINGS: UiStrings = stringsFor('en');

export interface UiCallbacks {
  onOpen(): void;
  /** `email`: what the visitor typed in the offline e-mail field (already checked), else undefined. */
  onSend(text: string, email?: string): Promise<boolean>;
  /** Uploads a file; `progress` gets the share sent (0..1). Whether it was sent. */
  onSendFile(file: File, progress: (fraction: number) => void): Promise<boolean>;
  onRestart(): void;
  /** The visitor typed in the message field. */
  onTyping?(): void;
}

const MAX_BODY = 2000;
/** What the server's `z.email()` accepts, closely enough that the visitor learns of a typo before sending. */
const EMAIL = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_'+\-.]*[A-Za-z0-9_+-]@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}$/;

function el<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A 24 x 24 icon of one path, hidden from assistive technology (its button carries the label). */
function icon(doc: Document, d: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = doc.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = doc.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

export function themeVariable(name: string): string | null {
  const key = themeKey(name);
  return key ? `--hearth-${key}` : null;
}

export class ChatUi {
  readonly host: HTMLElement;
  private readonly root: ShadowRoot;
  private readonly launcher: HTMLButtonElement;
  private readonly badge: HTMLElement;
  private readonly panel: HTMLElement;
  private readonly state: HTMLElement;
  private readonly intro: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly logBox: HTMLElement;
  private readonly wrap: HTMLElement;
  private readonly emailBox: HTMLElement;
  private readonly email: HTMLInputElement;
  private readonly notice: HTMLElement;
  private readonly restart: HTMLButtonElement;
  private readonly form: HTMLFormElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly typingLine: HTMLElement;
  private typingTimer: ReturnType<typeof setTimeout> | undefined;
  private opened = false;
  private unread = 0;
  /** AGENT messages up to this `createdAt` were seen here: they never count as unread again (reload). */
  readUpTo = '';
  private sending = false;
  /** Enter was pressed while a send was on its way: what is in the box then goes next, in order. */
  private sendNext = false;
  private readonly files: FilePreview;

  constructor(
    private readonly doc: Document,
    private readonly callbacks: UiCallbacks,
    private readonly strings: UiStrings = DEFAULT_STRINGS,
  ) {
    this.host = el(doc, 'div', { 'data-hearth-widget': '' });
    // Inline so that even a hostile host stylesheet cannot hide or move the host box.
    this.host.style.cssText = 'all:initial;position:fixed;z-index:2147483000;right:0;bottom:0;width:0;height:0';
    this.root = this.host.attachShadow({ mode: 'open' });
    const style = el(doc, 'style', {}, CSS);
    const wrap = el(doc, 'div', { class: 'w', lang: strings.lang });
    this.wrap = wrap;

    this.panel = el(doc, 'section', { class: 'panel', id: 'hearth-panel', role: 'dialog', 'aria-label': strings.title, hidden: '' });
    const header = el(doc, 'header');
    const titleBox = el(doc, 'div', { style: 'flex:1' });
    titleBox.append(el(doc, 'h2', { id: 'hearth-title' }, strings.title));
    this.state = el(doc, 'div', { class: 'state' });
    titleBox.append(this.state);
    const closeButton = el(doc, 'button', { class: 'x', type: 'button', 'aria-label': strings.close }, '×');
    closeButton.addEventListener('click', () => this.close());
    header.append(titleBox, closeButton);

    this.intro = el(doc, 'p', { class: 'intro', hidden: '' });
    // role=log is a polite live region: screen readers announce each message as it is appended. It wraps
    // the list rather than replacing the list's own role.
    this.logBox = el(doc, 'div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions', 'aria-label': strings.messages });
    this.list = el(doc, 'ol');
    this.logBox.append(this.list);
    this.typingLine = el(doc, 'p', { class: 'typing', 'aria-live': 'polite' });
    this.notice = el(doc, 'p', { class: 'notice', role: 'alert', hidden: '' });
    this.restart = el(doc, 'button', { class: 'restart', type: 'button', hidden: '' }, strings.restart);
    this.restart.addEventListener('click', () => this.callbacks.onRestart());

    // Shown only while nobody is online: the visitor may leave an address for the answer.
    this.emailBox = el(doc, 'div', { class: 'email', hidden: '' });
    this.email = el(doc, 'input', { id: 'hearth-email', type: 'email', autocomplete: 'email', maxlength: '200', 'aria-describedby': 'hearth-email-hint' });
    this.emailBox.append(el(doc, 'span', { id: 'hearth-email-hint' }, strings.emailHint), el(doc, 'label', { for: 'hearth-email' }, strings.emailLabel), this.email);

    this.form = el(doc, 'form');
    const label = el(doc, 'label', { for: 'hearth-input', class: 'sr' }, strings.messageLabel);
    this.input = el(doc, 'textarea', { id: 'hearth-input', rows: '1', maxlength: String(MAX_BODY), placeholder: strings.placeholder });
    this.sendButton = el(doc, 'button', { class: 'send', type: 'submit' }, strings.send);
    // Files: a button opens the picker; a pasted or dropped file is taken too. Each is previewed first.
    const picker = el(doc, 'input', { type: 'file', accept: ACCEPT, hidden: '' });
    const attach = el(doc, 'button', { class: 'attach', type: 'button', 'aria-label': strings.attach, title: strings.attach });
    attach.append(icon(doc, 'M21 11l-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7'));
    attach.addEventListener('click', () => picker.click());
    picker.addEventListener('change', () => {
      this.files.set(picker.files?.[0] ?? null);
      picker.value = '';
    });
    this.input.addEventListener('paste', (event) => {
      const file = event.clipboardData?.files[0];
      if (file) {
        event.preventDefault();
        this.files.set(file);
      }
    });
    this.files = new FilePreview(doc, strings, () => this.input.focus());
    this.form.append(label, picker, attach, this.input, this.sendButton);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
    this.input.addEventListener('input', () => this.callbacks.onTyping?.());
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.submit();
      }
    });
    this.panel.append(header, this.intro, this.logBox, this.typingLine, this.notice, this.restart, this.emailBox, this.files.box, this.form);
    this.panel.addEventListener('dragover', (event) => event.preventDefault());
    this.panel.addEventListener('drop', (event) => {
      event.preventDefault();
      const file = event.dataTransfer?.files[0];
      if (file && !this.form.hidden) this.files.set(file);
    });
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        this.close();
      }
    });

    this.launcher = el(doc, 'button', { class: 'launcher', type: 'button', 'aria-label': strings.open, 'aria-expanded': 'false', 'aria-controls': 'hearth-panel' });
    const svg = icon(doc, 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H8l-5 4V5a2 2 0 0 1 1-2z');
    this.badge = el(doc, 'span', { class: 'badge', hidden: '', 'aria-hidden': 'true' });
    this.launcher.append(svg, this.badge);
    this.launcher.addEventListener('click', () => (this.opened ? this.close() : this.open()));

    wrap.append(this.panel, this.launcher);
    this.root.append(style, wrap);
    (doc.body ?? doc.documentElement).append(this.host);
  }

  get isOpen(): boolean {
    return this.opened;
  }

  applyTheme(theme: Record<string, string> | null | undefined): void {
    if (!theme || typeof theme !== 'object') return;
    const set = new Map<string, string>();
    for (const [name, value] of Object.entries(theme)) {
      const variable = themeVariable(name);
      // setProperty goes through the CSSOM: a value cannot break out into other declarations.
      if (variable && typeof value === 'string' && value.length <= 200) {
        this.host.style.setProperty(variable, value);
        set.set(variable, value);
      }
    }
    // Text on the brand colour is chosen for contrast (WCAG 4.5:1) unless the theme names it itself.
    const primary = set.get('--hearth-primary');
    const readable = primary && !set.has('--hearth-primary-text') ? readableTextOn(primary) : null;
    if (readable) this.host.style.setProperty('--hearth-primary-text', readable);
  }

  /** Offline: ask for an e-mail with the message (optional). */
  setEmailCapture(on: boolean): void {
    this.emailBox.hidden = !on;
  }

  setIntro(text: string | null | undefined): void {
    this.intro.textContent = text ?? '';
    this.intro.hidden = !text;
  }

  setStateText(text: string): void {
    this.state.textContent = text;
  }

  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.wrap.classList.add('open');
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    this.launcher.setAttribute('aria-label', this.strings.close);
    this.setUnread(0);
    this.scrollToEnd();
    (this.form.hidden ? this.restart : this.input).focus();
    this.callbacks.onOpen();
  }

  close(): void {
    if (!this.opened) return;
    this.opened = false;
    this.wrap.classList.remove('open');
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    this.launcher.setAttribute('aria-label', this.strings.open);
    this.launcher.focus();
  }

  /** Renders messages in `createdAt` order; a message already shown (same id) is not shown again. */
  addMessages(messages: readonly ChatMessage[]): void {
    let incoming = 0;
    for (const message of messages) {
      if (this.list.querySelector(`li[data-id="${CSS_escape(message.id)}"]`)) continue;
      const item = el(this.doc, 'li', { class: message.sender === 'AGENT' ? 'AGENT' : 'VISITOR', 'data-id': message.id, 'data-sender': message.sender, 'data-created-at': message.createdAt });
      item.append(el(this.doc, 'span', { class: 'sr' }, `${message.sender === 'AGENT' ? this.strings.agent : this.strings.you}: `));
      item.append(this.doc.createTextNode(message.body));
      for (const file of message.attachments ?? []) {
        // An image inline (its name as the alternative text), any other file (a PDF) as a link named by it.
        const link = el(this.doc, 'a', { href: file.url, target: '_blank', rel: 'noopener noreferrer' });
        link.append(file.contentType.startsWith('image/') ? el(this.doc, 'img', { src: file.url, alt: file.name }) : file.name);
        item.append(link);
      }
      const next = [...this.list.children].find((child) => {
        const other = child as HTMLElement;
        return compareMessages(message, { id: other.dataset.id ?? '', createdAt: other.dataset.createdAt ?? '', sender: 'AGENT', body: '' }) < 0;
      });
      this.list.insertBefore(item, next ?? null);
      if (message.sender === 'AGENT') {
        if (message.createdAt > this.readUpTo) incoming += 1;
        this.showTyping(null);
      }
    }
    if (!this.opened && incoming) this.setUnread(this.unread + incoming);
    this.scrollToEnd();
  }

  /** "{name} is typing…" until `null`, or until `hideAfterMs` passes without a repeat. */
  showTyping(name: string | null, hideAfterMs = 6_000): void {
    clearTimeout(this.typingTimer);
    this.typingLine.textContent = name === null ? '' : this.strings.typing.replace('{name}', name || this.strings.agent);
    if (name !== null) this.typingTimer = setTimeout(() => this.showTyping(null), hideAfterMs);
  }

  /** Shows who of the team wrote a message (the name arrives with the live push). */
  labelAgent(messageId: string, name: string): void {
    const item = this.item(messageId);
    if (!item || item.dataset.sender !== 'AGENT' || item.querySelector('.who')) return;
    item.insertBefore(el(this.doc, 'span', { class: 'who' }, name), item.childNodes[1] ?? null);
  }

  /** "Seen" under the newest of the visitor's messages the team has read. */
  setSeen(createdAt: string): void {
    this.list.querySelector('[data-seen]')?.removeAttribute('data-seen');
    const seen = [...this.list.querySelectorAll<HTMLElement>('li[data-sender="VISITOR"]')].filter((li) => (li.dataset.createdAt ?? '') <= createdAt).pop();
    // Shown by CSS (::after), so the message's own text stays the item's last node.
    seen?.setAttribute('data-seen', this.strings.seen);
  }

  /** The newest AGENT message shown, for read marks. */
  newestAgent(): { id: string; createdAt: string } | null {
    const last = [...this.list.querySelectorAll<HTMLElement>('li[data-sender="AGENT"]')].pop();
    return last ? { id: last.dataset.id ?? '', createdAt: last.dataset.createdAt ?? '' } : null;
  }

  private item(messageId: string): HTMLElement | null {
    return this.list.querySelector(`li[data-id="${CSS_escape(messageId)}"]`);
  }

  clearMessages(): void {
    this.list.replaceChildren();
  }

  showNotice(text: string | null): void {
    this.notice.textContent = text ?? '';
    this.notice.hidden = !text;
  }

  /** Closed conversation: the form gives way to a "start a new conversation" button. */
  setClosed(closed: boolean): void {
    const hadFocus = this.root.activeElement === this.input;
    this.form.hidden = closed;
    this.restart.hidden = !closed;
    if (closed && hadFocus) this.restart.focus();
    if (!closed && this.opened) this.input.focus();
  }

  destroy(): void {
    this.host.remove();
  }

  private setUnread(count: number): void {
    this.unread = count;
    this.badge.textContent = String(count);
    this.badge.hidden = count === 0;
    this.launcher.setAttribute('aria-label', count && !this.opened ? `${this.strings.open} (${this.strings.newCount.replace('{n}', String(count))})` : this.opened ? this.strings.close : this.strings.open);
  }

  private scrollToEnd(): void {
    this.logBox.scrollTop = this.logBox.scrollHeight;
  }

  private async submit(): Promise<void> {
    // Sent exactly as typed (the server keeps bodies verbatim); only an all-blank text is not sent.
    const text = this.input.value;
    const file = this.files.file;
    if (!text.trim() && !file) return;
    if (this.sending) {
      this.sendNext = true;
      return;
    }
    let email: string | undefined;
    if (!this.emailBox.hidden) {
      email = this.email.value.trim() || undefined;
      if (email && !EMAIL.test(email)) {
        this.showNotice(this.strings.emailInvalid);
        this.email.setAttribute('aria-invalid', 'true');
        this.email.focus();
        return;
      }
      this.email.removeAttribute('aria-invalid');
    }
    this.sending = true;
    this.sendButton.disabled = true;
    let sent = false;
    try {
      if (file) {
        this.files.progress(0);
        const fileSent = await this.callbacks.onSendFile(file, (fraction) => this.files.progress(fraction));
        this.files.progress(null);
        if (!fileSent) return;
        this.files.set(null);
      }
      sent = !text.trim() || (await this.callbacks.onSend(text, email));
      // The visitor may have typed the next message meanwhile (the own message can arrive by push first).
      if (sent && this.input.value === text) this.input.value = '';
    } finally {
      this.sending = false;
      this.sendButton.disabled = false;
      if (!this.form.hidden) this.input.focus();
      const next = this.sendNext && sent;
      this.sendNext = false;
      if (next) void this.submit();
    }
  }
}

function CSS_escape(value: string): string {
  return value.replace(/["\\]/g, '\\$&');
}
