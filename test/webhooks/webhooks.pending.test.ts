import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { dispatchWorkspace } from '../../src/webhooks/webhooks.dispatch.js';
import { WebhookPipeline } from '../../src/webhooks/webhooks.pipeline.js';
import { startReceiver, type Behaviour } from './receiver.js';

let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const commands: CommandStartedEvent[] = [];
let pathCounter = 0;

/** The test engine's URI with the driver's command monitoring on, so the test sees what the node sends. */
function monitored(uri: string | undefined): string {
  if (!uri) throw new Error('TEST_MONGODB_URI is not set');
  const scheme = uri.indexOf('://') + 3;
  if (uri.indexOf('?', scheme) >= 0) return `${uri}&monitorCommands=true`;
  return uri.indexOf('/', scheme) >= 0 ? `${uri}?monitorCommands=true` : `${uri}/?monitorCommands=true`;
}

beforeAll(async () => {
  receiver = await startReceiver();
  node = await startTestNode({ env: { MONGODB_URI: monitored(process.env.TEST_MONGODB_URI), WEBHOOK_TIMEOUT_MS: '1500' } });
  node.deps.db.getClient().on('commandStarted', (event) => commands.push(event));
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
});

async function hookedWorkspace(behaviours: Behaviour[]) {
  const ws = await createWorkspace(node.url);
  const path = `/pending-${++pathCounter}`;
  receiver.script(path, behaviours);
  await workspaceStore(node.deps.db).update(ws.id, { webhookUrl: receiver.url(path) });
  return { ws, path };
}

const burst = (ws: WorkspaceFixture, count: number) =>
  Promise.all(
    Array.from({ length: count }, (_, i) =>
      node.deps.events.publish({ event: 'post.published', workspaceId: ws.id, postId: `post${i + 1}`, slug: `post-${i + 1}`, title: `Post ${i + 1}`, publishedAt: null, at: new Date().toISOString() }),
    ),
  );

const on = (collection: string, name: string) => commands.filter((c) => c.commandName === name && c.command[name] === collection);

test('a burst waits in a few pending documents (one per stored group, not one per delivery), all listed as pending', async () => {
  // The receiver holds the first attempts, so nothing is recorded and every delivery stays pending.
  const { ws, path } = await hookedWorkspace(['hang']);
  await burst(ws, 150);
  await eventually(() => receiver.on(path).length >= 8);
  const documents = await node.deps.db.collection('webhook_pending').countDocuments({ workspaceId: new Types.ObjectId(ws.id) });
  expect(documents).toBeGreaterThanOrEqual(1);
  expect(documents).toBeLessThanOrEqual(3);
  const listed = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries?limit=100`, { token: ws.token });
  expect(listed.body.items).toHaveLength(100);
  expect(listed.body.items.every((d: any) => d.state === 'pending' && d.url.includes('secret=***'))).toBe(true);
  const older = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries?limit=100&before=${listed.body.nextBefore}`, { token: ws.token });
  expect(older.body.items).toHaveLength(50);
  expect(new Set([...listed.body.items, ...older.body.items].map((d: any) => d.id)).size).toBe(150);
});

test("a burst's outcomes are recorded once the node has stored all its events: one read of the pending collection, records after the last stored group", async () => {
  const { ws, path } = await hookedWorkspace([200]);
  const from = commands.length;
  await burst(ws, 300);
  await eventually(async () => (await node.deps.db.collection('webhook_deliveries').countDocuments({ workspaceId: new Types.ObjectId(ws.id) })) === 300, 15_000);
  expect(new Set(receiver.on(path).map((hit) => hit.body.postId)).size).toBe(300);
  const since = (list: CommandStartedEvent[]) => list.filter((c) => commands.indexOf(c) >= from);
  // The holder was handed what this node stored: it looked at the pending collection once, when it started.
  const reads = since(on('webhook_pending', 'find')).filter((c) => String(c.command.filter?.workspaceId) === ws.id);
  expect(reads.filter((c) => c.command.limit !== 1)).toHaveLength(1);
  const ofWorkspace = (c: CommandStartedEvent) => String(c.command.documents?.[0]?.workspaceId) === ws.id;
  const stored = since(on('webhook_pending', 'insert')).filter(ofWorkspace);
  const records = since(on('webhook_deliveries', 'insert')).filter(ofWorkspace);
  // Records wait for the last stored group (and then go in at most twice: those finished, then those in flight).
  expect(records[0].requestId).toBeGreaterThan(stored.at(-1)!.requestId);
  expect(records.length).toBeLessThanOrEqual(2);
});

test('pending deliveries stored one document each (by earlier versions) are still sent, in event order, and recorded', async () => {
  const { ws, path } = await hookedWorkspace([200]);
  const sealedUrl = node.deps.secretBox.seal(receiver.url(path));
  const now = new Date();
  const ids = Array.from({ length: 3 }, () => new Types.ObjectId());
  await node.deps.db.collection('webhook_pending').insertMany(
    ids.map((id, n) => ({
      _id: id,
      workspaceId: new Types.ObjectId(ws.id),
      event: 'post.published',
      webhookId: `msg_old${n}`,
      payloadJson: JSON.stringify({ event: 'post.published', workspaceId: ws.id, postId: `old${n}`, slug: `old-${n}`, title: `Old ${n}`, publishedAt: null }),
      url: 'masked',
      sealedUrl,
      redeliveryOf: null,
      endpointId: null,
      batch: 'old-batch',
      createdAt: now,
      updatedAt: now,
    })),
  );
  // A dispatch as another node's job would make it: the node's own pipeline has nothing of this workspace.
  await dispatchWorkspace(new WebhookPipeline(node.deps), ws.id, async () => undefined);
  await eventually(() => receiver.on(path).length === 3);
  expect(receiver.on(path).map((hit) => hit.body.postId)).toEqual(['old0', 'old1', 'old2']);
  const records = await eventually(async () => {
    const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries`, { token: ws.token });
    return res.body.items.length === 3 && res.body.items.every((d: any) => d.state === 'delivered') ? res.body.items : undefined;
  });
  expect(records.map((d: any) => d.id)).toEqual(ids.map((id) => id.toHexString()).reverse());
  expect(await node.deps.db.collection('webhook_pending').countDocuments({ workspaceId: new Types.ObjectId(ws.id) })).toBe(0);
});
