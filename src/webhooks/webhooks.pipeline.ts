import type { Deps } from '../deps.js';
import type { DomainEvent } from '../events/events.js';
import type { Delivery } from './delivery.js';
import { settledWithin } from '../shared/settled-within.js';

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
  /** The node is closing: start nothing more, record the attempts in flight, then end. */
  finish(): void;
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
  /** The dispatches running on this node (`dispatchWorkspace`), so a closing node can wait for them. */
  readonly dispatches = new Set<Promise<unknown>>();
  /** The node is closing: no dispatch starts, and the running ones end once what they sent is recorded. */
  closing = false;

  constructor(readonly deps: Deps) {}

  /**
   * Before a node closes: its dispatchers start nothing more, and the attempts in flight are answered and
   * recorded, within `withinMs`. Without it the database closed under them: their outcomes were lost, and the
   * next holder sent those deliveries a second time. What was not started stays pending for another node.
   */
  async finish(withinMs: number): Promise<void> {
    this.closing = true;
    for (const dispatcher of this.active.values()) dispatcher.finish();
    await settledWithin(Promise.allSettled([...this.dispatches]), withinMs);
  }
}
