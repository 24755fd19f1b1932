import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { Webhook } from 'standardwebhooks';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { startSmtp } from '../email/smtp.js';
import { book, configure, everyDay, staff } from '../appointments/helpers.js';
import { activateChat, startChat } from '../livechat/support.js';
import { startReceiver, type Received } from './receiver.js';

// Registered endpoints receive every business event, once each, signed the Standard Webhooks way, in
// event order (one attempt in flight per workspace here, so arrival order is event order); the spec's
// `webhookUrl` keeps its content events only. Events come from the real services over HTTP.

let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let pathCounter = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  smtp = await startSmtp();
  node = await startTestNode({
    env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100', WEBHOOK_RETRY_BASE_MS: '2', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONCURRENCY_PER_WORKSPACE: '1' },
  });
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
  await smtp.stop();
});

const HOUR = 3_600_000;
const slot = (hoursAhead: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hoursAhead * HOUR).toISOString();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function endpoint(ws: WorkspaceFixture, events: string[] = ['*']) {
  const path = `/endpoint-${++pathCounter}`;
  const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints`, { token: ws.token, body: { url: `http://127.0.0.1:${receiver.port}${path}`, events } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, secret: res.body.secret as string, path };
}

/** Verifies with the `standardwebhooks` package, the way a receiver would; throws on a bad signature. */
const verify = (secret: string, got: Received) => new Webhook(secret).verify(got.raw, got.headers as Record<string, string>) as Record<string, any>;

const submit = (ws: WorkspaceFixture, message = 'Hello there') =>
  request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Grace', email: 'grace@example.com', message, subject: 'Hi' } });

async function manageToken(email: string) {
  const unfold = (raw: string) => raw.replace(/=\r?\n/g, '');
  const mail = await eventually(() => smtp.mails.find((m) => m.to.includes(email) && unfold(m.raw).includes('/appointments/manage/')), 15_000);
  const token = /\/appointments\/manage\/(mt_[A-Za-z0-9_-]+)/.exec((await simpleParser(mail.raw)).text ?? '')?.[1];
  expect(token).toBeDefined();
  return token!;
}

