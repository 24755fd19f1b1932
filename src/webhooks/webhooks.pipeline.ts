import type { Deps } from '../deps.js';
import type { DomainEvent } from '../events/events.js';
import type { Delivery } from './delivery.js';

/** An event waiting for the next group insert, with the publisher's promise to settle once it is stored. */
export interface Queued {
  event: DomainEvent;
  done: (delivery: Delivery | null) => void;
  fail: (error: unknown) => void;
}

/** A workspace's running dispatcher, as the recording side hands it work. */
export interface ActiveDispatcher {
  /** Deliveries just stored, in event order. */
  offer(deliveries: Delivery[]): void;
  /** Decide again; `more`: pending deliveries may be stored that it was not handed. */
  wake(more?: boolean): void;
}

/**
 * What one node keeps of the webhook pipeline between events, shared by the recording
 * (`webhooks.record.ts`) and the dispatch (`webhooks.dispatch.ts`): `registerWebhookJobs` makes one per
 * node, so two nodes in one process (as tests run them) never hand work to each other's dispatchers.
 */
export class WebhookPipeline {
  /** Dispatchers of this node, by workspace: new deliveries are handed to their workspace's dispatcher. */
  readonly active = new Map<string, ActiveDispatcher>();
  readonly queued: Queued[] = [];
  /** A group insert is running: events published meanwhile queue for the next one. */
  writing = false;
  /** Events per workspace queued or being stored on this node: their dispatcher waits for them instead of stopping. */
  readonly recording = new Map<string, number>();

  constructor(readonly deps: Deps) {}
}
