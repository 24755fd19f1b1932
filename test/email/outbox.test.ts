import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { queueEmail, sendOutboxEmail, type MailTransport } from '../../src/email/email.service.js';
import { emailStore } from '../../src/email/email.model.js';
import { startSmtp } from './smtp.js';

let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({ env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100', MAIL_FROM: 'Hearth <mailer@hearth.test>' } });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

const mail = (to: string, subject: string) => ({ to, subject, text: `Plain ${subject}`, html: `<p>${subject}</p>` });

async function outbox(ws: { id: string; token: string }, query = '') {
  const res = await request(node.url, `/admin/workspaces/${ws.id}/emails${query}`, { token: ws.token });
  expect(res.status).toBe(200);
  return res.body as { items: any[]; nextBefore: string | null };
}

test('a queued mail is sent over SMTP and the outbox shows it as sent', async () => {
  const ws = await createWorkspace(node.url);
  await queueEmail(node.deps, ws.id, mail('visitor@example.com', 'Hello outbox'), { cause: 'team' });
  const received = await eventually(() => smtp.mails.find((m) => m.raw.includes('Subject: Hello outbox')));
  expect(received.to).toEqual(['visitor@example.com']);
  expect(received.from).toBe('mailer@hearth.test');
  expect(received.raw).toContain('Plain Hello outbox');
  expect(received.raw).toContain('<p>Hello outbox</p>');
  const item = await eventually(async () => (await outbox(ws)).items.find((e) => e.state === 'sent'));
  expect(item).toMatchObject({ to: 'visitor@example.com', subject: 'Hello outbox', attempts: 1, lastError: null });
  expect(item.sentAt).not.toBeNull();
});

test('with SMTP down the mail stays queued with the error, and is sent once SMTP is back', async () => {
  const ws = await createWorkspace(node.url);
  const port = smtp.port;
  await smtp.stop();
  await queueEmail(node.deps, ws.id, mail('later@example.com', 'Sent after outage'), { cause: 'team' });
  const waiting = await eventually(async () => (await outbox(ws)).items.find((e) => e.attempts >= 1));
  expect(waiting.state).toBe('queued');
  expect(waiting.lastError).toMatch(/ECONNREFUSED|connect/i);
  expect(waiting.nextAttemptAt).not.toBeNull();
  smtp = await startSmtp(port);
  await eventually(() => smtp.mails.find((m) => m.raw.includes('Subject: Sent after outage')), 15_000);
  const sent = await eventually(async () => (await outbox(ws)).items.find((e) => e.state === 'sent'));
  expect(sent.attempts).toBeGreaterThanOrEqual(2);
});

test('a permanent SMTP rejection (5xx) fails the mail at once without retrying', async () => {
  const ws = await createWorkspace(node.url);
  await queueEmail(node.deps, ws.id, mail('reject-me@example.com', 'Bounced'), { cause: 'team' });
  const failed = await eventually(async () => (await outbox(ws)).items.find((e) => e.state === 'failed'));
  expect(failed.attempts).toBe(1);
  expect(failed.lastError).toMatch(/550|mailbox/);
});

test('queueEmail never throws, even when the mail cannot be stored', async () => {
  const ws = await createWorkspace(node.url);
  await expect(queueEmail(node.deps, ws.id, { to: 'x@example.com', subject: '', text: '', html: '' }, { cause: 'team' })).resolves.toBeUndefined();
});

test('the outbox lists newest first, per workspace, paginated with limit 1..100', async () => {
  const ws = await createWorkspace(node.url);
  const other = await createWorkspace(node.url);
  for (const n of [1, 2, 3]) await queueEmail(node.deps, ws.id, mail(`p${n}@example.com`, `Page ${n}`), { cause: 'team' });
  await queueEmail(node.deps, other.id, mail('other@example.com', 'Other tenant'), { cause: 'team' });
  const first = await outbox(ws, '?limit=2');
  expect(first.items.map((e) => e.subject)).toEqual(['Page 3', 'Page 2']);
  expect(first.nextBefore).toBe(first.items[1].id);
  const second = await outbox(ws, `?limit=2&before=${first.nextBefore}`);
  expect(second.items.map((e) => e.subject)).toEqual(['Page 1']);
  expect(second.nextBefore).toBeNull();
  expect((await outbox(ws, '?limit=100')).items).toHaveLength(3);
  for (const bad of ['?limit=101', '?limit=0', '?before=nope']) {
    const res = await request(node.url, `/admin/workspaces/${ws.id}/emails${bad}`, { token: ws.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  }
  expect((await request(node.url, `/admin/workspaces/${ws.id}/emails`)).status).toBe(401);
});

test('three runs of one send job at once send the mail once; the others look again later', async () => {
  const ws = await createWorkspace(node.url);
  const email = (await emailStore(node.deps.db).create(ws.id, { ...mail('once@example.com', 'Sent once'), state: 'queued' }))!;
  const sent: string[] = [];
  const transport: MailTransport = {
    async sendMail(message) {
      sent.push(message.to);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { messageId: `<m${sent.length}@test>` };
    },
  };
  const next = await Promise.all([0, 1, 2].map(() => sendOutboxEmail(node.deps, transport, email.id)));
  expect(sent).toEqual(['once@example.com']);
  expect(next.filter((at) => at === null)).toHaveLength(1);
  for (const later of next.filter((at) => at !== null)) expect(later.getTime()).toBeGreaterThan(Date.now());
  // Looking again finds it sent: nothing more is sent.
  expect(await sendOutboxEmail(node.deps, transport, email.id)).toBeNull();
  expect(sent).toHaveLength(1);
});