test('every event type reaches a "*" endpoint once, signed, in event order; the spec URL gets its content events only', async () => {
  const ws = await createWorkspace(node.url);
  const all = await endpoint(ws);
  const specPath = `/spec-${++pathCounter}`;
  await workspaceStore(node.deps.db).update(ws.id, { webhookUrl: receiver.url(specPath) });
  const expected: string[] = [];
  const content = (event: string, extra: Record<string, unknown>) => {
    expected.push(event);
    return node.deps.events.publish({ event, workspaceId: ws.id, at: new Date().toISOString(), ...extra } as never);
  };

  // Content events (their publishers are covered elsewhere), then the business events from the real services.
  await content('post.published', { postId: 'p1', slug: 'hello', title: 'Hello', publishedAt: '2025-01-02T03:04:05.000Z' });
  await content('post.unpublished', { postId: 'p1', slug: 'hello', title: 'Hello', publishedAt: null });
  for (const event of ['navigation.created', 'navigation.updated', 'navigation.items.replaced', 'navigation.deleted']) await content(event, { navigationId: 'n1', key: 'main', name: 'Main' });
  expect((await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { name: 'Renamed' } })).status).toBe(200);
  expected.push('workspace.updated');

  expect((await submit(ws)).status).toBe(201);
  expected.push('submission.created');

  await configure(node.url, ws, { leadTimeHours: 0, bookingWindowDays: 7, businessHours: everyDay([['00:00', '24:00']]) });
  const kept = await book(node.url, ws, slot(30), { visitorEmail: 'kept@visitor.test' });
  expect((await staff(node.url, ws, `/${kept.id}/confirm`)).status).toBe(200);
  const declined = await book(node.url, ws, slot(31));
  expect((await staff(node.url, ws, `/${declined.id}/decline`, { reason: 'Closed' })).status).toBe(200);
  const dropped = await book(node.url, ws, slot(32));
  expect((await request(node.url, `/external/appointments/requests/${dropped.cancellationToken}/cancel`, { method: 'POST' })).status).toBe(200);
  const token = await manageToken('kept@visitor.test');
  expect((await request(node.url, `/external/appointments/manage/${token}/reschedule`, { body: { requestedAt: slot(40) } })).status).toBe(200);
  expect((await request(node.url, `/external/appointments/manage/${token}/cancel`, { body: { reason: 'Ill' } })).status).toBe(200);
  expected.push(
    'appointment.requested',
    'appointment.confirmed',
    'appointment.requested',
    'appointment.declined',
    'appointment.requested',
    'appointment.cancelled',
    'appointment.rescheduled',
    'appointment.cancelled',
  );

  const publishableKey = await activateChat(node.url, ws);
  const chat = await startChat(node.url, publishableKey, { pageUrl: 'https://site.test/pricing' });
  expect(chat.status).toBe(201);
  const { conversationId, conversationToken } = chat.body;
  const said = await request(node.url, `/external/live-chat/conversations/${conversationToken}/messages`, { body: { body: 'Is anyone there?' } });
  expect(said.status).toBe(201);
  // The team's reply is no business event; a resumed conversation is not a new one.
  expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations/${conversationId}/messages`, { token: ws.token, body: { body: 'Yes!' } })).status).toBe(201);
  expect((await startChat(node.url, publishableKey, { conversationToken })).body.resumed).toBe(true);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations/${conversationId}/close`, { token: ws.token, body: {} })).status).toBe(200);
  expected.push('conversation.created', 'message.created', 'conversation.closed');

  const got = await eventually(() => (receiver.on(all.path).length >= expected.length ? receiver.on(all.path) : undefined), 15_000);
  await pause(300);
  expect(receiver.on(all.path).map((r) => r.body.type)).toEqual(expected);
  expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(expected.length);
  for (const received of got) {
    const payload = verify(all.secret, received);
    expect(Object.keys(payload).sort()).toEqual(['data', 'id', 'timestamp', 'type', 'workspaceId']);
    expect(payload).toMatchObject({ id: received.headers['webhook-id'], workspaceId: ws.id });
    expect(received.query.toString()).toBe('');
    // Independently of the package: HMAC-SHA256 keyed with the decoded secret.
    const mac = createHmac('sha256', Buffer.from(all.secret.slice(6), 'base64')).update(`${received.headers['webhook-id']}.${received.headers['webhook-timestamp']}.${received.raw}`).digest('base64');
    expect(received.headers['webhook-signature']).toBe(`v1,${mac}`);
  }
  const byType = (type: string) => got.filter((r) => r.body.type === type).map((r) => r.body.data);
  expect(byType('post.published')[0]).toEqual({ postId: 'p1', slug: 'hello', title: 'Hello', publishedAt: '2025-01-02T03:04:05.000Z' });
  expect(byType('submission.created')[0]).toMatchObject({ name: 'Grace', email: 'grace@example.com', subject: 'Hi', message: 'Hello there', phone: null });
  expect(byType('appointment.confirmed')[0]).toMatchObject({ appointmentId: kept.id, status: 'CONFIRMED', scheduledAt: slot(30), by: 'team' });
  expect(byType('appointment.declined')[0]).toMatchObject({ appointmentId: declined.id, status: 'REJECTED', declineReason: 'Closed' });
  expect(byType('appointment.rescheduled')[0]).toMatchObject({ appointmentId: kept.id, scheduledAt: slot(40), previousScheduledAt: slot(30), by: 'visitor' });
  expect(byType('appointment.cancelled')).toEqual([
    expect.objectContaining({ appointmentId: dropped.id, status: 'CANCELLED', by: 'visitor' }),
    expect.objectContaining({ appointmentId: kept.id, status: 'CANCELLED', by: 'visitor' }),
  ]);
  expect(byType('conversation.created')[0]).toMatchObject({ conversationId, status: 'OPEN', pageUrl: 'https://site.test/pricing' });
  expect(byType('message.created')[0]).toMatchObject({ conversationId, messageId: said.body.id, sender: 'VISITOR', body: 'Is anyone there?' });
  expect(byType('conversation.closed')[0]).toMatchObject({ conversationId, status: 'CLOSED' });

  // The spec's URL: the seven content events, in the spec's format and with its `?secret=`; nothing else.
  const spec = await eventually(() => (receiver.on(specPath).length >= 7 ? receiver.on(specPath) : undefined));
  expect(spec.map((r) => r.body.event)).toEqual(expected.slice(0, 7));
  expect(spec.every((r) => r.query.get('secret') === 's3cret' && r.body.type === undefined && typeof r.body.at === 'string')).toBe(true);
  const log = (await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${all.id}/deliveries?limit=100`, { token: ws.token })).body.items;
  expect(log.map((d: { event: string }) => d.event).reverse()).toEqual(expected);
  expect(log.every((d: { endpointId: string; state: string }) => d.endpointId === all.id && d.state === 'delivered')).toBe(true);
}, 60_000);

test('endpoints get only the events they subscribed to; a disabled one gets nothing; a workspace without endpoints stores nothing', async () => {
  const ws = await createWorkspace(node.url);
  const forms = await endpoint(ws, ['submission.created']);
  const every = await endpoint(ws, ['*']);
  const off = await endpoint(ws, ['*']);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${off.id}`, { method: 'PATCH', token: ws.token, body: { enabled: false } })).status).toBe(200);
  expect((await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { name: 'Again' } })).status).toBe(200);
  expect((await submit(ws)).status).toBe(201);
  await eventually(() => receiver.on(every.path).length >= 2 && receiver.on(forms.path).length >= 1);
  await pause(300);
  expect(receiver.on(every.path).map((r) => r.body.type)).toEqual(['workspace.updated', 'submission.created']);
  expect(receiver.on(forms.path).map((r) => r.body.type)).toEqual(['submission.created']);
  expect(receiver.on(off.path)).toHaveLength(0);

  const bare = await createWorkspace(node.url);
  expect((await submit(bare)).status).toBe(201);
  expect((await request(node.url, `/admin/workspaces/${bare.id}/webhook-deliveries`, { token: bare.token })).body.items).toEqual([]);
});

