import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName, watchingCommands, type DriverCommand } from '../support/harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { cancelByStaff, confirm, listForStaff, reschedule } from '../../src/appointments/staff.service.js';
import { engineTraits } from '../../src/db/engine-traits.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { everyDay } from './helpers.js';
import { bookService, configureService, storeAsEarlierVersion } from './service-helpers.js';

// The team app's agenda (confirmed appointments starting in a range, in the order of time) is read by the days
// (or months) of the range where the engine hands its storage equalities but no range (FerretDB on PostgreSQL):
// a range query decoded every confirmed appointment of the workspace there (6.9 s a week at 50,000 appointments).
// What it lists must stay exactly what the range query finds.
const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
let services: ServiceHarness;
let ws: Workspace;
const ids: Record<string, string> = {};

beforeAll(async () => {
  services = await startServices({ clock, dbName: uniqueDbName('agenda') });
  ws = (await newWorkspace(services.deps)).workspace;
  await configureService(services.deps, ws, { timezone: 'UTC', bookingWindowDays: 60, businessHours: everyDay([['00:00', '24:00']]) });
  const confirmed = async (name: string, at: string, confirmAt?: string) => {
    const request = await bookService(services.deps, ws, at);
    await confirm(services.deps, ws, request.id, confirmAt ? new Date(confirmAt) : undefined);
    return (ids[name] = request.id);
  };
  await confirmed('monday', '2025-06-02T10:00:00Z');
  await confirmed('tuesday', '2025-06-03T09:00:00Z');
  // Staff may confirm at another time than the one asked for, any five minutes.
  await confirmed('tuesdayLater', '2025-06-03T14:00:00Z', '2025-06-03T14:05:00Z');
  // 23:30 to 00:30: filed under Sunday, running into Monday.
  await confirmed('lateSunday', '2025-06-08T23:00:00Z', '2025-06-08T23:30:00Z');
  await confirmed('nextMonday', '2025-06-09T01:00:00Z');
  await confirmed('june30', '2025-06-30T10:00:00Z');
  await confirmed('july1', '2025-07-01T10:00:00Z');
  await cancelByStaff(services.deps, ws, await confirmed('cancelled', '2025-06-04T10:00:00Z'), 'Closed that day.');
  await reschedule(services.deps, ws, await confirmed('moved', '2025-06-05T10:00:00Z'), new Date('2025-06-20T10:00:00Z'));
  ids.pending = (await bookService(services.deps, ws, '2025-06-06T10:00:00Z')).id;
});
afterAll(async () => {
  await services.close();
});

/** The staff list for `query` and the filters of its reads of the appointments. */
async function agenda(query: { from: string; to: string; page?: number; limit?: number; withTotal?: boolean; q?: string; status?: 'CONFIRMED' | ('CONFIRMED' | 'CANCELLED')[] }) {
  const finds: Record<string, unknown>[] = [];
  const { status = 'CONFIRMED', from, to, page = 1, limit = 50, ...rest } = query;
  const answer = await watchingCommands(
    services,
    (event: DriverCommand) => {
      if (event.commandName === 'find' && event.command.find === 'appointments') finds.push(event.command.filter as Record<string, unknown>);
    },
    () => listForStaff(services.deps, ws.id, { status, from: new Date(from), to: new Date(to), page, limit, ...rest }),
  );
  return { ids: answer.items.map((item) => item.id), pageInfo: answer.pageInfo, finds };
}

const readsByKey = () => !engineTraits(services.deps.db).rangePushdown && engineTraits(services.deps.db).equalityPushdown;

test('a week: the confirmed appointments starting in it, in the order of time; read by its days where the engine takes no range', async () => {
  const week = await agenda({ from: '2025-06-02T00:00:00Z', to: '2025-06-09T00:00:00Z' });
  expect(week.ids).toEqual([ids.monday, ids.tuesday, ids.tuesdayLater, ids.lateSunday]);
  expect(week.pageInfo).toMatchObject({ total: 4, hasNext: false });
  if (readsByKey()) {
    expect(week.finds.map((filter) => filter.scheduledDay).sort()).toEqual(['2025-06-02', '2025-06-03', '2025-06-04', '2025-06-05', '2025-06-06', '2025-06-07', '2025-06-08']);
  } else {
    expect(week.finds).toHaveLength(1);
  }
});

