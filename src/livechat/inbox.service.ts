import type { Deps } from '../deps.js';
import { pageOf } from '../shared/paging.js';
import type { ConversationStatus } from '../realtime/events.js';
import { conversationStore } from './conversations.model.js';
import { messageStore } from './messages.model.js';
import { conversationOf, type Conversation } from './conversations.service.js';
import { push } from './livechat.socket.js';
import { forgetConversation } from './conversation-memo.service.js';
import { postAgentMessage } from './messages.service.js';
import { publishConversation } from './events.service.js';

/** The agent console's view of a conversation. */
function toAdminConversation(conversation: Conversation, unreadCount: number) {
  return {
    id: conversation.id,
    status: conversation.status,
    visitor: {
      verified: conversation.identityVerified,
      externalId: conversation.externalId,
      name: conversation.visitorName,
      email: conversation.visitorEmail,
      attributes: conversation.attributes,
      sessionId: conversation.visitorSessionId,
    },
    locale: conversation.locale,
    pageUrl: conversation.pageUrl,
    referrer: conversation.referrer,
    unreadCount,
    lastMessage: conversation.lastMessage,
    lastActivityAt: conversation.lastActivityAt.toISOString(),
    closedAt: conversation.closedAt?.toISOString() ?? null,
    createdAt: conversation.createdAt.toISOString(),
  };
}

export async function listConversations(deps: Deps, workspaceId: string, query: { status?: ConversationStatus; q?: string; page: number; limit: number }) {
  const request = { page: query.page, limit: query.limit };
  const { items, total } = await conversationStore(deps.db).list(workspaceId, { status: query.status, q: query.q }, request);
  const unread = await messageStore(deps.db).unreadByTeam(workspaceId, items.map((item) => item.id));
  return pageOf(request, items.map((item) => toAdminConversation(item, unread.get(item.id) ?? 0)), total);
}

export async function getConversation(deps: Deps, workspaceId: string, conversationId: string) {
  const conversation = await conversationOf(deps, workspaceId, conversationId);
  const unread = await messageStore(deps.db).unreadByTeam(workspaceId, [conversation.id]);
  return toAdminConversation(conversation, unread.get(conversation.id) ?? 0);
}

/**
 * Closes the conversation (idempotent); the status is pushed to the visitor and the consoles. A closing
 * `message` is stored and pushed as the agent's reply first, so the visitor reads it before the status
 * changes; on a conversation that is already closed it cannot be delivered and is refused like any reply.
 */
export async function closeConversation(deps: Deps, workspaceId: string, conversationId: string, closing?: { userId: string; message: string }) {
  const conversation = await conversationOf(deps, workspaceId, conversationId);
  if (closing) await postAgentMessage(deps, workspaceId, conversation.id, closing.userId, closing.message);
  // Only the request that actually closes it pushes the change.
  const closed = await conversationStore(deps.db).close(workspaceId, conversation.id, deps.clock.now());
  if (closed) {
    // Every node forgets it as OPEN before the close is answered or pushed: posts after it are refused.
    await forgetConversation(deps, conversation.id);
    push.status(deps, workspaceId, conversation.id, 'CLOSED');
    await publishConversation(deps, 'conversation.closed', closed);
  }
  return getConversation(deps, workspaceId, conversation.id);
}
