/**
 * The one typed event map of the realtime surface, imported by the server and by the widget bundle.
 * Event names are the constants below, never loose strings.
 */
export type ConversationStatus = 'OPEN' | 'CLOSED';

/** A file sent in the chat: an image (re-encoded, no metadata) or a PDF. */
export interface ChatAttachment {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** A signed, unguessable URL: what an `<img>` or a link opens (see `livechat/attachments.service.ts`). */
  url: string;
  width?: number;
  height?: number;
}

export interface ChatMessage {
  id: string;
  sender: 'VISITOR' | 'AGENT';
  body: string;
  createdAt: string;
  /** Only on messages that carry files (their body may then be empty); absent on every other message. */
  attachments?: ChatAttachment[];
}

export interface MessageCreated {
  conversationId: string;
  message: ChatMessage;
  /** Display name of the team member who wrote an AGENT message (absent for visitor messages and unknown authors). */
  agentName?: string;
}

/** Someone is typing (`typing: true`, repeated at most every few seconds while it lasts) or stopped. Never stored. */
export interface TypingChanged {
  conversationId: string;
  sender: 'VISITOR' | 'AGENT';
  typing: boolean;
  /** Who types, for AGENT typing: the member's display name. */
  agentName?: string;
  userId?: string;
}

/** A side's read cursor moved: `reader` has read every message of the other side up to `messageId` / `createdAt`. */
export interface ReadChanged {
  conversationId: string;
  reader: 'VISITOR' | 'AGENT';
  messageId: string;
  createdAt: string;
}

export interface Assignee {
  userId: string;
  name: string;
}

export interface AssignmentChanged {
  conversationId: string;
  assignee: Assignee | null;
}

/** What a client sends while typing: the widget's conversation is its socket's; an agent names it. */
export interface TypingInput {
  typing: boolean;
  conversationId?: string;
}

export interface ConversationUpdated {
  conversationId: string;
  status: ConversationStatus;
}

export const NAMESPACES = { widget: '/widget', agent: '/agent' } as const;

/**
 * How the widget and the team app connect: by WebSocket first, one connection that stays on the node it
 * reached, so a load balancer needs no sticky sessions; by HTTP long-polling only where WebSockets are
 * blocked (its requests must then reach one node: the widget's own polling of messages covers the rest).
 * Socket.IO's default, polling first, sends a handshake's next request to whichever node comes next.
 */
export const CLIENT_TRANSPORTS: { transports: ('websocket' | 'polling')[]; tryAllTransports: boolean } = { transports: ['websocket', 'polling'], tryAllTransports: true };

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
  'typing.changed': (payload: TypingChanged) => void;
  'conversation.read': (payload: ReadChanged) => void;
}

export interface AgentServerEvents {
  'conversation.created': (payload: { conversationId: string }) => void;
  'conversation.updated': (payload: ConversationUpdated) => void;
  'message.created': (payload: MessageCreated) => void;
  'typing.changed': (payload: TypingChanged) => void;
  'conversation.read': (payload: ReadChanged) => void;
  'conversation.assigned': (payload: AssignmentChanged) => void;
  /** A visitor sent the contact form: the team app's inbox shows it at once. */
  'submission.created': (payload: SubmissionCreated) => void;
  /** A visitor asked for an appointment: the team app's pending queue shows it at once. */
  'appointment.requested': (payload: AppointmentRequested) => void;
}

export interface SubmissionCreated {
  submissionId: string;
  name: string;
  subject: string | null;
  createdAt: string;
}

export interface AppointmentRequested {
  appointmentId: string;
  visitorName: string;
  requestedAt: string;
}

/**
 * What the server answers a client event sent with an acknowledgement: done, or refused with the body of an
 * HTTP error (`code`, `message`, and `issues` per failing field when the payload is invalid). An event
 * sent without one is handled alike; a refused one is dropped.
 */
export type EventAnswer = { ok: true } | { ok: false; code: string; message: string; issues?: { path: string; message: string }[] };

export interface ClientEvents {
  typing: (payload: TypingInput, ack?: (answer: EventAnswer) => void) => void;
}

/** Every event a client may send; any other name is refused (`unknown_event`). */
export const CLIENT_EVENTS = ['typing'] as const satisfies readonly (keyof ClientEvents)[];

/** Room names come from here only. */
export const rooms = {
  conversation: (conversationId: string) => `conversation:${conversationId}`,
  workspaceAgents: (workspaceId: string) => `workspace-agents:${workspaceId}`,
  /** The consoles of the workspace's team members only (not operators outside it): what `online` counts. */
  workspaceTeam: (workspaceId: string) => `workspace-team:${workspaceId}`,
  /** The agent-console sockets opened with one admin session: ended together when it is revoked. */
  session: (sessionId: string) => `session:${sessionId}`,
  /** One user's agent-console sockets of one workspace: ended together when the membership ends. */
  member: (workspaceId: string, userId: string) => `member:${workspaceId}:${userId}`,
};
