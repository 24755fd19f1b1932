import { batch, computed, signal } from '@preact/signals';
import { io, type Socket } from 'socket.io-client';
import type { AgentServerEvents, ChatMessage, ClientEvents, ConversationStatus, MessageCreated } from '../../src/realtime/events.js';
import { CLIENT_TRANSPORTS, NAMESPACES } from '../../src/realtime/events.js';
import { rememberFirstList } from './prefetch.js';
import { api, ApiError, storeToken, storedToken, takePrefetched, visitorLabel, type Conversation, type Page, type Workspace } from './api.js';
import { alert } from './alerts.js';
import { t } from './strings.js';
import { route, type Section } from './router.js';

/** Largest page of the inbox and of a messages poll (the API's bounds). */
const LIST_LIMIT = 100;
const MESSAGES_PAGE = 500;
export const WORKSPACE_KEY = 'hearth.console.workspace';

export const token = signal<string | null>(storedToken());
export const workspaces = signal<Workspace[]>([]);
export const workspaceId = signal<string | null>(null);
export const statusFilter = signal<ConversationStatus>('OPEN');
/** `me`: only the conversations assigned to the logged-in member. */
export const assigneeFilter = signal<'all' | 'me'>('all');
export const search = signal('');
export const conversations = signal<Conversation[]>([]);
export const total = signal(0);
export const selectedId = signal<string | null>(null);
export const messages = signal<ChatMessage[]>([]);
export const live = signal<'connecting' | 'live' | 'offline'>('connecting');
export const error = signal('');

export const selected = computed(() => conversations.value.find((c) => c.id === selectedId.value) ?? null);
export const unreadTotal = computed(() => conversations.value.reduce((sum, c) => sum + c.unreadCount, 0));

export type AgentSocket = Socket<AgentServerEvents, ClientEvents>;
let socket: AgentSocket | null = null;
/** Other console modules wire their live events here (assignment, typing, read status). */
export const socketHooks: ((socket: AgentSocket) => void)[] = [];
export const currentSocket = () => socket;
/** Live events that arrive while a catch-up is running are applied after it, in arrival order. */
let syncing = false;
let pending: (() => void)[] = [];

export const call = <T>(method: string, path: string, body?: unknown) =>
  ((method === 'GET' && firstListOfView<T>(path)) || api<T>(token.value, method, path, body)).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 401 && path !== '/admin/auth/login') logout();
    throw err;
  });

export const ws = () => `/admin/workspaces/${workspaceId.value}`;

export function report(err: unknown): void {
  error.value = err instanceof Error ? err.message : String(err);
}

export async function login(email: string, password: string): Promise<void> {
  error.value = '';
  try {
    const res = await api<{ token: string }>(null, 'POST', '/admin/auth/login', { email, password });
    storeToken(res.token);
    token.value = res.token;
    await start();
  } catch (err) {
    report(err);
  }
}

export function logout(): void {
  const old = token.value;
  if (old) void fetch('/admin/auth/logout', { method: 'POST', headers: { Authorization: `Bearer ${old}` } }).catch(() => undefined);
  storeToken(null);
  socket?.disconnect();
  socket = null;
  batch(() => {
    token.value = null;
    workspaceId.value = null;
    conversations.value = [];
    selectedId.value = null;
    messages.value = [];
  });
}

export async function start(): Promise<void> {
  // A returning agent's inbox loads alongside the workspace list instead of after it (first paint).
  const remembered = localStorage.getItem(WORKSPACE_KEY);
  if (remembered) pickWorkspace(remembered);
  try {
    const res = await call<{ items: Workspace[] }>('GET', '/admin/workspaces');
    workspaces.value = res.items;
    if (!res.items.some((w) => w.id === remembered) && res.items[0]) {
      error.value = '';
      pickWorkspace(res.items[0].id);
    }
  } catch (err) {
    report(err);
  }
}

// ---------------------------------------------------------------------------------------------
// First paint: the shown view's own list goes first
// ---------------------------------------------------------------------------------------------

/** The longest what only feeds badges waits for the view's first list. */
const BADGES_WAIT_MS = 1500;
let markPainted: () => void = () => {};
let painted = Promise.resolve();

