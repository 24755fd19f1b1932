import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, OPERATOR, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { startSmtp } from '../email/smtp.js';
import { startReceiver } from './receiver.js';

// An endpoint failing without a success for WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS (default 72) is
// disabled and the owners are mailed through the outbox; time is moved with the node's clock.

const HOUR = 3_600_000;
const clock = new ManualClock(new Date());
let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  receiver = await startReceiver();
  smtp = await startSmtp();
  node = await startTestNode({ clock, env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100', WEBHOOK_RETRY_BASE_MS: '2', WEBHOOK_TIMEOUT_MS: '1000' } });
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
  await smtp.stop();
});

async function endpoint(ws: WorkspaceFixture, path: string) {
  const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints`, { token: ws.token, body: { url: `http://127.0.0.1:${receiver.port}${path}`, events: ['submission.created'], description: 'CRM sync' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const show = async (ws: WorkspaceFixture, id: string) => (await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${id}`, { token: ws.token })).body;
const submit = (ws: WorkspaceFixture) => request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Grace', email: 'grace@example.com', message: 'Hi' } });

test('a success ends the failing period; failing for 72 h disables the endpoint (not at 71 h) and mails the owners once', async () => {
  const ws = await createWorkspace(node.url);
  const recovering = await endpoint(ws, '/recovering');
  receiver.script('/recovering', [500, 200]);
  const failing = await endpoint(ws, '/failing');
  receiver.script('/failing', [500]);
  const start = clock.now();

  expect((await submit(ws)).status).toBe(201);
  // The first failure starts the period; the recovering endpoint's retry succeeds and ends its own.
  expect((await eventually(async () => ((await show(ws, failing)).failingSince ? show(ws, failing) : undefined))).failingSince).toBe(start.toISOString());
  await eventually(() => receiver.on('/recovering').length === 2);
  await eventually(async () => (await show(ws, recovering)).failingSince === null);

  clock.advance(71 * HOUR);
  const before = receiver.on('/failing').length;
  await submit(ws);
  await eventually(() => receiver.on('/failing').length > before);
  expect(await show(ws, failing)).toMatchObject({ enabled: true, failingSince: start.toISOString(), disabledReason: null });

  clock.advance(HOUR + 60_000);
  await submit(ws);
  const disabled = await eventually(async () => ((await show(ws, failing)).enabled ? undefined : show(ws, failing)));
  expect(disabled.disabledReason).toMatch(/disabled automatically/);
  expect(disabled.disabledAt).toBe(clock.now().toISOString());
  expect((await show(ws, recovering)).enabled).toBe(true);

  const mail = await eventually(() => smtp.mails.find((m) => m.to.includes(OPERATOR.email) && m.raw.includes('webhook endpoint was disabled')), 15_000);
  expect(mail.raw.replace(/=\r?\n/g, '')).toContain(`127.0.0.1:${receiver.port}/failing`);

  // Nothing more goes to it; further failures elsewhere do not mail again.
  await new Promise((r) => setTimeout(r, 500));
  const settled = receiver.on('/failing').length;
  await submit(ws);
  await eventually(() => receiver.on('/recovering').length >= 5);
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.on('/failing')).toHaveLength(settled);
  expect(smtp.mails.filter((m) => m.raw.includes('webhook endpoint was disabled'))).toHaveLength(1);

  // Enabled again by hand: a new period, deliveries flow again.
  const again = await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${failing}`, { method: 'PATCH', token: ws.token, body: { enabled: true } });
  expect(again.body).toMatchObject({ enabled: true, failingSince: null, disabledReason: null });
  receiver.script('/failing', [200]);
  await submit(ws);
  await eventually(() => receiver.on('/failing').length > settled);
}, 30_000);
