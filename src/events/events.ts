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

export type DomainEvent = PostEvent | NavigationEvent | WorkspaceEvent;

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