/**
 * Loads the shown view's list; what only feeds badges and catch-ups (`afterFirstPaint`) starts once it is
 * in, so on a busy server the view's own call does not queue behind them.
 */
export function loadView(load: () => Promise<void>): void {
  if (!workspaceId.value || loading.has(load)) return;
  loading.add(load);
  // The loader's first request (made before it awaits anything) is the view's first list. Only the first
  // load of a view of a workspace in a page: later ones may carry filters picked since, which a new page
  // starts without.
  const section = route.value.section;
  const first = `${section}:${workspaceId.value}`;
  if (!listed.has(first)) listOfView = section;
  listed.add(first);
  const loaded = load();
  listOfView = null;
  void loaded.finally(() => {
    loading.delete(load);
    markPainted();
  });
}
const loading = new Set<() => Promise<void>>();
let listOfView: Section | null = null;
const listed = new Set<string>();

/** A view's first list: remembered for the page's boot script next time, and taken from it this time. */
function firstListOfView<T>(path: string): Promise<T> | null {
  if (listOfView === null) return null;
  rememberFirstList(listOfView, path);
  listOfView = null;
  return takePrefetched<T>(path);
}

/**
 * Each view's first list, registered by its module: started as soon as a workspace is picked, before the
 * view renders (its own mount then finds it under way).
 */
export const viewLoaders: Partial<Record<Section, () => Promise<void>>> = {};

export function afterFirstPaint(work: () => void): void {
  void Promise.race([painted, new Promise((resolve) => setTimeout(resolve, BADGES_WAIT_MS))]).then(work);
}

export function pickWorkspace(id: string): void {
  localStorage.setItem(WORKSPACE_KEY, id);
  socket?.disconnect();
  painted = new Promise<void>((resolve) => (markPainted = resolve));
  batch(() => {
    workspaceId.value = id;
    selectedId.value = null;
    messages.value = [];
    conversations.value = [];
  });
  // The list shows first: the socket connects once it is in (its handshake would share the server with the
  // list), and every connect catches up on what it missed anyway. Elsewhere the chat list only feeds the badge.
  const section = route.value.section;
  const first = section === 'chats' ? loadConversations : viewLoaders[section];
  if (first) loadView(first);
  if (section !== 'chats') afterFirstPaint(() => void loadConversations());
  socket = null;
  afterFirstPaint(() => {
    if (workspaceId.value === id && token.value && !socket) connect(id);
  });
}

// ---------------------------------------------------------------------------------------------
// Inbox
// ---------------------------------------------------------------------------------------------

let listRequest = 0;
let listApplied = 0;

export async function loadConversations(more = false): Promise<void> {
  if (!workspaceId.value) return;
  const mine = ++listRequest;
  const page = more ? Math.floor(conversations.value.length / LIST_LIMIT) + 1 : 1;
  // Uncounted: the list only needs to know whether there is more (`total` then counts one past the page).
  const params = new URLSearchParams({ status: statusFilter.value, limit: String(LIST_LIMIT), page: String(page), total: 'false' });
  if (search.value.trim()) params.set('q', search.value.trim());
  if (assigneeFilter.value === 'me') params.set('assignee', 'me');
  try {
    const res = await call<Page<Conversation>>('GET', `${ws()}/conversations?${params}`);
    // An answer older than one already shown is stale; an older one that arrives first still paints.
    if (mine < listApplied) return;
    listApplied = mine;
    // The open conversation is read while it is shown, whatever the server counted before the fetch.
    const items = res.items.map((c) => (c.id === selectedId.value && !document.hidden ? { ...c, unreadCount: 0 } : c));
    batch(() => {
      conversations.value = more ? dedupe([...conversations.value, ...items]) : keepSelected(items);
      total.value = res.pageInfo.total;
    });
  } catch (err) {
    report(err);
  }
}

/** The open conversation stays in the list (and so its panel) even when a refresh no longer matches it. */
function keepSelected(items: Conversation[]): Conversation[] {
  const current = selected.value;
  return current && !items.some((c) => c.id === current.id) ? [current, ...items] : items;
}

