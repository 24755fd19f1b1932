import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startServices, newWorkspace, type ServiceHarness } from '../support/service-harness.js';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, watchingCommands } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { putSettings, putBookingRules } from '../../src/appointments/settings.service.js';
import { RULE_DEFAULTS } from '../../src/appointments/rules.model.js';
import { createRequest } from '../../src/appointments/requests.service.js';
import { confirm, decline, reschedule } from '../../src/appointments/staff.service.js';
import { sendDueReminders, sendReminder, type ReminderJobData } from '../../src/appointments/reminders.service.js';
import { reminderStore } from '../../src/appointments/reminders.model.js';
import { ManualClock } from '../../src/shared/clock.js';
import { listEmails } from '../../src/email/email.service.js';
import { emailStore } from '../../src/email/email.model.js';
import { cancelByManageToken } from '../../src/appointments/manage.service.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { startSmtp } from '../email/smtp.js';
import { configure, everyDay, staff } from './helpers.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
let h: ServiceHarness;
beforeAll(async () => {
  h = await startServices();
});
afterAll(async () => {
  await h.close();
});

const hourSlot = (hoursAhead: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hoursAhead * HOUR);

async function setup(reminders = [1440, 60]) {
  const { workspace } = await newWorkspace(h.deps);
  await putSettings(h.deps, workspace.id, { enabled: true, timezone: 'UTC', slotDurationMinutes: 60, leadTimeHours: 0, bookingWindowDays: 30, businessHours: everyDay([['00:00', '24:00']]) });
  await putBookingRules(h.deps, workspace.id, { ...RULE_DEFAULTS, reminders });
  return workspace;
}

async function pending(ws: Workspace, at: Date, locale?: string) {
  return createRequest(h.deps, ws, { visitorName: 'Rita', visitorEmail: 'rita@example.com', requestedAt: at, locale }, 'service-test');
}

const jobsOf = async (appointmentId: string) => (await reminderStore(h.deps.db).of(appointmentId)).map((r) => r.dueAt.toISOString()).sort();

test('confirm plans one reminder per offset; a move replans them; a reminder already due is not planned', async () => {
  const ws = await setup();
  const start = hourSlot(30);
  const made = await pending(ws, start);
  await confirm(h.deps, ws, made.id);
  expect(await jobsOf(made.id)).toEqual([new Date(start.getTime() - 1440 * MINUTE).toISOString(), new Date(start.getTime() - 60 * MINUTE).toISOString()]);
  const later = hourSlot(50);
  await reschedule(h.deps, ws, made.id, later);
  expect(await jobsOf(made.id)).toEqual([new Date(later.getTime() - 1440 * MINUTE).toISOString(), new Date(later.getTime() - 60 * MINUTE).toISOString()]);
  // 5 hours ahead: the one-day reminder is already due and left out.
  const soon = await pending(ws, hourSlot(5));
  await confirm(h.deps, ws, soon.id);
  expect(await jobsOf(soon.id)).toEqual([new Date(hourSlot(5).getTime() - 60 * MINUTE).toISOString()]);
});

test('cancel and decline leave no reminders; a reminder for a cancelled appointment sends nothing', async () => {
  const ws = await setup();
  const declined = await pending(ws, hourSlot(30));
  await decline(h.deps, ws, declined.id, null);
  expect(await jobsOf(declined.id)).toEqual([]);

  const start = hourSlot(30);
  const made = await pending(ws, start);
  await confirm(h.deps, ws, made.id);
  expect(await jobsOf(made.id)).toHaveLength(2);
  const mails = await emailStore(h.deps.db).list(ws.id, { limit: 100 });
  const token = /\/appointments\/manage\/(mt_[A-Za-z0-9_-]+)/.exec(mails.map((m) => m.text).join('\n'))![1];
  await cancelByManageToken(h.deps, token, null);
  expect(await jobsOf(made.id)).toEqual([]);
  const count = (await emailStore(h.deps.db).list(ws.id, { limit: 100 })).length;
  await sendReminder(h.deps, { key: `${made.id}:60`, workspaceId: ws.id, appointmentId: made.id, start: start.toISOString(), minutes: 60 });
  expect((await emailStore(h.deps.db).list(ws.id, { limit: 100 })).length).toBe(count);
});

test('a reminder is sent once however often it is handled, in the visitor language, and not for a moved time', async () => {
  const ws = await setup([60]);
  const start = hourSlot(30);
  const made = await pending(ws, start, 'fr');
  await confirm(h.deps, ws, made.id);
  const data: ReminderJobData = { key: `${made.id}:60`, workspaceId: ws.id, appointmentId: made.id, start: start.toISOString(), minutes: 60 };
  const before = (await listEmails(h.deps, ws.id, { limit: 100 })).items.length;
  await Promise.all([sendReminder(h.deps, data), sendReminder(h.deps, data), sendReminder(h.deps, data)]);
  const after = (await listEmails(h.deps, ws.id, { limit: 100 })).items;
  expect(after.length - before).toBe(1);
  expect(after[0].subject).toContain('Rappel');
  // After a move the old job's time is stale: nothing is sent for it.
  await reschedule(h.deps, ws, made.id, hourSlot(40));
  const moved = (await listEmails(h.deps, ws.id, { limit: 100 })).items.length;
  await sendReminder(h.deps, { ...data, key: 'other' });
  expect((await listEmails(h.deps, ws.id, { limit: 100 })).items.length).toBe(moved);
});

