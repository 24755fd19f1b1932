import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';

/** The window of the new-conversation caps: an hour, sliding. */
export const NEW_CONVERSATION_WINDOW_MS = 60 * 60_000;

/** Who asks for a new conversation: the widget's session id, and the client address when known. */
export interface ConversationStarter {
  visitorSessionId: string;
  address?: string;
}

/**
 * Admits one more new conversation for this visitor in this workspace, or refuses with 429 `rate_limited`
 * (and `Retry-After`). A conversation is a document, a row in the team's inbox and a push to every console,
 * and an anonymous client makes one with nothing but the public publishable key: so at most
 * `MAX_CONVERSATIONS_PER_SESSION` per visitor session and, since the session id is whatever the client
 * sends, at most `MAX_CONVERSATIONS_PER_ADDRESS` per client address (higher: an office or a school shares
 * one; 0 turns it off behind a proxy), each per workspace per hour. Resuming counts nothing (the caller
 * asks only before it creates). The counts are shared by every node (Redis); while Redis is unreachable
 * starts are admitted, as the `/external` rate limit still holds per node, and a chat that cannot start
 * loses the visitor for good.
 */
export async function admitNewConversation(deps: Deps, workspaceId: string, starter: ConversationStarter): Promise<void> {
  const { MAX_CONVERSATIONS_PER_SESSION: perSession, MAX_CONVERSATIONS_PER_ADDRESS: perAddress } = deps.config;
  const caps: [key: string, limit: number][] = [[`chat-new:${workspaceId}:session:${starter.visitorSessionId}`, perSession]];
  if (starter.address && perAddress > 0) caps.push([`chat-new:${workspaceId}:ip:${starter.address}`, perAddress]);
  for (const [key, limit] of caps) {
    const admission = await deps.counters.admitWithin(key, NEW_CONVERSATION_WINDOW_MS, limit);
    if (!admission) {
      deps.logger.warn({ workspaceId }, 'live chat: new conversations not counted (Redis unreachable); admitted');
      return;
    }
    if (!admission.admitted) {
      throw fail('too_many_conversations', undefined, { retryAfterSeconds: Math.max(1, Math.ceil(admission.retryInMs / 1000)) });
    }
  }
}