function dedupe(items: Conversation[]): Conversation[] {
  const seen = new Set<string>();
  return items.filter((c) => !seen.has(c.id) && seen.add(c.id));
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;
/** Bursts of events refresh the list once. */
export function refreshSoon(): void {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void loadConversations(), 150);
}

function patchConversation(id: string, patch: (c: Conversation) => Conversation): boolean {
  const list = conversations.value;
  const index = list.findIndex((c) => c.id === id);
  if (index < 0) return false;
  const updated = patch(list[index]);
  // Newest activity first, as the API orders it.
  conversations.value = [updated, ...list.slice(0, index), ...list.slice(index + 1)];
  return true;
}

// ---------------------------------------------------------------------------------------------
// The open conversation
// ---------------------------------------------------------------------------------------------

export async function openConversation(id: string): Promise<void> {
  fetchedUpTo = null;
  batch(() => {
    selectedId.value = id;
    messages.value = [];
  });
  patchInPlace(id, (c) => ({ ...c, unreadCount: 0 }));
  await catchUp();
  try {
    const fresh = await call<Conversation>('GET', `${ws()}/conversations/${id}`);
    if (selectedId.value !== id) return;
    // Opened from elsewhere (a person's other chats) it may be outside the inbox's filter: it joins the list.
    if (conversations.value.some((c) => c.id === id)) patchInPlace(id, () => ({ ...fresh, unreadCount: 0 }));
    else conversations.value = [{ ...fresh, unreadCount: 0 }, ...conversations.value];
  } catch (err) {
    report(err);
  }
}

export function patchInPlace(id: string, patch: (c: Conversation) => Conversation): void {
  conversations.value = conversations.value.map((c) => (c.id === id ? patch(c) : c));
}

export function closeView(): void {
  fetchedUpTo = null;
  batch(() => {
    selectedId.value = null;
    messages.value = [];
  });
}