test('the sweep sends each reminder once when it falls due, also after a stop, and reads only the minutes it sweeps', async () => {
  const clock = new ManualClock(new Date());
  const swept = await startServices({ clock });
  try {
    const { workspace: ws } = await newWorkspace(swept.deps);
    await putSettings(swept.deps, ws.id, { enabled: true, timezone: 'UTC', slotDurationMinutes: 60, leadTimeHours: 0, bookingWindowDays: 30, businessHours: everyDay([['00:00', '24:00']]) });
    await putBookingRules(swept.deps, ws.id, { ...RULE_DEFAULTS, reminders: [120, 60] });
    const at = (hoursAhead: number) => new Date(Math.ceil(clock.now().getTime() / HOUR) * HOUR + hoursAhead * HOUR);
    const book = async (start: Date) => {
      const made = await createRequest(swept.deps, ws, { visitorName: 'Rita', visitorEmail: 'rita@example.com', requestedAt: start }, 'service-test');
      await confirm(swept.deps, ws, made.id);
      return made.id;
    };
    const start = at(3);
    const id = await book(start);
    // Far ahead: planned, never read by a sweep before their minute.
    for (let day = 2; day < 12; day += 1) await book(at(24 * day));
    const reminders = async () => (await listEmails(swept.deps, ws.id, { limit: 100 })).items.filter((mail) => mail.subject.includes('Reminder'));
    const sweep = async () => {
      const finds: string[] = [];
      const next = await watchingCommands(swept, (event) => event.commandName === 'find' && event.command.find === 'appointment_reminders' && finds.push(JSON.stringify(event.command.filter)), () => sendDueReminders(swept.deps));
      return { next, finds };
    };

    const firstMinute = Math.floor(clock.now().getTime() / MINUTE);
    await sweep();
    const beforeDue = start.getTime() - 120 * MINUTE - 1000;
    clock.set(new Date(beforeDue));
    const early = await sweep();
    expect(await reminders()).toHaveLength(0);
    // Every minute since the last sweep, one read each, by the minute alone.
    expect(early.finds).toHaveLength(Math.floor(beforeDue / MINUTE) - firstMinute + 1);
    expect(early.finds.every((filter) => /^\{"dueMinute":\d+\}$/.test(filter))).toBe(true);
    expect(early.next.getTime()).toBe(clock.now().getTime() + 10_000);

    clock.set(new Date(start.getTime() - 120 * MINUTE));
    expect((await sweep()).finds).toHaveLength(2); // the minute before (the rest of it) and this one
    expect(await reminders()).toHaveLength(1);
    await sweep();
    expect(await reminders()).toHaveLength(1);
    expect((await reminderStore(swept.deps.db).of(id)).map((r) => r.minutes)).toEqual([60]);

    // Stopped over the one-hour reminder's time: the next sweep catches up, once.
    clock.set(new Date(start.getTime() - 45 * MINUTE));
    const late = await sweep();
    expect(late.finds).toHaveLength(76);
    expect(await reminders()).toHaveLength(2);
    await sweep();
    expect(await reminders()).toHaveLength(2);
    expect(await reminderStore(swept.deps.db).of(id)).toEqual([]);
  } finally {
    await swept.close();
  }
});

const nodes: HearthNode[] = [];
afterAll(async () => {
  for (const node of nodes) await node.stop().catch(() => undefined);
});

test('a worker killed between planning and sending: the next worker sends the reminder exactly once', async () => {
  const smtp = await startSmtp();
  try {
    const dbName = uniqueDbName('remind');
    const env = { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100' };
    // The nodes' clock is the test's: the reminder falls due when it is moved on, not after a minute of waiting.
    const clock = new ManualClock(new Date());
    const first = await startTestNode({ dbName, env, clock });
    nodes.push(first);
    const ws = await createWorkspace(first.url);
    await configure(first.url, ws, { leadTimeHours: 0, bookingWindowDays: 7, businessHours: everyDay([['00:00', '24:00']]) });
    // A start on the 5-minute grid at least 7 minutes ahead, and a reminder 5 minutes before it: planned, not yet due.
    const start = Math.ceil((clock.now().getTime() + 7 * MINUTE) / (5 * MINUTE)) * 5 * MINUTE;
    expect((await request(first.url, `/admin/workspaces/${ws.id}/plugins/appointments/rules`, { method: 'PUT', token: ws.token, body: { reminders: [5] } })).status).toBe(200);
    const booked = await request(first.url, '/external/appointments/requests', { apiKey: ws.apiKey, body: { visitorName: 'Kim', visitorEmail: 'kim@visitor.test', requestedAt: hourSlot(3).toISOString(), locale: 'es' } });
    expect(booked.status).toBe(201);
    // Staff confirm it at the near start (any 5-minute time is theirs to pick).
    expect((await staff(first.url, ws, `/${booked.body.id}/confirm`, { scheduledAt: new Date(start).toISOString() })).status).toBe(200);
    // Crash before the reminder is due: no more polling, the connection cut.
    first.deps.jobs.abandon();
    await first.deps.db.close(true);

    clock.set(new Date(start - 5 * MINUTE + 1_000));
    const second = await startTestNode({ dbName, env: { ...env, NODE_ROLE: 'worker' }, clock });
    nodes.push(second);
    const reminder = await eventually(() => smtp.mails.find((m) => m.to.includes('kim@visitor.test') && m.raw.includes('Recordatorio')), 60_000, 250);
    expect(reminder).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(smtp.mails.filter((m) => m.to.includes('kim@visitor.test') && m.raw.includes('Recordatorio'))).toHaveLength(1);
  } finally {
    await smtp.stop();
  }
}, 120_000);
