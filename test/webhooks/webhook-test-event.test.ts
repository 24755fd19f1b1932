import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { memberWith } from '../team/support.js';
import { startReceiver } from './receiver.js';

// `POST .../webhook-endpoints/:eid/test`: a signed `webhook.test` to that endpoint only, whatever its event
// filter, listed in its log; owners only; another workspace's endpoint is 404.

let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
});

test('an owner sends a test event: the endpoint alone receives it signed with its secret, and its log lists it; editors 403, other tenants 404', async () => {
  const ws = await createWorkspace(node.url);
  const base = `/admin/workspaces/${ws.id}/webhook-endpoints`;
  const hook = await request(node.url, base, { token: ws.token, body: { url: `http://127.0.0.1:${receiver.port}/test-event`, events: ['submission.created'] } });
  const other = await request(node.url, base, { token: ws.token, body: { url: `http://127.0.0.1:${receiver.port}/other`, events: ['*'] } });
  expect([hook.status, other.status]).toEqual([201, 201]);

  const sent = await request(node.url, `${base}/${hook.body.id}/test`, { method: 'POST', token: ws.token });
  expect(sent.status).toBe(202);
  expect(sent.body).toMatchObject({ event: 'webhook.test', endpointId: hook.body.id, state: 'scheduled', redeliveryOf: null });
  const got = await eventually(() => receiver.on('/test-event')[0]);
  const payload = new Webhook(hook.body.secret as string).verify(got.raw, got.headers as Record<string, string>) as Record<string, unknown>;
  expect(payload).toEqual({ type: 'webhook.test', id: sent.body.webhookId, timestamp: expect.any(String), workspaceId: ws.id, data: { endpointId: hook.body.id } });
  await eventually(async () => (await request(node.url, `${base}/${hook.body.id}/deliveries`, { token: ws.token })).body.items[0]?.state === 'delivered');
  expect(receiver.on('/other')).toEqual([]);

  const editor = await memberWith(node.url, ws, 'editor', 'Eda');
  expect((await request(node.url, `${base}/${hook.body.id}/test`, { method: 'POST', token: editor.token })).status).toBe(403);
  const stranger = await createWorkspace(node.url);
  expect((await request(node.url, `/admin/workspaces/${stranger.id}/webhook-endpoints/${hook.body.id}/test`, { method: 'POST', token: stranger.token })).status).toBe(404);
  expect((await request(node.url, `${base}/0123456789abcdef01234567/test`, { method: 'POST', token: ws.token })).status).toBe(404);
  expect(receiver.on('/test-event')).toHaveLength(1);
});
