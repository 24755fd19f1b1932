import type { Deps } from '../deps.js';
import type { Fact } from '../events/events.js';
import { rooms, type TypingChanged } from '../realtime/events.js';
import { agentNs, widgetNs } from './namespaces.js';

/**
 * The live-chat sockets' listener: each fact a live-chat service publishes reaches the consoles and widgets
 * that show it, and new submissions and booking requests reach the consoles. Pushes go through the adapter: with Redis they reach the sockets of every node.
 */
export function pushLiveChat(deps: Deps, fact: Fact): void {
  switch (fact.event) {
    case 'chat.message': {
      // To the workspace's consoles and every socket of the visitor: the visitor's own messages reach their
      // other tabs and devices (the sending tab drops the copy by id).
      const { conversationId, message, agentName } = fact;
      const payload = agentName ? { conversationId, message, agentName } : { conversationId, message };
      widgetNs(deps).to(rooms.conversation(conversationId)).emit('message.created', payload);
      agentNs(deps).to(rooms.workspaceAgents(fact.workspaceId)).emit('message.created', payload);
      return;
    }
    case 'chat.read':
      widgetNs(deps).to(rooms.conversation(fact.read.conversationId)).emit('conversation.read', fact.read);
      agentNs(deps).to(rooms.workspaceAgents(fact.workspaceId)).emit('conversation.read', fact.read);
      return;
    case 'chat.assigned':
      agentNs(deps).to(rooms.workspaceAgents(fact.workspaceId)).emit('conversation.assigned', fact.assignment);
      return;
    case 'chat.status': {
      const payload = { conversationId: fact.conversationId, status: fact.status };
      widgetNs(deps).to(rooms.conversation(fact.conversationId)).emit('conversation.updated', payload);
      agentNs(deps).to(rooms.workspaceAgents(fact.workspaceId)).emit('conversation.updated', payload);
      return;
    }
    case 'chat.opened':
      agentNs(deps).to(rooms.workspaceAgents(fact.workspaceId)).emit('conversation.created', { conversationId: fact.conversationId });
      return;
    // The team app's other inboxes ride the same consoles' sockets.
    case 'submission.created': {
      const { submissionId, name, subject, createdAt } = fact.data;
      agentNs(deps).to(rooms.workspaceAgents(fact.workspaceId)).emit('submission.created', { submissionId, name, subject, createdAt });
      return;
    }
    case 'appointment.requested': {
      const { appointmentId, visitorName, requestedAt } = fact.data;
      agentNs(deps).to(rooms.workspaceAgents(fact.workspaceId)).emit('appointment.requested', { appointmentId, visitorName, requestedAt });
      return;
    }
  }
}

/**
 * Typing is never stored and never leaves the socket layer, which relays it itself: visitor typing goes to
 * the team, agent typing to the visitor and to the other agents.
 */
export function relayTyping(deps: Deps, workspaceId: string, payload: TypingChanged): void {
  if (payload.sender === 'AGENT') widgetNs(deps).to(rooms.conversation(payload.conversationId)).emit('typing.changed', payload);
  agentNs(deps).to(rooms.workspaceAgents(workspaceId)).emit('typing.changed', payload);
}
