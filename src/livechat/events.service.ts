import type { Deps } from '../deps.js';
import type { ChatMessage } from '../realtime/events.js';
import type { Conversation } from './conversations.model.js';

/** Live-chat changes on the bus (webhook endpoints subscribe), published after they are stored. */
export async function publishConversation(deps: Deps, event: 'conversation.created' | 'conversation.closed', conversation: Conversation): Promise<void> {
  await deps.events.publish({
    event,
    workspaceId: conversation.workspaceId,
    at: deps.clock.now().toISOString(),
    data: {
      conversationId: conversation.id,
      status: conversation.status,
      visitorName: conversation.visitorName,
      visitorEmail: conversation.visitorEmail,
      pageUrl: conversation.pageUrl,
      locale: conversation.locale,
      createdAt: conversation.createdAt.toISOString(),
    },
  });
}

/** Visitor messages only: the team's own replies are not business events for the workspace. */
export async function publishVisitorMessage(deps: Deps, conversation: Pick<Conversation, 'id' | 'workspaceId'>, message: ChatMessage): Promise<void> {
  if (message.sender !== 'VISITOR') return;
  await deps.events.publish({
    event: 'message.created',
    workspaceId: conversation.workspaceId,
    at: message.createdAt,
    data: {
      conversationId: conversation.id,
      messageId: message.id,
      sender: 'VISITOR',
      body: message.body,
      createdAt: message.createdAt,
      ...(message.attachments ? { attachments: message.attachments } : {}),
    },
  });
}

/**
 * A message and its conversation summary are stored, and its webhook event recorded: what reacts to a
 * stored message once the answer need not wait (the follow-up mails) listens for this.
 */
export async function publishMessageStored(deps: Deps, conversation: Pick<Conversation, 'id' | 'workspaceId'>, message: ChatMessage): Promise<void> {
  await deps.events.publish({ event: 'chat.message.stored', workspaceId: conversation.workspaceId, conversationId: conversation.id, message });
}
