import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, OPERATOR, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { startSmtp, type ReceivedMail } from '../email/smtp.js';
import { book, configure, everyDay, staff } from './helpers.js';

// Real time here (the outbox job runs on it); slots are picked relative to now, round the clock.
let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({ env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100' } });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

const HOUR = 3_600_000;
const slot = (hoursAhead: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hoursAhead * HOUR).toISOString();
/** The raw message with quoted-printable soft breaks removed, so phrases can be searched. */
const body = (mail: ReceivedMail) => mail.raw.replace(/=\r?\n/g, '');
const mailTo = (address: string, phrase: string) => eventually(() => smtp.mails.find((m) => m.to.includes(address) && body(m).includes(phrase)), 10_000);
const roundTheClock = { leadTimeHours: 0, bookingWindowDays: 7, businessHours: everyDay([['00:00', '24:00']]) };

test('a request mails the visitor and the notification address; confirm, reschedule and decline mail the visitor', async () => {
  const ws = await createWorkspace(node.url, { name: 'Mail Bakery' });
  await configure(node.url, ws, { ...roundTheClock, notificationEmail: 'desk@bakery.test' });
  const first = await book(node.url, ws, slot(2), { visitorEmail: 'first@visitor.test', visitorName: 'First Visitor', visitorMessage: 'Gluten-free please' });
  await mailTo('first@visitor.test', 'Hello First Visitor');
  const notice = await mailTo('desk@bakery.test', 'First Visitor');
  expect(body(notice)).toContain('Gluten-free please');
  expect(body(notice)).toContain('first@visitor.test');
  // The team answers from the app: the mail links straight to the request.
  expect(body(notice)).toContain(`/console#/bookings/${first.id}`);

  expect((await staff(node.url, ws, `/${first.id}/confirm`)).status).toBe(200);
  await mailTo('first@visitor.test', 'is confirmed');
  const countBefore = smtp.mails.filter((m) => m.to.includes('first@visitor.test')).length;
  expect((await staff(node.url, ws, `/${first.id}/reschedule`, { scheduledAt: slot(5) })).status).toBe(200);
  await eventually(() => smtp.mails.filter((m) => m.to.includes('first@visitor.test')).length > countBefore, 10_000);

  const second = await book(node.url, ws, slot(3), { visitorEmail: 'second@visitor.test' });
  expect((await staff(node.url, ws, `/${second.id}/decline`, { reason: 'Oven repairs that day' })).status).toBe(200);
  await mailTo('second@visitor.test', 'Oven repairs that day');

  // The team calls a confirmed appointment off: the visitor hears why, and the invite is withdrawn.
  expect((await staff(node.url, ws, `/${first.id}/cancel`, { reason: 'The baker is ill' })).status).toBe(200);
  const withdrawn = await mailTo('first@visitor.test', 'The baker is ill');
  expect(body(withdrawn)).toContain('is cancelled');
  expect(body(withdrawn)).toContain('filename=cancel.ics');
});

test('without a notification address the workspace owners are notified', async () => {
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, roundTheClock);
  await book(node.url, ws, slot(2), { visitorName: 'Owner Check' });
  await mailTo(OPERATOR.email, 'Owner Check');
});

test('a mail that cannot be delivered does not change the answer', async () => {
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { ...roundTheClock, notificationEmail: 'reject-desk@bakery.test' });
  const res = await request(node.url, '/external/appointments/requests', {
    apiKey: ws.apiKey,
    body: { visitorName: 'Bounce', visitorEmail: 'reject-me@visitor.test', requestedAt: slot(2) },
  });
  expect(res.status).toBe(201);
  const emails = await eventually(async () => {
    const list = (await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as { state: string }[];
    return list.length === 2 && list.every((e) => e.state === 'failed') ? list : undefined;
  }, 10_000);
  expect(emails).toHaveLength(2);
});