test('a range that starts and ends within days: only what starts in it, the bounds as given', async () => {
  expect((await agenda({ from: '2025-06-03T09:00:00Z', to: '2025-06-03T14:05:00Z' })).ids).toEqual([ids.tuesday]);
  expect((await agenda({ from: '2025-06-08T23:30:00Z', to: '2025-06-09T01:00:01Z' })).ids).toEqual([ids.lateSunday, ids.nextMonday]);
  expect((await agenda({ from: '2025-06-09T00:00:00Z', to: '2025-06-10T00:00:00Z' })).ids).toEqual([ids.nextMonday]);
});

test('a range over two months: the month with 8 days or more read whole, the other day by day', async () => {
  const range = await agenda({ from: '2025-06-20T00:00:00Z', to: '2025-07-03T00:00:00Z' });
  expect(range.ids).toEqual([ids.moved, ids.june30, ids.july1]);
  if (readsByKey()) expect(range.finds.map((filter) => filter.scheduledMonth ?? filter.scheduledDay).sort()).toEqual(['2025-06', '2025-07-01', '2025-07-02']);
});

test('pages, with and without the count, answer as the range query does', async () => {
  const from = '2025-06-01T00:00:00Z';
  const to = '2025-07-31T00:00:00Z';
  const all = [ids.monday, ids.tuesday, ids.tuesdayLater, ids.lateSunday, ids.nextMonday, ids.moved, ids.june30, ids.july1];
  expect((await agenda({ from, to })).ids).toEqual(all);
  const second = await agenda({ from, to, page: 2, limit: 3 });
  expect(second.ids).toEqual(all.slice(3, 6));
  expect(second.pageInfo).toEqual({ page: 2, limit: 3, total: 8, totalPages: 3, hasNext: true, hasPrev: true });
  const uncounted = await agenda({ from, to, page: 2, limit: 3, withTotal: false });
  expect(uncounted.ids).toEqual(all.slice(3, 6));
  expect(uncounted.pageInfo).toMatchObject({ total: 7, hasNext: true });
  const last = await agenda({ from, to, page: 3, limit: 3, withTotal: false });
  expect(last.ids).toEqual(all.slice(6));
  expect(last.pageInfo).toMatchObject({ total: 8, hasNext: false });
  expect((await agenda({ from, to, page: 4, limit: 3 })).ids).toEqual([]);
});

/** An appointment as a version before the schedule keys stored it, created a week before its start. */
const storedEarlier = (status: 'CONFIRMED' | 'CANCELLED', start: Date) => storeAsEarlierVersion(services.deps, ws, status, start, new Date(start.getTime() - 7 * 24 * 3_600_000));

test('the search and other statuses keep their meaning', async () => {
  const week = { from: '2025-06-02T00:00:00Z', to: '2025-06-09T00:00:00Z' };
  expect((await agenda({ ...week, q: 'nobody' })).ids).toEqual([]);
  expect((await agenda({ ...week, q: 'LOVELACE' })).ids).toHaveLength(4);
  // The upgrade files only confirmed appointments: one cancelled before the keys came has none.
  const cancelledEarlier = await storedEarlier('CANCELLED', new Date('2025-06-07T10:00:00Z'));
  const withCancelled = await agenda({ ...week, status: ['CONFIRMED', 'CANCELLED'] });
  expect(withCancelled.ids).toEqual([ids.monday, ids.tuesday, ids.tuesdayLater, ids.cancelled, cancelledEarlier, ids.lateSunday]);
});

test('a confirmed appointment stored before the keys, older than their reach back (62 days before now): still listed', async () => {
  // The upgrade files those that end after 62 days before a node's start.
  const earlier = await storedEarlier('CONFIRMED', new Date('2025-02-10T10:00:00Z'));
  expect((await agenda({ from: '2025-02-10T00:00:00Z', to: '2025-02-17T00:00:00Z' })).ids).toEqual([earlier]);
});
