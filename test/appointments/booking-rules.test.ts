import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startServices, newWorkspace, type ServiceHarness } from '../support/service-harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { availability, assertBookable } from '../../src/appointments/availability.service.js';
import { getSettings, putSettings, putBookingRules } from '../../src/appointments/settings.service.js';
import { RULE_DEFAULTS, type BookingRules } from '../../src/appointments/rules.model.js';
import { createRequest } from '../../src/appointments/requests.service.js';
import { confirm } from '../../src/appointments/staff.service.js';
import { bookingRulesBody } from '../../src/appointments/appointments.schemas.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { everyDay } from './helpers.js';

const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
let h: ServiceHarness;
beforeAll(async () => {
  h = await startServices({ clock });
});
afterAll(async () => {
  await h.close();
});

async function setup(timezone: string, rules: Partial<BookingRules>, hours = everyDay([['09:00', '12:00']]), slotDurationMinutes: 15 | 30 | 45 | 60 = 60) {
  const { workspace } = await newWorkspace(h.deps);
  await putSettings(h.deps, workspace.id, { enabled: true, timezone, slotDurationMinutes, leadTimeHours: 0, bookingWindowDays: 365, businessHours: hours });
  await putBookingRules(h.deps, workspace.id, { ...RULE_DEFAULTS, ...rules });
  return workspace;
}

const slotsOf = async (ws: Workspace, from: string, to: string) => (await availability(h.deps, ws, { instant: new Date(from) }, { instant: new Date(to) })).slots.map((s) => s.start);

async function bookAndConfirm(ws: Workspace, at: string) {
  const made = await createRequest(h.deps, ws, { visitorName: 'A', visitorEmail: 'a@example.com', requestedAt: new Date(at) }, 'service-test');
  await confirm(h.deps, ws, made.id);
}