test('rotate-secret: later deliveries are signed with the new secret only', async () => {
  const ws = await createWorkspace(node.url);
  const hook = await endpoint(ws, ['submission.created']);
  await submit(ws, 'first');
  const [first] = await eventually(() => (receiver.on(hook.path).length ? receiver.on(hook.path) : undefined));
  expect(verify(hook.secret, first).data.message).toBe('first');
  const rotated = await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${hook.id}/rotate-secret`, { method: 'POST', token: ws.token });
  await submit(ws, 'second');
  const second = await eventually(() => receiver.on(hook.path)[1]);
  expect(verify(rotated.body.secret, second).data.message).toBe('second');
  expect(() => verify(hook.secret, second)).toThrow();
  expect(() => verify(rotated.body.secret, first)).toThrow();
});

test('retries, the per-endpoint delivery log and redelivery work as for the spec URL', async () => {
  const ws = await createWorkspace(node.url);
  const flaky = await endpoint(ws, ['submission.created']);
  const other = await endpoint(ws, ['submission.created']);
  receiver.script(flaky.path, [503, 200]);
  await submit(ws);
  const logOf = async (id: string) => (await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${id}/deliveries`, { token: ws.token })).body.items;
  const [delivery] = await eventually(async () => {
    const items = await logOf(flaky.id);
    return items[0]?.state === 'delivered' ? items : undefined;
  });
  expect(delivery.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 200]);
  expect(delivery).toMatchObject({ endpointId: flaky.id, event: 'submission.created' });
  expect(await eventually(async () => ((await logOf(other.id)).length === 1 ? logOf(other.id) : undefined))).toEqual([expect.objectContaining({ endpointId: other.id })]);
  const workspaceLog = (await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries`, { token: ws.token })).body.items;
  expect(workspaceLog.map((d: { endpointId: string }) => d.endpointId).sort()).toEqual([flaky.id, other.id].sort());

  // Through the other endpoint's path it does not exist; through its own it is sent again, same id, signed.
  expect((await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${other.id}/deliveries/${delivery.id}/redeliver`, { method: 'POST', token: ws.token })).status).toBe(404);
  const again = await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints/${flaky.id}/deliveries/${delivery.id}/redeliver`, { method: 'POST', token: ws.token });
  expect(again.status).toBe(202);
  expect(again.body).toMatchObject({ redeliveryOf: delivery.id, endpointId: flaky.id, webhookId: delivery.webhookId });
  const copies = await eventually(() => (receiver.on(flaky.path).length >= 3 ? receiver.on(flaky.path) : undefined));
  expect(copies.map((r) => r.headers['webhook-id'])).toEqual([delivery.webhookId, delivery.webhookId, delivery.webhookId]);
  expect(verify(flaky.secret, copies[2]).type).toBe('submission.created');
});
