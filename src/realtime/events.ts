/**
 * The one typed event map of the realtime surface, imported by the server and by the widget bundle.
 * Event names are the constants below, never loose strings.
 */
export type ConversationStatus = 'OPEN' | 'CLOSED';

export interface ChatMessage {
  id: string;
  sender: 'VISITOR' | 'AGENT';
  body: string;
  createdAt: string;
}

export interface MessageCreated {
  conversationId: string;
  message: ChatMessage;
}

export interface ConversationUpdated {
  conversationId: string;
  status: ConversationStatus;
}

export const NAMESPACES = { widget: '/widget', agent: '/agent' } as const;

/** Handshake `auth` of a visitor socket on `/widget`. */
export interface WidgetHandshake {
  conversationToken: string;
}

/** Handshake `auth` of an agent console socket on `/agent`. */
export interface AgentHandshake {
  token: string;
  workspaceId: string;
}

export interface WidgetServerEvents {
  'message.created': (payload: MessageCreated) => void;
  'conversation.updated': (payload: ConversationUpdated) => void;
}

export interface AgentServerEvents {
  'conversation.created': (payload: { conversationId: string }) => void;
  'conversation.updated': (payload: ConversationUpdated) => void;
  'message.created': (payload: MessageCreated) => void;
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ClientEvents {}

/** Room names come from here only. */
export const rooms = {
  conversation: (conversationId: string) => `conversation:${conversationId}`,
  workspaceAgents: (workspaceId: string) => `workspace-agents:${workspaceId}`,
  /** The agent-console sockets opened with one admin session: ended together when it is revoked. */
  session: (sessionId: string) => `session:${sessionId}`,
};
