import type { AssignmentChanged, ChatAttachment, ChatMessage, ConversationStatus, ReadChanged } from '../realtime/events.js';

/** Domain events, named and shaped as the spec's webhook table. */
export interface PostEvent {
  event: 'post.published' | 'post.unpublished';
  workspaceId: string;
  postId: string;
  slug: string;
  title: string;
  publishedAt: string | null;
  at: string;
  /**
   * The post's translation group: which cached answers show it (its page in every locale). Not part of the
   * webhook payload, which names the spec's fields; absent, every cached answer of the workspace goes.
   */
  translationGroupId?: string;
}

export interface NavigationEvent {
  event: 'navigation.created' | 'navigation.updated' | 'navigation.deleted' | 'navigation.items.replaced';
  workspaceId: string;
  navigationId: string;
  key: string;
  name: string;
  at: string;
}

export interface WorkspaceEvent {
  event: 'workspace.updated';
  workspaceId: string;
  at: string;
}

/** The spec's content events: the only ones the workspace's `webhookUrl` receives, and the ones that change published content. */
export type ContentEvent = PostEvent | NavigationEvent | WorkspaceEvent;

/**
 * Business events (not in the spec's table): sent only to the workspace's registered webhook endpoints.
 * `data` is the payload's `data` object as documented in the OpenAPI `webhooks` section.
 */
export interface SubmissionData {
  submissionId: string;
  name: string;
  email: string;
  subject: string | null;
  message: string;
  phone: string | null;
  source: string | null;
  createdAt: string;
}

export interface AppointmentData {
  appointmentId: string;
  status: string;
  requestedAt: string;
  scheduledAt: string | null;
  previousScheduledAt: string | null;
  durationMinutes: number;
  timezone: string;
  visitorName: string;
  visitorEmail: string;
  declineReason: string | null;
  /** Who made the change: the visitor (booking, manage link, cancellation link) or the team. */
  by: 'visitor' | 'team';
}

export interface ConversationData {
  conversationId: string;
  status: 'OPEN' | 'CLOSED';
  visitorName: string | null;
  visitorEmail: string | null;
  pageUrl: string | null;
  locale: string | null;
  createdAt: string;
}

export interface MessageData {
  conversationId: string;
  messageId: string;
  sender: 'VISITOR';
  body: string;
  createdAt: string;
  /** Only when the message carries files. */
  attachments?: ChatAttachment[];
}

interface Business<E extends string, D> {
  event: E;
  workspaceId: string;
  at: string;
  data: D;
}

export type BusinessEvent =
  | Business<'submission.created', SubmissionData>
  | Business<'appointment.requested' | 'appointment.confirmed' | 'appointment.declined' | 'appointment.cancelled' | 'appointment.rescheduled', AppointmentData>
  | Business<'conversation.created' | 'conversation.closed', ConversationData>
  | Business<'message.created', MessageData>;

export type DomainEvent = ContentEvent | BusinessEvent;

export const CONTENT_EVENT_NAMES = [
  'post.published',
  'post.unpublished',
  'navigation.created',
  'navigation.updated',
  'navigation.deleted',
  'navigation.items.replaced',
  'workspace.updated',
] as const satisfies readonly ContentEvent['event'][];

export const BUSINESS_EVENT_NAMES = [
  'submission.created',
  'appointment.requested',
  'appointment.confirmed',
  'appointment.declined',
  'appointment.cancelled',
  'appointment.rescheduled',
  'conversation.created',
  'conversation.closed',
  'message.created',
] as const satisfies readonly BusinessEvent['event'][];

/** Every event name the bus carries (the webhook endpoints' catalogue). */
export const EVENT_NAMES = [...CONTENT_EVENT_NAMES, ...BUSINESS_EVENT_NAMES] as const;
export type EventName = (typeof EVENT_NAMES)[number];

const CONTENT_EVENTS = new Set<string>(CONTENT_EVENT_NAMES);

export function isContentEvent(event: Fact): event is ContentEvent {
  return CONTENT_EVENTS.has(event.event);
}

/**
 * What changed in a live-chat conversation, for the consoles and widgets that show it (`livechat/live-push.ts`).
 * Not webhook events: no receiver is sent these.
 */
export type LiveChatFact =
  | { event: 'chat.message'; workspaceId: string; conversationId: string; message: ChatMessage; agentName?: string }
  /** The same message once its conversation summary is written too (which fills the visitor's name and e-mail). */
  | { event: 'chat.message.stored'; workspaceId: string; conversationId: string; message: ChatMessage }
  | { event: 'chat.read'; workspaceId: string; read: ReadChanged }
  | { event: 'chat.assigned'; workspaceId: string; assignment: AssignmentChanged }
  | { event: 'chat.status'; workspaceId: string; conversationId: string; status: ConversationStatus }
  | { event: 'chat.opened'; workspaceId: string; conversationId: string };

/** Everything services state on the bus: the webhook table's events and the live-chat facts. */
export type Fact = DomainEvent | LiveChatFact;

const WEBHOOK_EVENTS = new Set<string>(EVENT_NAMES);

/** A fact of the webhook table (what the webhook recorder stores deliveries for). */
export function isDomainEvent(fact: Fact): fact is DomainEvent {
  return WEBHOOK_EVENTS.has(fact.event);
}

export type FactHandler = (fact: Fact) => Promise<void> | void;
export type EventHandler = (event: DomainEvent) => Promise<void> | void;

/**
 * Services publish facts and return; listeners react (`app/listeners.ts` registers them, in order).
 * Publishers await `publish`: every listener has done its part (a socket push, a stored delivery) before
 * the request answers.
 */
export class EventBus {
  private readonly handlers: FactHandler[] = [];

  /** The webhook table's events only (the live-chat facts pass it by). */
  subscribe(handler: EventHandler): () => void {
    return this.listen((fact) => (isDomainEvent(fact) ? handler(fact) : undefined));
  }

  /** Every fact, in the order listeners were added. */
  listen(handler: FactHandler): () => void {
    this.handlers.push(handler);
    return () => {
      const index = this.handlers.indexOf(handler);
      if (index >= 0) this.handlers.splice(index, 1);
    };
  }

  async publish(fact: Fact): Promise<void> {
    for (const handler of this.handlers) await handler(fact);
  }
}
