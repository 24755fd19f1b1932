import { afterAll, beforeAll, test } from '@jest/globals';
import { createWorkspace, startTestNode, watchingCommands } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contentAdmin } from '../content/content-helpers.js';
let node: HearthNode;
beforeAll(async () => { node = await startTestNode({ redis: true }); });
afterAll(async () => { await node.stop(); });
test('trace', async () => {
  const ws = await createWorkspace(node.url);
  const admin = contentAdmin(node.url, ws);
  const { id } = await admin.published({ slug: 'rye', title: 'Rye', contentMarkdown: 'Old body' });
  await admin.patch(id, { contentMarkdown: 'x' });
  const lines: string[] = [];
  await watchingCommands(node, (event) => { lines.push(`${event.commandName} ${String(event.command[event.commandName])}\n${(new Error().stack ?? '').split('\n').filter((l) => l.includes('/src/')).slice(0, 6).join('\n')}`); }, () => admin.publish(id));
  console.log(lines.join('\n---\n'));
});
