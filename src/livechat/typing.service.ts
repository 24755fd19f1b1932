import type { Deps } from '../deps.js';
import type { TypingChanged } from '../realtime/events.js';
import { rememberedOf } from './conversation-memo.service.js';

/**
 * Typing indicators: relayed over the sockets, never stored. A sender's `typing: true` is relayed at most
 * once per `TYPING_RELAY_MS` per conversation (clients repeat it while typing goes on; the receiver hides
 * the indicator `TYPING_SHOW_MS` after the last one, or when a message of that side arrives). A stop is
 * relayed only after a start was, so a client cannot make the server emit more than it throttles. The
 * functions answer what to relay (the socket layer pushes it), or null.
 */
export const TYPING_RELAY_MS = 2_000;
export const TYPING_SHOW_MS = 6_000;

/**
 * When a sender's last start was relayed, by whatever names the sender and conversation: a visitor's socket
 * (it has one conversation) or an agent socket's conversation id. A Map or a WeakMap fits.
 */
export interface RelayedStarts<K> {
  get(key: K): number | undefined;
  set(key: K, at: number): unknown;
  delete(key: K): unknown;
}

/** Per agent socket: when each conversation's last start was relayed, and the conversations checked as this workspace's. */
export interface TypingMemo {
  relayedAt: Map<string, number>;
  checked: Set<string>;
}

export const newTypingMemo = (): TypingMemo => ({ relayedAt: new Map(), checked: new Set() });

/** Whether this change is relayed; records a relayed start, forgets it on a stop. */
function throttled<K>(starts: RelayedStarts<K>, key: K, typing: boolean, now: number): boolean {
  const last = starts.get(key);
  if (!typing) {
    starts.delete(key);
    return last === undefined;
  }
  if (last !== undefined && now - last < TYPING_RELAY_MS) return true;
  starts.set(key, now);
  return false;
}

/**
 * A visitor types in their socket's conversation. The throttle is keyed by the socket itself (`starts` is
 * a WeakMap of the node), so a socket holds no typing state of its own, and none at all between a stop and
 * the next start.
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
