import type { ChatMessage } from '../../src/realtime/events.js';
import { ApiError, createApi, type Api, type VisitorIdentity, type WidgetConfig } from './api.js';
import { Transport, fetchAllMessages, type ShownMessage, type SocketHandle, type SocketHandlers } from './transport.js';
import { stringsFor, type Strings } from './strings.js';
import { ChatUi } from './ui.js';

export interface WidgetOptions {
  publishableKey: string;
  /** Origin of the Hearth server (the script's own origin by default). */
  base: string;
  /** A tag the server accepts (see locale.ts), or none. */
  locale?: string;
  storage: Storage | null;
  connectSocket?: (token: string, handlers: SocketHandlers) => SocketHandle;
  pollMinMs?: number;
  pollMaxMs?: number;
  socketGraceMs?: number;
  /** Open the panel as soon as the widget is ready. */
  open?: boolean;
}

interface Saved {
  token: string;
  externalId?: string;
  /** `createdAt` of the newest team message seen on this browser: no unread badge for it after a reload. */
  readUpTo?: string;
}

/** Typing: a start is sent at most this often while the visitor types; a stop after this long idle. */
const TYPING_REPEAT_MS = 2_000;
const TYPING_IDLE_MS = 3_000;

function randomId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** One widget on one page: config, conversation, transport and UI wired together. */
export class HearthWidget {
  private readonly api: Api;
  private ui: ChatUi | null = null;
  private config: WidgetConfig | null = null;
  private transport: Transport | null = null;
  private saved: Saved | null;
  private visitor: VisitorIdentity | null = null;
  private starting: Promise<void> | null = null;
  private closed = false;
  private destroyed = false;
  private readonly storageKey: string;
  /** Built-in words for the locale until the config brings the workspace's own. */
  private text: Strings;
  /** Offline capture: the e-mail is asked for until one message carried it. */
  private askEmail = false;
  private ready: Promise<void> | null = null;
  /** The visitor's other tabs on this origin: a message sent here is shown there at once, de-duplicated by id. */
  private readonly siblings: BroadcastChannel | null;
  private typingSentAt = 0;
  private typingStop: ReturnType<typeof setTimeout> | undefined;
  /** The team's read cursor (`createdAt`), re-applied as messages arrive. */
  private teamRead = '';

  constructor(private readonly options: WidgetOptions) {
    this.api = createApi(options.base, options.publishableKey);
    // One token per workspace key: two Hearth-powered sites on one origin do not share a conversation.
    this.storageKey = `hearth.chat.${options.publishableKey.slice(0, 16)}`;
    this.text = stringsFor(options.locale);
    this.saved = this.read<Saved>(this.storageKey);
    this.siblings = typeof BroadcastChannel === 'function' ? new BroadcastChannel(this.storageKey) : null;
    if (this.siblings) this.siblings.onmessage = (event: MessageEvent<Parameters<HearthWidget['onSibling']>[0]>) => this.onSibling(event.data);
  }

  boot(): Promise<void> {
    this.ready ??= this.doBoot();
    return this.ready;
  }

  identify(visitor: VisitorIdentity): void {
    if (!visitor || typeof visitor.externalId !== 'string' || !visitor.externalId) return;
    const previous = this.saved?.externalId;
    const { externalId, name, email, identityToken, attributes } = visitor;
    // Attributes go as given: the server checks them, and bad ones make the chat anonymous rather than fail it.
    this.visitor = { externalId, name, email, identityToken, attributes };
    // Another person signed in on this browser: their thread is not this one.
    if (this.saved && previous !== undefined && previous !== visitor.externalId) this.reset();
  }

  open(): void {
    void this.boot().then(() => this.ui?.open());
  }

  close(): void {
    this.ui?.close();
  }

  /** Removes the widget and forgets the conversation on this browser (for instance on sign-out). */
  shutdown(): void {
    this.destroyed = true;
    this.siblings?.close();
    this.transport?.stop();
    this.transport = null;
    this.ui?.destroy();
    this.ui = null;
    this.forget();
    this.visitor = null;
  }

  private async doBoot(): Promise<void> {
    try {
      this.config = await this.api.config(this.options.locale);
    } catch (error) {
      console.warn('[hearth] chat config could not be loaded', error);
      return;
    }
    if (this.destroyed || !this.config.enabled) return;
    this.text = stringsFor(this.options.locale, this.config.strings);
    const ui = new ChatUi(document, {
      onOpen: () => this.onOpen(),
      onSend: (text, email) => this.send(text, email),
      onSendFile: (file, progress) => this.sendFile(file, progress),
      onRestart: () => this.restart(),
      onTyping: () => this.onTyping(),
    }, this.text);
    this.ui = ui;
    ui.readUpTo = this.saved?.readUpTo ?? '';
    document.addEventListener('visibilitychange', () => this.markRead());
    ui.applyTheme(this.config.theme);
    this.showIntro();
    if (this.saved) await this.resume(this.saved.token);
    if (this.options.open) ui.open();
  }

