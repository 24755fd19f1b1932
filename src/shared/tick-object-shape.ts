import { createHook } from 'node:async_hooks';

let kept: object | undefined;

/**
 * Keeps one of `process.nextTick`'s queue entries alive for the life of the process, once per process.
 *
 * Why: Node 20 builds each entry as an object literal with computed keys (`{ [async_id_symbol]: ..., ... }`), and
 * V8 remembers one shape (map) for each of its keyed definitions; a second shape makes that memory megamorphic
 * for good, and from then on every `nextTick` defines its four properties in V8's runtime. Nothing holds those
 * maps but live entries, so a full garbage collection at a moment when the queue is empty frees them and the
 * next entry gets new ones. A bare server rarely collects fully; a node does, and then paid for it on every
 * stream and HTTP step that defers work (about 5 % of a warm content read's CPU). One entry kept keeps the maps.
 *
 * The entry is reachable only as the resource an async hook's `init` receives; the hook is enabled around one
 * `nextTick` and disabled at once.
 */
export function keepTickObjectShape(): void {
  if (kept !== undefined) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') kept ??= resource;
    },
  });
  hook.enable();
  process.nextTick(() => {});
  hook.disable();
}
