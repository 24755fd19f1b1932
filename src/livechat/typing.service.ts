import type { Deps } from '../deps.js';
import type { TypingChanged } from '../realtime/events.js';
import { rememberedOf } from './conversation-memo.service.js';

/**
 * Typing indicators: relayed over the sockets, never stored. While an indicator is up, a sender's repeated
 * `typing: true` is relayed at most once per `TYPING_RELAY_MS` per conversation (clients repeat it while
 * typing goes on; the receiver hides the indicator `TYPING_SHOW_MS` after the last one, or when a message of
 * that side arrives). A stop is relayed only to take down an indicator a relayed start put up, once. And
 * however a client alternates start and stop, no more than `TYPING_RELAYS_PER_WINDOW` changes of one sender
 * and conversation are relayed per `TYPING_RELAY_MS`. The functions answer what to relay (the socket layer
 * pushes it), or null.
 */
export const TYPING_RELAY_MS = 2_000;
export const TYPING_SHOW_MS = 6_000;
/** Room for a pause and a restart (start, stop, start, stop) within one window, and no more. */
export const TYPING_RELAYS_PER_WINDOW = 4;

/**
 * When a sender's last start was relayed, whether the indicator it put up is still up (no stop relayed
 * since), and how many changes were relayed in the window that began at `windowAt`.
 */
export interface RelayedStart {
  at: number;
  showing: boolean;
  windowAt: number;
  relayed: number;
}

/**
 * A sender's last relayed start, by whatever names the sender and conversation: a visitor's socket (it has
 * one conversation) or an agent socket's conversation id. A Map or a WeakMap fits.
 */
export interface RelayedStarts<K> {
  get(key: K): RelayedStart | undefined;
  set(key: K, start: RelayedStart): unknown;
}

/** Per agent socket: each conversation's last relayed start, and the conversations checked as this workspace's. */
export interface TypingMemo {
  relayedAt: Map<string, RelayedStart>;
  checked: Set<string>;
}

export const newTypingMemo = (): TypingMemo => ({ relayedAt: new Map(), checked: new Set() });

/** Whether this change is held back; records what is relayed. */
function throttled<K>(starts: RelayedStarts<K>, key: K, typing: boolean, now: number): boolean {
  const last = starts.get(key);
  const window = last && now - last.windowAt < TYPING_RELAY_MS ? { windowAt: last.windowAt, relayed: last.relayed } : { windowAt: now, relayed: 0 };
  if (window.relayed >= TYPING_RELAYS_PER_WINDOW) return true;
  if (!typing) {
    if (!last?.showing) return true;
    starts.set(key, { at: last.at, showing: false, windowAt: window.windowAt, relayed: window.relayed + 1 });
    return false;
  }
  if (last?.showing && now - last.at < TYPING_RELAY_MS) return true;
  starts.set(key, { at: now, showing: true, windowAt: window.windowAt, relayed: window.relayed + 1 });
  return false;
}

/**
 * A visitor types in their socket's conversation. The throttle is keyed by the socket itself (`starts` is
 * a WeakMap of the node), so a socket holds no typing state of its own.
 */
export function visitorTyping<S extends object>(deps: Deps, conversationId: string, typing: boolean, starts: RelayedStarts<S>, socket: S): TypingChanged | null {
  if (throttled(starts, socket, typing, deps.clock.now().getTime())) return null;
  return { conversationId, sender: 'VISITOR', typing };
}

/** An agent types in a conversation of their socket's workspace (checked once per conversation and socket). */
export async function agentTyping(
  deps: Deps,
  agent: { workspaceId: string; userId: string; name: string },
  conversationId: string,
  typing: boolean,
  memo: TypingMemo,
): Promise<TypingChanged | null> {
  if (!memo.checked.has(conversationId)) {
    await rememberedOf(deps, agent.workspaceId, conversationId);
    memo.checked.add(conversationId);
  }
  if (throttled(memo.relayedAt, conversationId, typing, deps.clock.now().getTime())) return null;
  return { conversationId, sender: 'AGENT', typing, agentName: agent.name, userId: agent.userId };
}