/** Adds messages by id (never twice), kept in `createdAt` order. */
function addMessages(conversationId: string, incoming: ChatMessage[]): void {
  if (conversationId !== selectedId.value || incoming.length === 0) return;
  const known = new Set(messages.value.map((m) => m.id));
  const fresh = incoming.filter((m) => !known.has(m.id) && known.add(m.id));
  if (fresh.length === 0) return;
  messages.value = [...messages.value, ...fresh].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/**
 * `createdAt` of the newest message fetched (not pushed) for the open conversation. Catch-ups start here:
 * a fetch is what marks messages read on the server, and pushed ones in between are simply de-duplicated.
 */
let fetchedUpTo: string | null = null;
let catchingUp: Promise<void> | null = null;
let catchUpAgain = false;

/**
 * Fetches the open conversation's messages after the last one seen (which also marks them read on the
 * server). Serialised: a call while one runs makes one more run afterwards.
 */
export function catchUp(): Promise<void> {
  if (catchingUp) {
    catchUpAgain = true;
    return catchingUp;
  }
  catchingUp = (async () => {
    do {
      catchUpAgain = false;
      const id = selectedId.value;
      if (!id || !workspaceId.value) return;
      try {
        for (;;) {
          const last = fetchedUpTo;
          const res = await call<{ status: ConversationStatus; messages: ChatMessage[] }>(
            'GET',
            `${ws()}/conversations/${id}/messages${last ? `?after=${encodeURIComponent(last)}` : ''}`,
          );
          if (selectedId.value !== id) break;
          addMessages(id, res.messages);
          fetchedUpTo = res.messages[res.messages.length - 1]?.createdAt ?? fetchedUpTo;
          patchInPlace(id, (c) => ({ ...c, status: res.status, unreadCount: 0 }));
          if (res.messages.length < MESSAGES_PAGE) break;
        }
      } catch (err) {
        report(err);
      }
    } while (catchUpAgain);
  })().finally(() => {
    catchingUp = null;
  });
  return catchingUp;
}

/** A message the team just sent (text or file): shown at once, and as the conversation's last. */
export function showSent(id: string, message: ChatMessage): void {
  addMessages(id, [message]);
  patchConversation(id, (c) => ({ ...c, lastMessage: message, lastActivityAt: message.createdAt }));
}

export async function sendReply(body: string): Promise<boolean> {
  const id = selectedId.value;
  if (!id || !body.trim()) return false;
  error.value = '';
  try {
    showSent(id, await call<ChatMessage>('POST', `${ws()}/conversations/${id}/messages`, { body }));
    return true;
  } catch (err) {
    report(err);
    return false;
  }
}

export async function closeConversation(message: string): Promise<boolean> {
  const id = selectedId.value;
  if (!id) return false;
  error.value = '';
  try {
    const closed = await call<Conversation>('POST', `${ws()}/conversations/${id}/close`, message.trim() ? { message } : {});
    patchInPlace(id, () => ({ ...closed, unreadCount: 0 }));
    await catchUp();
    return true;
  } catch (err) {
    report(err);
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Live updates
// ---------------------------------------------------------------------------------------------

export function whenSynced(apply: () => void): void {
  if (syncing) pending.push(apply);
  else apply();
}

/** On every (re)connect: refetch the inbox and what the open conversation missed, then apply what arrived meanwhile. */
async function resync(): Promise<void> {
  syncing = true;
  try {
    await Promise.all([loadConversations(), catchUp()]);
  } finally {
    const queued = pending;
    pending = [];
    syncing = false;
    for (const apply of queued) apply();
  }
}

function onMessage({ conversationId, message }: MessageCreated): void {
  const open = conversationId === selectedId.value;
  const seen = open && !document.hidden;
  addMessages(conversationId, [message]);
  const known = patchConversation(conversationId, (c) => ({
    ...c,
    lastMessage: message,
    lastActivityAt: message.createdAt,
    unreadCount: message.sender === 'VISITOR' && !seen ? c.unreadCount + 1 : seen ? 0 : c.unreadCount,
  }));
  if (!known) refreshSoon();
  // Marks it read on the server too, so the count stays right after a reload.
  if (seen && message.sender === 'VISITOR') void catchUp();
  if (message.sender === 'VISITOR') {
    const who = conversations.value.find((c) => c.id === conversationId);
    alert(`New message from ${who ? visitorLabel(who) : 'a visitor'}`, message.body, conversationId);
  }
}

/** After the server ended a socket: reconnect while the member still belongs here, else move on (or out). */
async function recheck(ended: AgentSocket, id: string): Promise<void> {
  try {
    const res = await call<{ items: Workspace[] }>('GET', '/admin/workspaces');
    workspaces.value = res.items;
    if (socket !== ended) return;
    if (res.items.some((w) => w.id === id)) ended.connect();
    else {
      // Removed from this workspace: on to another one, or out when none is left (the session ends with it).
      if (res.items[0]) pickWorkspace(res.items[0].id);
      else logout();
      error.value = t.noLongerMember;
    }
  } catch {
    // A 401 has logged out already; anything else leaves the console offline until the next action.
  }
}

function connect(id: string): void {
  const next: Socket<AgentServerEvents, ClientEvents> = io(NAMESPACES.agent, { ...CLIENT_TRANSPORTS, auth: { token: token.value, workspaceId: id } });
  socket = next;
  live.value = 'connecting';
  next.on('connect', () => {
    live.value = 'live';
    afterFirstPaint(() => void resync());
  });
  next.on('disconnect', (reason) => {
    live.value = 'offline';
    // The server disconnects when the session ended (a 401 below logs out) or the membership did: check both.
    if (reason === 'io server disconnect') void recheck(next, id);
  });
  next.on('connect_error', () => {
    live.value = 'offline';
  });
  next.on('message.created', (payload) => whenSynced(() => onMessage(payload)));
  for (const hook of socketHooks) hook(next);
  next.on('conversation.created', () =>
    whenSynced(() => {
      refreshSoon();
      alert(t.newConversation, t.newConversationBody, null);
    }),
  );
  next.on('conversation.updated', (payload) =>
    whenSynced(() => {
      patchInPlace(payload.conversationId, (c) => ({ ...c, status: payload.status }));
      refreshSoon();
    }),
  );
}

/** Back in view: what arrived while hidden in the open conversation is now read. */
export function onVisible(): void {
  if (!selectedId.value) return;
  patchInPlace(selectedId.value, (c) => ({ ...c, unreadCount: 0 }));
  void catchUp();
}
