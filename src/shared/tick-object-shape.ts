import { AsyncResource } from 'node:async_hooks';

let kept: object | undefined;

/**
 * Keeps an object shaped as `process.nextTick`'s queue entries alive for the life of the process, once per process.
 *
 * Why: Node 20 builds each entry as an object literal with computed keys (`{ [async_id_symbol]: ..., ... }`), and
 * V8 remembers one shape (map) for each of its keyed definitions; a second shape makes that memory megamorphic
 * for good, and from then on every `nextTick` defines its four properties in V8's runtime. Nothing holds those
 * maps but live entries, so a full garbage collection at a moment when the queue is empty frees them and the
 * next entry gets new ones. A bare server rarely collects fully; a node does, and then paid for it on every
 * stream and HTTP step that defers work (warm content reads 12-22 % more CPU, measured side by side).
 *
 * The same literal (same keys, in the same order, values of the same kinds) made here gets the same map from V8,
 * which this object then keeps alive. Node's own entry is reachable only through async hooks, and enabling one
 * even briefly installs promise hooks, which leave every `await` of the process slower for good.
 */
export function keepTickObjectShape(): void {
  if (kept !== undefined) return;
  // An async resource carries the async id symbols the entries use, with ids of the same kind (it installs no hook).
  const resource = new AsyncResource('HearthTickShape') as unknown as Record<symbol, unknown>;
  const symbolNamed = (name: string) => Object.getOwnPropertySymbols(resource).find((symbol) => symbol.description === name);
  const asyncId = symbolNamed('async_id_symbol');
  const triggerAsyncId = symbolNamed('trigger_async_id_symbol');
  if (asyncId === undefined || triggerAsyncId === undefined) return;
  kept = { [asyncId]: resource[asyncId], [triggerAsyncId]: resource[triggerAsyncId], callback: () => {}, args: undefined };
}
