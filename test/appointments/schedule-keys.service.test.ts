import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { failure, newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName } from '../support/harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { availability } from '../../src/appointments/availability.service.js';
import { confirm, reschedule } from '../../src/appointments/staff.service.js';
import { putBookingRules } from '../../src/appointments/settings.service.js';
import { RULE_DEFAULTS } from '../../src/appointments/rules.model.js';
import { feedCalendar, rotateFeedToken } from '../../src/appointments/feed.service.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { everyDay } from './helpers.js';
import { bookService, configureService, slotStarts, storeAsEarlierVersion } from './service-helpers.js';

// Confirmed appointments are read by the day (or month) of their start (`schedule-keys.ts`), not by scanning the
// workspace's appointments: what a visitor sees and may book must stay exactly what the whole scan found.
const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
const dbName = uniqueDbName('keys');
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices({ clock, dbName });
});
afterAll(async () => {
  await services.close();
});

const fresh = async () => (await newWorkspace(services.deps)).workspace;
const slotsBetween = async (workspace: Workspace, from: string, to: string) =>
  slotStarts(await availability(services.deps, workspace, { instant: new Date(from) }, { instant: new Date(to) }));

test('an appointment from the evening before still blocks the first slot after midnight (UTC), for booking and availability', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await fresh();
  await configureService(services.deps, ws, { timezone: 'UTC', businessHours: everyDay([['00:00', '03:00'], ['22:00', '24:00']]) });
  const late = await bookService(services.deps, ws, '2025-06-03T23:00:00Z');
  // 23:30 to 00:30: filed under June 3rd, overlapping June 4th's 00:00 slot.
  await confirm(services.deps, ws, late.id, new Date('2025-06-03T23:30:00Z'));

  await failure(bookService(services.deps, ws, '2025-06-04T00:00:00Z'), 'slot_taken');
  expect((await bookService(services.deps, ws, '2025-06-04T01:00:00Z')).status).toBe('PENDING');
  expect(await slotsBetween(ws, '2025-06-04T00:00:00Z', '2025-06-04T03:00:00Z')).toEqual(['2025-06-04T01:00:00.000Z', '2025-06-04T02:00:00.000Z']);
});

test("the day's limit counts a local day that spans two UTC dates (Pacific/Auckland)", async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await fresh();
  await configureService(services.deps, ws, { timezone: 'Pacific/Auckland', businessHours: everyDay([['08:00', '17:00']]) });
  await putBookingRules(services.deps, ws.id, { ...RULE_DEFAULTS, maxPerDay: 1 });
  // Thursday June 5th in Auckland (UTC+12) runs from June 4th 12:00 UTC to June 5th 12:00 UTC.
  const morning = await bookService(services.deps, ws, '2025-06-04T21:00:00Z'); // 09:00 local, June 4th UTC
  await confirm(services.deps, ws, morning.id);

  // 15:00 local on the same local day is June 5th in UTC: still that day's second appointment.
  await failure(bookService(services.deps, ws, '2025-06-05T03:00:00Z'), 'slot_taken');
  expect(await slotsBetween(ws, '2025-06-04T12:00:00Z', '2025-06-05T12:00:00Z')).toEqual([]);
  // The next local day (from June 5th 12:00 UTC) is open.
  expect((await bookService(services.deps, ws, '2025-06-05T21:00:00Z')).status).toBe('PENDING');
});

test('over a long window (read month by month) a confirmed time is taken, and a move frees it and takes the new one', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await fresh();
  await configureService(services.deps, ws, { timezone: 'UTC', bookingWindowDays: 365, businessHours: everyDay([['09:00', '12:00']]) });
  const request = await bookService(services.deps, ws, '2025-09-15T10:00:00Z');
  await confirm(services.deps, ws, request.id);
  expect(await slotsBetween(ws, '2025-09-15T00:00:00Z', '2025-09-16T00:00:00Z')).toEqual(['2025-09-15T09:00:00.000Z', '2025-09-15T11:00:00.000Z']);
  await failure(bookService(services.deps, ws, '2025-09-15T10:00:00Z'), 'slot_taken');

  await reschedule(services.deps, ws, request.id, new Date('2025-10-20T10:00:00Z'));
  expect(await slotsBetween(ws, '2025-09-15T00:00:00Z', '2025-09-16T00:00:00Z')).toEqual(['2025-09-15T09:00:00.000Z', '2025-09-15T10:00:00.000Z', '2025-09-15T11:00:00.000Z']);
  expect(await slotsBetween(ws, '2025-10-20T00:00:00Z', '2025-10-21T00:00:00Z')).toEqual(['2025-10-20T09:00:00.000Z', '2025-10-20T11:00:00.000Z']);
  await failure(bookService(services.deps, ws, '2025-10-20T10:00:00Z'), 'slot_taken');

  // The calendar feed (a month back to a year ahead) lists it at its new time.
  const { token } = await rotateFeedToken(services.deps, ws.id);
  const feed = await feedCalendar(services.deps, ws.id, token);
  expect(feed).toContain(`UID:appointment-${request.id}@hearth`);
  expect(feed).toContain('DTSTART:20251020T100000Z');
});

test('a confirmed appointment stored before the schedule keys is filed at start and still blocks its time', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await fresh();
  await configureService(services.deps, ws, { timezone: 'UTC', businessHours: everyDay([['09:00', '12:00']]) });
  const start = new Date('2025-06-05T10:00:00Z');
  // As an earlier version stored it: no scheduledDay, no scheduledMonth.
  const _id = new Types.ObjectId(await storeAsEarlierVersion(services.deps, ws, 'CONFIRMED', start, new Date('2025-05-30T10:00:00Z')));
  // A node of this version starts on that database (the upgrade is once per database: as if it had not run yet).
  await services.deps.db.collection('once_claims').deleteOne({ _id: 'upgrade:appointment-schedule-keys' as unknown as Types.ObjectId });
  const restarted = await startServices({ clock, dbName });
  try {
    const stored = await restarted.deps.db.collection('appointments').findOne({ _id });
    expect(stored).toMatchObject({ scheduledDay: '2025-06-05', scheduledMonth: '2025-06' });
    await failure(bookService(restarted.deps, ws, '2025-06-05T10:00:00Z'), 'slot_taken');
    const slots = slotStarts(await availability(restarted.deps, ws, { instant: new Date('2025-06-05T00:00:00Z') }, { instant: new Date('2025-06-06T00:00:00Z') }));
    expect(slots).toEqual(['2025-06-05T09:00:00.000Z', '2025-06-05T11:00:00.000Z']);
  } finally {
    await restarted.close();
  }
});