  private showIntro(): void {
    const config = this.config;
    if (!config || !this.ui) return;
    const online = config.online !== false;
    this.ui.setIntro(online ? config.greeting : (config.offlineMessage ?? config.greeting));
    this.ui.setStateText(online ? this.text.online : this.text.offline);
    this.askEmail = !online;
    this.ui.setEmailCapture(this.askEmail);
  }

  /** A reload: the stored token's history comes back, and the live channel reopens while it is OPEN. */
  private async resume(token: string): Promise<void> {
    try {
      const page = await fetchAllMessages((t, after) => this.api.messages(t, after), token, undefined);
      this.show(page.messages ?? []);
      if (page.status === 'CLOSED') {
        this.markClosed();
        return;
      }
      this.startTransport(token, page);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) this.forget();
      else this.startTransport(token);
    }
  }

  private onOpen(): void {
    this.markRead();
    // A verified visitor without a token on this browser may have a thread from another device.
    if (!this.saved && this.visitor?.identityToken) void this.ensureConversation().catch(() => undefined);
  }

  private ensureConversation(): Promise<void> {
    if (this.saved && !this.closed) return Promise.resolve();
    this.starting ??= (async () => {
      try {
        const result = await this.api.start({
          visitorSessionId: this.sessionId(),
          pageUrl: location.href.slice(0, 2000),
          referrer: document.referrer ? document.referrer.slice(0, 2000) : undefined,
          locale: this.options.locale,
          visitor: this.visitor ?? undefined,
        });
        if (!result.enabled || !result.conversationToken) throw new ApiError(503, 'chat_disabled', this.text.unavailable);
        this.saved = { token: result.conversationToken, externalId: this.visitor?.externalId };
        this.write(this.storageKey, this.saved);
        this.closed = false;
        if (result.resumed) await this.resume(result.conversationToken);
        else this.startTransport(result.conversationToken);
      } finally {
        this.starting = null;
      }
    })();
    return this.starting;
  }

  private startTransport(token: string, seed?: { status: string; messages: ChatMessage[] }): void {
    this.transport?.stop();
    const transport = new Transport({
      token,
      fetchMessages: (t, after) => this.api.messages(t, after),
      connectSocket: this.options.connectSocket,
      onMessages: (messages) => this.show(messages),
      onTyping: (event) => {
        if (event.sender === 'AGENT') this.ui?.showTyping(event.typing ? (event.agentName ?? '') : null);
      },
      onRead: (event) => {
        if (event.reader !== 'AGENT') return;
        this.teamRead = event.createdAt;
        this.ui?.setSeen(event.createdAt);
      },
      onStatus: (status) => {
        if (status === 'CLOSED') this.markClosed();
      },
      onGone: () => this.forget(),
      onMode: (mode) => this.ui?.host.setAttribute('data-transport', mode),
      pollMinMs: this.options.pollMinMs,
      pollMaxMs: this.options.pollMaxMs,
      socketGraceMs: this.options.socketGraceMs,
    });
    if (seed) transport.seed(seed);
    this.transport = transport;
    transport.start();
  }

  private show(messages: ShownMessage[]): void {
    this.ui?.addMessages(messages);
    for (const message of messages) if (message.agentName) this.ui?.labelAgent(message.id, message.agentName);
    if (this.teamRead) this.ui?.setSeen(this.teamRead);
    this.markRead();
  }

  /** While the panel is open in a visible tab, the team's newest message is read: told to the server once. */
  private markRead(): void {
    const ui = this.ui;
    const saved = this.saved;
    if (!ui || !saved || !ui.isOpen || document.hidden) return;
    const newest = ui.newestAgent();
    if (!newest || newest.createdAt <= (saved.readUpTo ?? '')) return;
    saved.readUpTo = ui.readUpTo = newest.createdAt;
    this.write(this.storageKey, saved);
    this.api.read(saved.token, newest.id).catch(() => undefined);
  }

  private onTyping(): void {
    const now = Date.now();
    if (now - this.typingSentAt >= TYPING_REPEAT_MS) {
      this.typingSentAt = now;
      this.transport?.typing(true);
    }
    clearTimeout(this.typingStop);
    this.typingStop = setTimeout(() => this.stopTyping(), TYPING_IDLE_MS);
  }

  private stopTyping(): void {
    clearTimeout(this.typingStop);
    if (!this.typingSentAt) return;
    this.typingSentAt = 0;
    this.transport?.typing(false);
  }

  private async send(text: string, email?: string): Promise<boolean> {
    this.ui?.showNotice(null);
    this.stopTyping();
    try {
      await this.ensureConversation();
      const token = this.saved?.token;
      if (!token) throw new ApiError(503, 'chat_disabled', this.text.unavailable);
      this.shown(token, await this.api.send(token, text, email));
      if (this.askEmail) {
        this.askEmail = !email;
        this.ui?.setEmailCapture(this.askEmail);
        this.ui?.showNotice(this.text.offlineSent);
      }
      return true;
    } catch (error) {
      return this.explain(error);
    }
  }

  /** A message this tab sent: shown, and handed to the visitor's other tabs. */
  private shown(token: string, message: ChatMessage): void {
    this.siblings?.postMessage({ token, message });
    if (this.transport) {
      this.transport.addOwn(message);
      this.transport.nudge();
    } else this.ui?.addMessages([message]);
  }

  /** A file the visitor picked, pasted or dropped: uploaded with progress; refusals become sentences. */
  private async sendFile(file: File, progress: (fraction: number) => void): Promise<boolean> {
    this.ui?.showNotice(null);
    try {
      await this.ensureConversation();
      const token = this.saved?.token;
      if (!token) throw new ApiError(503, 'chat_disabled', this.text.unavailable);
      this.shown(token, await this.api.upload(token, file, progress));
      return true;
    } catch (error) {
      const status = error instanceof ApiError ? error.status : 0;
      if (status === 413 || status === 415 || status === 400) {
        this.ui?.showNotice(status === 413 ? this.text.fileTooLarge : this.text.fileRejected);
        return false;
      }
      return this.explain(error);
    }
  }

  /** Another tab of this visitor sent a message: shown here once (the log drops it if a fetch brings it too). */
  private onSibling(data: { token?: unknown; message?: ChatMessage } | null): void {
    if (this.destroyed || !this.ui || !data || typeof data.token !== 'string' || !data.message) return;
    if (!this.saved) {
      // The other tab started the conversation: this one takes it up, history included.
      const saved = this.read<Saved>(this.storageKey);
      if (saved?.token !== data.token) return;
      this.saved = saved;
      this.closed = false;
      void this.resume(saved.token);
      return;
    }
    if (this.saved.token !== data.token) return;
    if (this.transport) this.transport.addOwn(data.message);
    else this.ui.addMessages([data.message]);
  }

  /** Errors become sentences for the visitor, never a crash; returns whether the text may be cleared. */
  private explain(error: unknown): boolean {
    const e = error instanceof ApiError ? error : new ApiError(0, 'unknown', String(error));
    if (e.status === 409 && e.code === 'conversation_closed') {
      this.markClosed();
      return false;
    }
    if (e.status === 409) this.ui?.showNotice(this.text.flood);
    else if (e.status === 404) {
      // The stored conversation is gone: the next attempt starts a fresh one.
      this.forget();
      this.ui?.showNotice(this.text.failed);
    } else if (e.status === 400 || e.status === 413) this.ui?.showNotice(this.text.invalid);
    else if (e.status === 0) this.ui?.showNotice(this.text.network);
    else if (e.code === 'chat_disabled') this.ui?.showNotice(this.text.unavailable);
    else this.ui?.showNotice(this.text.failed);
    return false;
  }

  private markClosed(): void {
    this.closed = true;
    this.transport?.stop();
    this.transport = null;
    this.ui?.setClosed(true);
    this.ui?.showNotice(this.text.closed);
  }

  private restart(): void {
    this.reset();
    this.ui?.setClosed(false);
  }

  private reset(): void {
    this.transport?.stop();
    this.transport = null;
    this.forget();
    this.closed = false;
    this.ui?.clearMessages();
    this.ui?.showNotice(null);
    this.showIntro();
  }

  private forget(): void {
    this.saved = null;
    this.remove(this.storageKey);
  }

  private sessionId(): string {
    const key = 'hearth.visitorSessionId';
    let id = this.read<string>(key);
    if (typeof id !== 'string' || !id || id.length > 120) {
      id = randomId();
      this.write(key, id);
    }
    return id;
  }

  // Storage can be missing or throw (privacy modes, sandboxed frames): the chat still works for the page's life.
  private read<T>(key: string): T | null {
    try {
      const raw = this.options.storage?.getItem(key);
      return raw ? (JSON.parse(raw) as T) : null;
    } catch {
      return null;
    }
  }

  private write(key: string, value: unknown): void {
    try {
      this.options.storage?.setItem(key, JSON.stringify(value));
    } catch {
      /* storage full or denied: keep the value in memory only */
    }
  }

  private remove(key: string): void {
    try {
      this.options.storage?.removeItem(key);
    } catch {
      /* see read() */
    }
  }
}
