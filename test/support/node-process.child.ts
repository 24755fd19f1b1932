/** The child side of `startNodeProcess`: one test node, publishing events when the parent asks. */
import { startTestNode, type TestNodeOptions } from './harness.js';
import type { DomainEvent } from '../../src/events/events.js';

const node = await startTestNode(JSON.parse(process.env.HEARTH_NODE_PROCESS ?? '{}') as TestNodeOptions);

process.on('message', async ({ count, event }: { count: number; event: Record<string, unknown> }) => {
  const at = new Date().toISOString();
  await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const filled = Object.fromEntries(Object.entries(event).map(([name, value]) => [name, typeof value === 'string' ? value.replaceAll('{i}', String(i)) : value]));
      return node.deps.events.publish({ ...filled, at } as unknown as DomainEvent);
    }),
  );
  process.send!({ published: count });
});
process.on('disconnect', () => process.exit(0));
// As `main` does on SIGTERM: the node's shutdown, then exit.
process.on('SIGTERM', () => void node.stop().finally(() => process.exit(0)));
process.send!({ url: node.url });
