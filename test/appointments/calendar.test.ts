import { afterAll, beforeAll, expect, test } from '@jest/globals';
import ICAL from 'ical.js';
import { simpleParser } from 'mailparser';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { appointmentEmails } from '../../src/email/email.templates.js';
import { startSmtp } from '../email/smtp.js';
import { book, configure, everyDay, staff } from './helpers.js';

let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({ env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100', MAIL_FROM: 'Hearth <desk@hearth.test>' } });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

const HOUR = 3_600_000;
const slot = (hoursAhead: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hoursAhead * HOUR).toISOString();
const roundTheClock = { timezone: 'Europe/Berlin', leadTimeHours: 0, bookingWindowDays: 7, businessHours: everyDay([['00:00', '24:00']]) };

async function invites(address: string, count: number) {
  const mails = await eventually(() => {
    const found = smtp.mails.filter((m) => m.to.includes(address));
    return found.length >= count ? found : undefined;
  }, 15_000);
  const parsed = await Promise.all(mails.map((m) => simpleParser(m.raw)));
  return parsed
    .map((p) => p.attachments.find((a) => a.contentType.startsWith('text/calendar')))
    .filter((a) => a !== undefined)
    .map((a) => new ICAL.Component(ICAL.parse(a.content.toString('utf8'))));
}

test('confirm and reschedule mail a REQUEST invite: stable UID, rising SEQUENCE, UTC times, zone, organizer and attendee', async () => {
  const ws = await createWorkspace(node.url, { name: 'Invite Studio' });
  await configure(node.url, ws, roundTheClock);
  const booked = await book(node.url, ws, slot(30), { visitorEmail: 'invite@visitor.test', visitorName: 'Ida Invite', locale: 'de-AT' });
  expect((await staff(node.url, ws, `/${booked.id}/confirm`)).status).toBe(200);
  await invites('invite@visitor.test', 2);
  expect((await staff(node.url, ws, `/${booked.id}/reschedule`, { scheduledAt: slot(31) })).status).toBe(200);
  const [first, second] = await invites('invite@visitor.test', 3);
  for (const calendar of [first, second]) {
    expect(calendar.getFirstPropertyValue('method')).toBe('REQUEST');
    expect(calendar.getFirstPropertyValue('x-wr-timezone')).toBe('Europe/Berlin');
  }
  const a = first.getFirstSubcomponent('vevent')!;
  const b = second.getFirstSubcomponent('vevent')!;
  expect(b.getFirstPropertyValue('uid')).toBe(a.getFirstPropertyValue('uid'));
  expect(Number(a.getFirstPropertyValue('sequence'))).toBe(0);
  expect(Number(b.getFirstPropertyValue('sequence'))).toBe(1);
  const start = a.getFirstPropertyValue('dtstart') as ICAL.Time;
  expect(start.zone?.tzid).toBe('UTC');
  expect(start.toJSDate().toISOString()).toBe(slot(30));
  expect((b.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe(slot(31));
  expect((b.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString()).toBe(slot(32));
  expect(String(a.getFirstPropertyValue('organizer')).toLowerCase()).toBe('mailto:desk@hearth.test');
  expect(a.getFirstProperty('organizer')!.getParameter('cn')).toBe('Invite Studio');
  expect(String(a.getFirstPropertyValue('attendee')).toLowerCase()).toBe('mailto:invite@visitor.test');
  // The visitor wrote in German (de-AT falls back to de): the mails are German.
  const confirmation = smtp.mails.filter((m) => m.to.includes('invite@visitor.test')).map((m) => m.raw.replace(/=\r?\n/g, ''));
  expect(confirmation.some((raw) => raw.includes('Hallo Ida Invite'))).toBe(true);
});

test('mails are localized in en, de, fr, es with dates in the plugin zone; unknown languages fall back to English', () => {
  const data = { workspaceName: 'W', visitorName: 'V', visitorEmail: 'v@x.test', start: '2026-03-29T01:00:00Z', durationMinutes: 30, timezone: 'Europe/Berlin' };
  expect(appointmentEmails.visitorConfirmed({ ...data, locale: 'de' }).text).toContain('Sonntag, 29. März 2026, 03:00 Uhr (Europe/Berlin)');
  expect(appointmentEmails.visitorReminder({ ...data, locale: 'fr-CA' }).text).toContain('dimanche 29 mars 2026, 03h00');
  expect(appointmentEmails.visitorCancelled({ ...data, locale: 'es' }).text).toContain('domingo, 29 de marzo de 2026, 03:00');
  expect(appointmentEmails.visitorRescheduled({ ...data, locale: 'ja' }).text).toContain('Sunday, 29 March 2026, 03:00 (Europe/Berlin)');
  for (const render of Object.values(appointmentEmails)) {
    for (const locale of ['en', 'de', 'fr', 'es']) expect(render({ ...data, visitorName: '<b>', locale }).html).not.toContain('<b>');
  }
});

test('the team feed: owners rotate the token; the feed lists confirmed appointments; old and missing tokens are 401', async () => {
  const ws = await createWorkspace(node.url, { name: 'Feed Salon' });
  await configure(node.url, ws, roundTheClock);
  const kept = await book(node.url, ws, slot(20), { visitorEmail: 'feed@visitor.test' });
  const pending = await book(node.url, ws, slot(21), { visitorEmail: 'feed2@visitor.test' });
  expect((await staff(node.url, ws, `/${kept.id}/confirm`)).status).toBe(200);
  const rotated = await request(node.url, `/admin/workspaces/${ws.id}/appointments/feed-token/rotate`, { token: ws.token, body: {} });
  expect(rotated.status).toBe(200);
  expect(rotated.body.url).toContain(`/admin/workspaces/${ws.id}/appointments.ics?token=`);
  const path = `/admin/workspaces/${ws.id}/appointments.ics?token=${encodeURIComponent(rotated.body.token)}`;
  const feed = await request(node.url, path);
  expect(feed.status).toBe(200);
  expect(feed.headers.get('content-type')).toContain('text/calendar');
  const calendar = new ICAL.Component(ICAL.parse(feed.text));
  const events = calendar.getAllSubcomponents('vevent');
  expect(events).toHaveLength(1);
  expect(events[0].getFirstPropertyValue('uid')).toBe(`appointment-${kept.id}@hearth`);
  expect(feed.text).not.toContain(pending.id);

  expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments.ics`)).status).toBe(401);
  const again = await request(node.url, `/admin/workspaces/${ws.id}/appointments/feed-token/rotate`, { token: ws.token, body: {} });
  expect((await request(node.url, path)).status).toBe(401);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments.ics?token=${encodeURIComponent(again.body.token)}`)).status).toBe(200);
  // Another workspace's token does not open this feed.
  const other = await createWorkspace(node.url);
  const otherToken = (await request(node.url, `/admin/workspaces/${other.id}/appointments/feed-token/rotate`, { token: other.token, body: {} })).body.token;
  expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments.ics?token=${encodeURIComponent(otherToken)}`)).status).toBe(401);
});
