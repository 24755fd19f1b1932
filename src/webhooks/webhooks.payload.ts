import type { DomainEvent } from '../events/events.js';
import { isContentEvent } from '../events/events.js';

/** The event's payload fields of the spec's table (and `decisions.md`), without `at` (set when sending). */
export function payloadOf(event: DomainEvent): Record<string, unknown> {
  if (!isContentEvent(event)) return { event: event.event, workspaceId: event.workspaceId, ...event.data };
  switch (event.event) {
    case 'post.published':
    case 'post.unpublished':
      return { event: event.event, workspaceId: event.workspaceId, postId: event.postId, slug: event.slug, title: event.title, publishedAt: event.publishedAt };
    case 'workspace.updated':
      return { event: event.event, workspaceId: event.workspaceId };
    default:
      return { event: event.event, workspaceId: event.workspaceId, navigationId: event.navigationId, key: event.key, name: event.name };
  }
}

/** What a registered endpoint receives: `{type, id, timestamp, workspaceId, data}` (see the OpenAPI `webhooks`). */
export function envelopeOf(event: DomainEvent, webhookId: string): Record<string, unknown> {
  const { event: type, workspaceId, ...data } = payloadOf(event);
  return { type, id: webhookId, timestamp: event.at, workspaceId, data };
}

/**
 * The spec's payload with `at` (the time of sending) as its last field, added to the stored payload's JSON
 * text: a copy of the payload object with one more key costs a burst more than the whole JSON text.
 */
export function withAt(payloadJson: string, now: Date): string {
  return `${payloadJson.slice(0, -1)}${payloadJson === '{}' ? '' : ','}"at":"${now.toISOString()}"}`;
}
