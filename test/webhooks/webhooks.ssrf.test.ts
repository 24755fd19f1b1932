import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { isBlockedAddress } from '../../src/webhooks/webhooks.target.js';
import { startReceiver } from './receiver.js';

let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  node = await startTestNode({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_RETRY_BASE_MS: '2' } });
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
});

test('loopback, private, link-local, metadata and other non-public addresses are blocked; public unicast is not', () => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
    expect([address, isBlockedAddress(address)]).toEqual([address, true]);
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    expect([address, isBlockedAddress(address)]).toEqual([address, false]);
  }
});

test('with the guard on, a webhook to a private target is refused before any request, and not retried', async () => {
  for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
    const ws = await createWorkspace(node.url);
    const path = `/private-${host.replace(/\W/g, '')}`;
    await workspaceStore(node.deps.db).update(ws.id, { webhookUrl: `http://${host}:${receiver.port}${path}?secret=x` });
    await node.deps.events.publish({ event: 'workspace.updated', workspaceId: ws.id, at: new Date().toISOString() });
    const delivery = await eventually(async () => {
      const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries`, { token: ws.token });
      return res.body.items[0]?.state === 'failed' ? res.body.items[0] : undefined;
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: null, outcome: 'refused', error: expect.stringMatching(/^target refused/) })]);
    expect(delivery.finalReason).toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
    expect(receiver.on(path)).toHaveLength(0);
  }
  await new Promise((r) => setTimeout(r, 200));
  expect(receiver.received).toHaveLength(0);
});
