import type { Deps } from '../deps.js';
import type { DomainEvent } from '../events/events.js';
import type { Delivery } from './delivery.js';

/** What a node keeps of the webhook pipeline between events: shared by the recording and the dispatch. */

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

export interface NodeState {
  /** Dispatchers of this node, by workspace: new deliveries are handed to their workspace's dispatcher. */
  active: Map<string, ActiveDispatcher>;
  queued: Queued[];
  writing: boolean;
  /** Events per workspace queued or being stored on this node: their dispatcher waits for them instead of stopping. */
  recording: Map<string, number>;
}

const nodes = new WeakMap<Deps, NodeState>();

export function stateOf(deps: Deps): NodeState {
  let state = nodes.get(deps);
  if (!state) nodes.set(deps, (state = { active: new Map(), queued: [], writing: false, recording: new Map() }));
  return state;
}
