import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { simpleParser } from 'mailparser';
import ICAL from 'ical.js';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { startSmtp, type ReceivedMail } from '../email/smtp.js';
import { book, configure, everyDay, staff } from './helpers.js';

// Real time (the outbox runs on it); slots relative to now on a round-the-clock plugin.
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
const roundTheClock = { leadTimeHours: 0, bookingWindowDays: 7, businessHours: everyDay([['00:00', '24:00']]) };
const unfold = (mail: ReceivedMail) => mail.raw.replace(/=\r?\n/g, '');

/** Books and confirms; answers the manage token taken from the confirmation mail's link. */
async function confirmed(ws: WorkspaceFixture, hoursAhead: number, email: string, extra: Record<string, unknown> = {}) {
  const booked = await book(node.url, ws, slot(hoursAhead), { visitorEmail: email, ...extra });
  expect((await staff(node.url, ws, `/${booked.id}/confirm`)).status).toBe(200);
  const mail = await eventually(() => smtp.mails.find((m) => m.to.includes(email) && unfold(m).includes('/appointments/manage/')), 15_000);
  const parsed = await simpleParser(mail.raw);
  const token = /\/appointments\/manage\/(mt_[A-Za-z0-9_-]+)/.exec(parsed.text ?? '')?.[1];
  expect(token).toBeDefined();
  return { id: booked.id, token: token!, confirmation: parsed };
}

const manage = (token: string, path = '', body?: unknown) => request(node.url, `/external/appointments/manage/${token}${path}`, body === undefined ? {} : { body });

test('the confirmation mail carries the manage link; GET shows the appointment; unknown tokens are 404', async () => {
  const ws = await createWorkspace(node.url, { name: 'Manage Clinic' });
  await configure(node.url, ws, roundTheClock);
  const { id, token } = await confirmed(ws, 30, 'view@visitor.test');
  const res = await manage(token);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id, status: 'CONFIRMED', scheduledAt: slot(30), durationMinutes: 60, timezone: 'UTC', rescheduleCount: 0, canCancel: true, canReschedule: true, workspace: { name: 'Manage Clinic' } });
  expect((await manage('mt_unknown')).status).toBe(404);
  expect((await manage('mt_unknown')).body.code).toBe('manage_token_not_found');
  // The spec's cancellation token is still revoked by the confirmation, and is no manage token.
  const page = await request(node.url, `/appointments/manage/${token}?lang=de`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('Ihr Termin');
  // Names every object inherits are no languages: English, never a 500.
  for (const [lang, acceptLanguage, title] of [['constructor', '', 'Your appointment'], ['', '__proto__, constructor, de', 'Ihr Termin']]) {
    const hostile = await request(node.url, `/appointments/manage/${token}${lang ? `?lang=${lang}` : ''}`, { headers: { 'Accept-Language': acceptLanguage } });
    expect({ lang, acceptLanguage, status: hostile.status, title: hostile.text.includes(title) }).toEqual({ lang, acceptLanguage, status: 200, title: true });
  }
});