test('dateOverrides close a day or replace its hours; requests follow them', async () => {
  const ws = await setup('Europe/Berlin', { dateOverrides: { '2026-12-24': [], '2026-12-31': [['09:00', '11:00']] } });
  expect(await slotsOf(ws, '2026-12-24T00:00:00Z', '2026-12-25T00:00:00Z')).toEqual([]);
  expect(await slotsOf(ws, '2026-12-31T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual(['2026-12-31T08:00:00.000Z', '2026-12-31T09:00:00.000Z']);
  expect(await slotsOf(ws, '2026-12-23T00:00:00Z', '2026-12-24T00:00:00Z')).toHaveLength(3);
  const settings = await getSettings(h.deps, ws.id);
  await expect(assertBookable(h.deps, settings, new Date('2026-12-24T08:00:00Z'))).rejects.toMatchObject({ errorName: 'slot_outside_business_hours' });
  await expect(assertBookable(h.deps, settings, new Date('2026-12-31T10:00:00Z'))).rejects.toMatchObject({ errorName: 'slot_outside_business_hours' });
  await expect(assertBookable(h.deps, settings, new Date('2026-12-31T09:00:00Z'))).resolves.toBeTruthy();
});

test('overrides on the 2026 DST days: Berlin spring forward and fall back, New York likewise', async () => {
  const berlin = await setup('Europe/Berlin', { dateOverrides: { '2026-03-29': [['01:00', '04:00']], '2026-10-25': [['01:00', '04:00']] } });
  // 01:00-04:00 local is two real hours on 29 March (02:00 does not exist) and four on 25 October.
  expect(await slotsOf(berlin, '2026-03-28T12:00:00Z', '2026-03-29T12:00:00Z')).toEqual(['2026-03-29T00:00:00.000Z', '2026-03-29T01:00:00.000Z']);
  expect(await slotsOf(berlin, '2026-10-24T12:00:00Z', '2026-10-25T12:00:00Z')).toEqual(['2026-10-24T23:00:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z']);
  const ny = await setup('America/New_York', { dateOverrides: { '2026-03-08': [], '2026-11-01': [['01:00', '02:00']] } });
  expect(await slotsOf(ny, '2026-03-08T00:00:00Z', '2026-03-09T06:00:00Z')).toEqual([]);
  expect(await slotsOf(ny, '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z')).toEqual(['2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z']);
});

test('buffers keep the time around confirmed appointments free; exactly the buffer apart is fine', async () => {
  const ws = await setup('UTC', { bufferAfterMinutes: 30, bufferBeforeMinutes: 0 }, everyDay([['09:00', '13:00']]), 30);
  await bookAndConfirm(ws, '2026-02-02T10:00:00Z');
  const slots = await slotsOf(ws, '2026-02-02T00:00:00Z', '2026-02-03T00:00:00Z');
  // Each appointment holds its own buffers: 10:00-10:30 holds until 11:00, so 11:00 (exactly the buffer
  // after its end) is free and 10:30 is not; 09:30 would hold 10:00-10:30 as its own after-buffer.
  expect(slots).toEqual(['2026-02-02T09:00:00.000Z', '2026-02-02T11:00:00.000Z', '2026-02-02T11:30:00.000Z', '2026-02-02T12:00:00.000Z', '2026-02-02T12:30:00.000Z']);
  const settings = await getSettings(h.deps, ws.id);
  await expect(assertBookable(h.deps, settings, new Date('2026-02-02T10:30:00Z'))).rejects.toMatchObject({ errorName: 'slot_taken' });

  const before = await setup('UTC', { bufferBeforeMinutes: 60 }, everyDay([['09:00', '13:00']]), 30);
  await bookAndConfirm(before, '2026-02-02T11:00:00Z');
  // 11:00-11:30 holds 10:00-11:30; a new slot holds the hour before it: 12:30 (its hour starts at 11:30) is
  // the first free one after, 09:30 (ending at 10:00) the last before.
  expect(await slotsOf(before, '2026-02-02T00:00:00Z', '2026-02-03T00:00:00Z')).toEqual(['2026-02-02T09:00:00.000Z', '2026-02-02T09:30:00.000Z', '2026-02-02T12:30:00.000Z']);
});

test('maxPerDay counts confirmed appointments per local day (23-hour DST day included)', async () => {
  const ws = await setup('Europe/Berlin', { maxPerDay: 2 }, everyDay([['00:00', '24:00']]));
  // 29 March 2026 in Berlin runs from 28 March 23:00Z to 29 March 22:00Z.
  await bookAndConfirm(ws, '2026-03-28T23:00:00Z');
  expect(await slotsOf(ws, '2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z')).not.toHaveLength(0);
  await bookAndConfirm(ws, '2026-03-29T21:00:00Z');
  expect(await slotsOf(ws, '2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z')).toEqual([]);
  const settings = await getSettings(h.deps, ws.id);
  await expect(assertBookable(h.deps, settings, new Date('2026-03-29T10:00:00Z'))).rejects.toMatchObject({ errorName: 'slot_taken' });
  // The neighbouring local days are untouched.
  await expect(assertBookable(h.deps, settings, new Date('2026-03-29T22:00:00Z'))).resolves.toBeTruthy();
  await expect(assertBookable(h.deps, settings, new Date('2026-03-28T22:00:00Z'))).resolves.toBeTruthy();
});

test('rules are validated field by field', () => {
  const result = bookingRulesBody.safeParse({ dateOverrides: { '2026-02-30': [], '2026-12-31': [['12:00', '09:00']] }, bufferBeforeMinutes: 7, maxPerDay: 0, reminders: [60, 60] });
  expect(result.success).toBe(false);
  const paths = result.error!.issues.map((i) => i.path.join('.'));
  expect(paths).toEqual(expect.arrayContaining(['dateOverrides.2026-02-30', 'dateOverrides.2026-12-31.0', 'bufferBeforeMinutes', 'maxPerDay', 'reminders']));
  expect(bookingRulesBody.parse({})).toEqual(RULE_DEFAULTS);
  expect(bookingRulesBody.safeParse({ maxPerDay: 1, bufferAfterMinutes: 240, maxReschedules: 20 }).success).toBe(true);
  expect(bookingRulesBody.safeParse({ bufferAfterMinutes: 245 }).success).toBe(false);
});
