import type { ChatMessage } from '../../src/realtime/events.js';
import type { MessagesPage } from './transport.js';

/** The widget config of `GET /external/live-chat/config`. */
export interface WidgetConfig {
  enabled: boolean;
  greeting?: string;
  offlineMessage?: string | null;
  theme?: Record<string, string> | null;
  online?: boolean;
  /** The workspace's own wording of the widget's strings for this locale (`include=strings`). */
  strings?: Record<string, string>;
}

export interface VisitorIdentity {
  externalId: string;
  name?: string;
  email?: string;
  /** At most 10 entries, keys up to 40 and values up to 100 characters; else the chat starts anonymously. */
  attributes?: Record<string, string>;
  identityToken?: string;
}

export interface StartBody {
  visitorSessionId: string;
  conversationToken?: string;
  pageUrl?: string;
  referrer?: string;
  locale?: string;
  visitor?: VisitorIdentity;
}

export interface StartResult {
  enabled: boolean;
  conversationId?: string;
  conversationToken?: string;
  greeting?: string;
  resumed?: boolean;
}

/** An error answer of the API (`{code, message}`), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Api {
  config(locale?: string): Promise<WidgetConfig>;
  start(body: StartBody): Promise<StartResult>;
  send(token: string, body: string, visitorEmail?: string): Promise<ChatMessage>;
  messages(token: string, after?: string): Promise<MessagesPage>;
  /** The visitor has read the team's messages up to `messageId`. */
  read(token: string, messageId: string): Promise<unknown>;
  /** Sends a file (XMLHttpRequest: `fetch` reports no upload progress); `progress` gets 0..1. */
  upload(token: string, file: File, progress: (fraction: number) => void): Promise<ChatMessage>;
}

export function createApi(base: string, publishableKey: string): Api {
  async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(base + path, { ...init, credentials: 'omit', cache: 'no-store' });
    } catch {
      throw new ApiError(0, 'network_error', 'The chat service could not be reached.');
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const error = (body ?? {}) as { code?: string; message?: string };
      throw new ApiError(response.status, error.code ?? 'http_error', error.message ?? `HTTP ${response.status}`);
    }
    return body as T;
  }
  const json = (payload: unknown, extra: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...extra },
    body: JSON.stringify(payload),
  });
  const conv = (token: string) => `/external/live-chat/conversations/${encodeURIComponent(token)}/messages`;
  return {
    // The key rides in the query on GET so the config call needs no CORS preflight.
    config: (locale) =>
      call(
        `/external/live-chat/config?${locale ? `locale=${encodeURIComponent(locale)}&` : ''}publishableKey=${encodeURIComponent(publishableKey)}&include=strings`,
      ),
    start: (body) => call('/external/live-chat/conversations', json(body, { 'X-Publishable-Key': publishableKey })),
    send: (token, body, visitorEmail) => call(conv(token), json(visitorEmail ? { body, visitorEmail } : { body })),
    // `include=agentName`: history loaded after a reload names the agents, as live pushes do.
    messages: (token, after) => call(conv(token) + `?include=agentName${after ? `&after=${encodeURIComponent(after)}` : ''}`),
    read: (token, messageId) => call(conv(token).replace(/messages$/, 'read'), json({ messageId })),
    upload: (token, file, progress) =>
      new Promise((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open('POST', base + conv(token).replace(/messages$/, 'attachments'));
        xhr.upload.onprogress = (event) => event.lengthComputable && progress(event.loaded / event.total);
        xhr.onload = () => {
          let body: { code?: string; message?: string } | undefined;
          try {
            body = JSON.parse(xhr.responseText) as typeof body;
          } catch {
            body = undefined;
          }
          if (xhr.status >= 200 && xhr.status < 300) resolve(body as ChatMessage);
          else reject(new ApiError(xhr.status, body?.code ?? 'http_error', body?.message ?? `HTTP ${xhr.status}`));
        };
        xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The chat service could not be reached.'));
        const form = new FormData();
        form.append('file', file, file.name || 'file');
        xhr.send(form);
      }),
  };
}
