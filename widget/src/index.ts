/**
 * Entry of the embeddable bundle:
 *   <script src="https://hearth.example/widget/widget.js" data-publishable-key="pk_..." async></script>
 *
 * The bundle is one IIFE: its only global is `window.Hearth` (the public JS API). Calls made before the
 * script loaded can be queued by a stub `window.Hearth = {q: [['identify', {...}]]}`; they are replayed.
 */
import { io, type Socket } from 'socket.io-client';
import { CLIENT_TRANSPORTS, NAMESPACES, type ClientEvents, type WidgetServerEvents } from '../../src/realtime/events.js';
import type { VisitorIdentity } from './api.js';
import { normalizeLocale } from './locale.js';
import type { SocketHandle, SocketHandlers } from './transport.js';
import { HearthWidget, type WidgetOptions } from './widget.js';

// Function properties, not methods: the queued calls of a stub are replayed as `api[name](...args)`.
interface HearthApi {
  identify: (visitor: VisitorIdentity) => void;
  open: () => void;
  close: () => void;
  shutdown: () => void;
  /** Starts the widget by hand (tag without `data-publishable-key`, or after `shutdown()`). */
  boot: (options: { publishableKey: string; base?: string; locale?: string }) => void;
  readonly version: string;
}

type QueuedCall = [keyof HearthApi, ...unknown[]];

declare global {
  interface Window {
    Hearth?: HearthApi | { q?: QueuedCall[] };
  }
}

function socketConnector(base: string, reconnectMaxMs = 15_000): (token: string, handlers: SocketHandlers) => SocketHandle {
  return (token, handlers) => {
    const socket: Socket<WidgetServerEvents, ClientEvents> = io(base + NAMESPACES.widget, {
      ...CLIENT_TRANSPORTS,
      auth: { conversationToken: token },
      reconnectionDelay: Math.min(1_000, reconnectMaxMs),
      reconnectionDelayMax: reconnectMaxMs,
      withCredentials: false,
    });
    socket.on('connect', handlers.connected);
    socket.on('disconnect', (reason) => {
      handlers.disconnected();
      // After a server-side disconnect Socket.IO does not come back by itself; polling covers the wait.
      if (reason === 'io server disconnect') setTimeout(() => void (closed || socket.connect()), reconnectMaxMs);
    });
    socket.on('connect_error', handlers.disconnected);
    socket.on('message.created', (payload) => {
      if (payload && payload.message) handlers.message(payload.message, typeof payload.agentName === 'string' ? payload.agentName : undefined);
    });
    socket.on('typing.changed', (payload) => void (payload && handlers.typing?.(payload)));
    socket.on('conversation.read', (payload) => void (payload && handlers.read?.(payload)));
    socket.on('conversation.updated', (payload) => {
      if (payload && payload.status) handlers.status(payload.status);
    });
    let closed = false;
    return {
      close: () => {
        closed = true;
        socket.disconnect();
      },
      typing: (on) => void (socket.connected && socket.emit('typing', { typing: on })),
    };
  };
}

function positiveInt(value: string | undefined): number | undefined {
  const n = value ? Number(value) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

(function main() {
  // Before the script loads, a page's stub may hold `{q}` only: read both shapes' fields.
  const existing: { q?: QueuedCall[]; version?: string } | undefined = window.Hearth;
  if (existing && existing.version) return; // loaded twice: the first copy stays in charge

  const script =
    (document.currentScript as HTMLScriptElement | null) ?? document.querySelector<HTMLScriptElement>('script[data-publishable-key][src*="widget"]');
  const data = script?.dataset ?? {};
  const scriptOrigin = script?.src ? new URL(script.src, location.href).origin : location.origin;
  let widget: HearthWidget | null = null;
  const pending: VisitorIdentity[] = [];

  function start(options: { publishableKey: string; base?: string; locale?: string }): void {
    if (widget || !options.publishableKey) return;
    const base = (options.base ?? data.apiBase ?? scriptOrigin).replace(/\/+$/, '');
    const config: WidgetOptions = {
      publishableKey: options.publishableKey,
      base,
      // The tag's `data-locale`, else the page's own language, else the browser's; none rather than one the server refuses.
      locale: normalizeLocale(options.locale ?? (data.locale || document.documentElement.lang || navigator.language)),
      storage: safeStorage(),
      // `data-transport="polling"` switches the socket off (sites whose proxies break upgrades).
      connectSocket: data.transport === 'polling' ? undefined : socketConnector(base, positiveInt(data.reconnectMaxMs)),
      pollMinMs: positiveInt(data.pollMinMs),
      pollMaxMs: positiveInt(data.pollMaxMs),
      socketGraceMs: positiveInt(data.socketGraceMs),
      open: data.open === 'true',
    };
    widget = new HearthWidget(config);
    for (const visitor of pending.splice(0)) widget.identify(visitor);
    void widget.boot();
  }

  const api: HearthApi = {
    version: '1',
    identify(visitor) {
      if (widget) widget.identify(visitor);
      else pending.push(visitor);
    },
    open: () => widget?.open(),
    close: () => widget?.close(),
    shutdown() {
      widget?.shutdown();
      widget = null;
    },
    boot: (options) => start(options),
  };
  window.Hearth = api;

  // Replay calls queued by a stub before the script loaded; `boot` first so identify reaches the widget.
  const queued = existing?.q ?? [];
  const identifyQueued = queued.filter(([name]) => name === 'identify');
  for (const [, visitor] of identifyQueued) api.identify(visitor as VisitorIdentity);
  if (data.publishableKey) start({ publishableKey: data.publishableKey });
  for (const [name, ...args] of queued) {
    if (name === 'identify' || name === 'version') continue;
    const fn = api[name] as (...a: unknown[]) => void;
    if (typeof fn === 'function') fn(...args);
  }
})();
