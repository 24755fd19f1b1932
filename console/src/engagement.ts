import { signal } from '@preact/signals';
import type { TypingChanged } from '../../src/realtime/events.js';
import * as store from './store.js';
import { t } from './strings.js';

/**
 * Assignment, typing indicators and read status in the console, wired onto the store's socket. Typing is
 * live only (never fetched): an indicator shows until its side stops, sends a message, or goes quiet.
 */
const TYPING_SHOW_MS = 6_000;
const TYPING_REPEAT_MS = 2_000;
const TYPING_IDLE_MS = 3_000;

/** The logged-in member (for "Assign to me" and to hide one's own typing from other tabs). */
export const me = signal<{ id: string; name: string; email: string } | null>(null);
/** conversationId -> who types there now. */
export const typing = signal<Record<string, string>>({});

const typingTimers = new Map<string, ReturnType<typeof setTimeout>>();

function setTyping(conversationId: string, who: string | null): void {
  clearTimeout(typingTimers.get(conversationId));
  const next = { ...typing.value };
  if (who === null) delete next[conversationId];
  else {
    next[conversationId] = who;
    typingTimers.set(conversationId, setTimeout(() => setTyping(conversationId, null), TYPING_SHOW_MS));
  }
  typing.value = next;
}

function onTyping(event: TypingChanged): void {
  if (event.sender === 'AGENT' && event.userId === me.value?.id) return;
  const who = event.sender === 'VISITOR' ? t.theVisitor : event.agentName || t.aColleague;
  setTyping(event.conversationId, event.typing ? who : null);
}

store.socketHooks.push((socket) => {
  socket.on('typing.changed', (event) => onTyping(event));
  socket.on('message.created', ({ conversationId }) => setTyping(conversationId, null));
  socket.on('conversation.assigned', (event) =>
    store.whenSynced(() => {
      store.patchInPlace(event.conversationId, (c) => ({ ...c, assignee: event.assignee }));
      if (store.assigneeFilter.value === 'me') store.refreshSoon();
    }),
  );
  socket.on('conversation.read', (event) =>
    store.whenSynced(() =>
      store.patchInPlace(event.conversationId, (c) => ({
        ...c,
        [event.reader === 'VISITOR' ? 'readByVisitor' : 'readByTeam']: { messageId: event.messageId, createdAt: event.createdAt },
      })),
    ),
  );
});

export async function loadMe(): Promise<void> {
  try {
    me.value = await store.call<{ id: string; name: string; email: string }>('GET', '/admin/me');
  } catch {
    /* the store reports session trouble */
  }
}

export async function assign(userId: string | null): Promise<void> {
  const id = store.selectedId.value;
  if (!id) return;
  try {
    const updated = await store.call<{ assignee: { userId: string; name: string } | null }>('POST', `${store.ws()}/conversations/${id}/assign`, { userId });
    store.patchInPlace(id, (c) => ({ ...c, assignee: updated.assignee }));
  } catch (err) {
    store.error.value = err instanceof Error ? err.message : String(err);
  }
}

let typingSentAt = 0;
let typingIn: string | null = null;
let typingStop: ReturnType<typeof setTimeout> | undefined;

/** The agent typed in the reply box: a start at most every 2 s, a stop after 3 s idle or on send. */
export function agentTyped(): void {
  const id = store.selectedId.value;
  const socket = store.currentSocket();
  if (!id || !socket?.connected) return;
  const now = Date.now();
  if (typingIn !== id || now - typingSentAt >= TYPING_REPEAT_MS) {
    if (typingIn && typingIn !== id) socket.emit('typing', { typing: false, conversationId: typingIn });
    typingSentAt = now;
    typingIn = id;
    socket.emit('typing', { typing: true, conversationId: id });
  }
  clearTimeout(typingStop);
  typingStop = setTimeout(agentStoppedTyping, TYPING_IDLE_MS);
}

export function agentStoppedTyping(): void {
  clearTimeout(typingStop);
  if (typingIn) store.currentSocket()?.emit('typing', { typing: false, conversationId: typingIn });
  typingIn = null;
  typingSentAt = 0;
}
