/**
 * Domain events, named and shaped as the spec's webhook table. Publishers await `publish`, so a
 * subscriber that persists the event (the webhook outbox) has done so before the request answers.
 */
export interface PostEvent {
  event: 'post.published' | 'post.unpublished';
  workspaceId: string;
  postId: string;
  slug: string;
  title: string;
  publishedAt: string | null;
  at: string;
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

export function isContentEvent(event: DomainEvent): event is ContentEvent {
  return CONTENT_EVENTS.has(event.event);
}

export type EventHandler = (event: DomainEvent) => Promise<void>;

export class EventBus {
  private readonly handlers: EventHandler[] = [];

  subscribe(handler: EventHandler): () => void {
    this.handlers.push(handler);
    return () => {
      const index = this.handlers.indexOf(handler);
      if (index >= 0) this.handlers.splice(index, 1);
    };
  }

  async publish(event: DomainEvent): Promise<void> {
    for (const handler of this.handlers) await handler(event);
  }
}