test('cancel: allowed at the notice limit, refused inside it; frees the slot and mails both sides with METHOD:CANCEL', async () => {
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { ...roundTheClock, notificationEmail: 'desk@manage.test' });
  // Notice 24 h: a start 25 h ahead passes, one 23 h ahead is too late.
  const late = await confirmed(ws, 23, 'late@visitor.test');
  const refused = await manage(late.token, '/cancel', {});
  expect(refused.status).toBe(409);
  expect(refused.body.code).toBe('too_late_to_cancel');
  expect((await manage(late.token)).body.canCancel).toBe(false);

  const early = await confirmed(ws, 25, 'early@visitor.test');
  const res = await manage(early.token, '/cancel', { reason: 'Sick <kid>' });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ id: early.id, status: 'CANCELLED' });
  expect((await manage(early.token, '/cancel', {})).status).toBe(409);
  // The slot is free again: another visitor can book and be confirmed there.
  const again = await book(node.url, ws, slot(25), { visitorEmail: 'next@visitor.test' });
  expect((await staff(node.url, ws, `/${again.id}/confirm`)).status).toBe(200);

  const cancelMail = await simpleParser((await eventually(() => smtp.mails.find((m) => m.to.includes('early@visitor.test') && unfold(m).includes('is cancelled')), 15_000)).raw);
  const ics = cancelMail.attachments.find((a) => a.contentType.startsWith('text/calendar'));
  expect(ics).toBeDefined();
  const calendar = new ICAL.Component(ICAL.parse(ics!.content.toString('utf8')));
  expect(calendar.getFirstPropertyValue('method')).toBe('CANCEL');
  const confirmIcs = early.confirmation.attachments.find((a) => a.contentType.startsWith('text/calendar'))!;
  const first = new ICAL.Component(ICAL.parse(confirmIcs.content.toString('utf8'))).getFirstSubcomponent('vevent')!;
  const cancelEvent = calendar.getFirstSubcomponent('vevent')!;
  expect(cancelEvent.getFirstPropertyValue('uid')).toBe(first.getFirstPropertyValue('uid'));
  expect(Number(cancelEvent.getFirstPropertyValue('sequence'))).toBeGreaterThan(Number(first.getFirstPropertyValue('sequence')));
  const team = await eventually(() => smtp.mails.find((m) => m.to.includes('desk@manage.test') && unfold(m).includes('cancelled an appointment')), 15_000);
  expect(unfold(team)).toContain('Sick <kid>');
});

test('reschedule: moves, counts, respects the rules, and stops at maxReschedules', async () => {
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { ...roundTheClock, notificationEmail: 'desk2@manage.test' });
  const rules = await request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments/rules`, { method: 'PUT', token: ws.token, body: { maxReschedules: 2 } });
  expect(rules.status).toBe(200);
  const { token } = await confirmed(ws, 30, 'move@visitor.test');
  const other = await book(node.url, ws, slot(40), { visitorEmail: 'other@visitor.test' });
  expect((await staff(node.url, ws, `/${other.id}/confirm`)).status).toBe(200);

  const taken = await manage(token, '/reschedule', { requestedAt: slot(40) });
  expect(taken.status).toBe(409);
  expect(taken.body.code).toBe('slot_taken');
  const offGrid = await manage(token, '/reschedule', { requestedAt: new Date(Date.parse(slot(31)) + 15 * 60_000).toISOString() });
  expect(offGrid.body.code).toBe('slot_outside_business_hours');

  const one = await manage(token, '/reschedule', { requestedAt: slot(31) });
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({ scheduledAt: slot(31), rescheduleCount: 1 });
  // Its own current time does not count against the move.
  const two = await manage(token, '/reschedule', { requestedAt: slot(32) });
  expect(two.body).toMatchObject({ scheduledAt: slot(32), rescheduleCount: 2 });
  const three = await manage(token, '/reschedule', { requestedAt: slot(33) });
  expect(three.status).toBe(409);
  expect(three.body.code).toBe('reschedule_limit_reached');
  expect((await manage(token)).body.canReschedule).toBe(false);
  // The old time is free again.
  const freed = await book(node.url, ws, slot(30), { visitorEmail: 'freed@visitor.test' });
  expect((await staff(node.url, ws, `/${freed.id}/confirm`)).status).toBe(200);
  await eventually(() => smtp.mails.find((m) => m.to.includes('desk2@manage.test') && unfold(m).includes('moved an appointment')), 15_000);
});

test('two visitors racing for one slot: exactly one wins, the other gets 409 slot_taken', async () => {
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, roundTheClock);
  const a = await confirmed(ws, 50, 'race-a@visitor.test');
  const b = await confirmed(ws, 51, 'race-b@visitor.test');
  const c = await confirmed(ws, 52, 'race-c@visitor.test');
  const results = await Promise.all([a, b, c].map((x) => manage(x.token, '/reschedule', { requestedAt: slot(60) })));
  expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
  for (const r of results.filter((r) => r.status === 409)) expect(r.body.code).toBe('slot_taken');
  const list = await request(node.url, `/admin/workspaces/${ws.id}/appointments?status=CONFIRMED`, { token: ws.token });
  expect(list.body.items.filter((x: { scheduledAt: string }) => x.scheduledAt === slot(60))).toHaveLength(1);
});
