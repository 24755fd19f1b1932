import type { ChatMessage, ConversationStatus } from '../../src/realtime/events.js';
import { TOKEN_KEY, type Prefetched } from './prefetch.js';

/** The admin API's conversation (`AdminConversation` in the OpenAPI document). */
export interface Conversation {
  id: string;
  status: ConversationStatus;
  visitor: { verified: boolean; externalId: string | null; name: string | null; email: string | null; sessionId: string };
  locale: string | null;
  pageUrl: string | null;
  referrer: string | null;
  unreadCount: number;
  lastMessage: ChatMessage | null;
  lastActivityAt: string;
  closedAt: string | null;
  createdAt: string;
  assignee: { userId: string; name: string } | null;
  readByVisitor: { messageId: string; createdAt: string } | null;
  readByTeam: { messageId: string; createdAt: string } | null;
}

/** What a member may do in a workspace: agents work visitor requests, editors also content, owners everything. */
export type ViewerRole = 'agent' | 'editor' | 'owner' | 'operator';

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  role: ViewerRole;
}

export interface Page<T> {
  items: T[];
  pageInfo: { page: number; limit: number; total: number };
}

/** One field's problem in a 400 answer (`path` as the server names the field, e.g. `body` or `reason`). */
export interface FieldIssue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
  }
}

export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const storeToken = (token: string | null): void => {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
};

export async function api<T>(token: string | null, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  return readAnswer<T>(await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
}

async function readAnswer<T>(res: Response): Promise<T> {
  const text = await res.text();
  const data = text ? (JSON.parse(text) as { message?: string; issues?: FieldIssue[] }) : null;
  if (!res.ok) throw new ApiError(res.status, data?.message ?? `HTTP ${res.status}`, data?.issues ?? []);
  return data as T;
}

/** The answer the page's boot script asked for (prefetch.ts), once, when it is for `path`. */
export function takePrefetched<T>(path: string): Promise<T> | null {
  const holder = window as { hearthPrefetch?: Prefetched | null };
  const prefetched = holder.hearthPrefetch;
  holder.hearthPrefetch = null;
  return prefetched?.path === path ? prefetched.answer.then((res) => readAnswer<T>(res)) : null;
}

/** A file as `multipart/form-data` (part `file`): the browser sets the boundary, so no Content-Type here. */
export async function uploadFile<T>(token: string | null, path: string, file: File): Promise<T> {
  const form = new FormData();
  form.append('file', file, file.name);
  return readAnswer<T>(await fetch(path, { method: 'POST', headers: token ? { Authorization: `Bearer ${token}` } : {}, body: form }));
}

/**
 * `uploadFile` that reports its progress: fetch cannot tell how much of a body was sent, XMLHttpRequest can.
 * A refusal is the same `ApiError` (the server's message and issues).
 */
export function uploadWithProgress<T>(token: string | null, path: string, file: File, onProgress?: (share: number) => void): Promise<T> {
  const form = new FormData();
  form.append('file', file, file.name);
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && onProgress) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => readAnswer<T>(new Response(xhr.responseText || null, { status: xhr.status })).then(resolve, reject);
    xhr.onerror = () => reject(new Error('offline'));
    xhr.send(form);
  });
}

/** A message in one line of a list: its text, or the names of its files when it only carries files. */
export const messagePreview = (m: ChatMessage): string => (m.body || (m.attachments ?? []).map((file) => file.name).join(', ')).slice(0, 60);

export const visitorLabel = (c: Conversation): string => c.visitor.name || c.visitor.externalId || 'Visitor';

/** A form's call: what it answered, or the problems to show (beside their fields when the server names them). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[]; message: string };

export async function attempt<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, issues: err.issues, message: err.message };
    return { ok: false, issues: [], message: err instanceof Error ? err.message : String(err) };
  }
}
