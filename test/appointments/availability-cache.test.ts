import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, watchingCommands, type DriverCommand, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { book, configure, everyDay, staff, starts } from './helpers.js';

/**
 * Issue 28, item 12: a workspace's free slots are computed once and kept until its settings, rules or
 * confirmed times change (or a minute passes), so repeated anonymous reads of the biggest availability the
 * settings allow (a year of round-the-clock 15-minute slots) cost no engine command and no slot generation.
 * Every answer is still exactly the spec's for the moment it is read: the window follows the clock, a
 * confirmation takes its slot away from the next read.
 */
const NOW = new Date('2025-06-02T09:59:50Z');
const clock = new ManualClock(NOW);
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock, env: { RATE_LIMIT_PER_MINUTE: '10000' } });
});
afterAll(async () => {
  await node.stop();
});

const APPOINTMENT_COLLECTIONS = ['appointments', 'appointment_settings', 'appointment_rules'];

/** The engine commands on the appointment collections while `work` ran. */
async function engineCommands<T>(work: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const commands: string[] = [];
  const seen = (event: DriverCommand) => {
    const collection = String(event.command[event.commandName]);
    if (APPOINTMENT_COLLECTIONS.includes(collection)) commands.push(`${event.commandName} ${collection}`);
  };
  return { result: await watchingCommands(node, seen, work), commands };
}

const read = (ws: WorkspaceFixture, query = '') => request(node.url, `/external/appointments/availability${query}`, { apiKey: ws.apiKey });

async function freshWorkspace(overrides: Record<string, unknown>): Promise<WorkspaceFixture> {
  clock.set(NOW);
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, overrides);
  return ws;
}

test('the biggest settings the API accepts: the year of slots is computed once; later reads, any from/to, cost no engine command', async () => {
  const ws = await freshWorkspace({ slotDurationMinutes: 15, leadTimeHours: 0, bookingWindowDays: 365, businessHours: everyDay([['00:00', '24:00']]) });
  const first = await engineCommands(() => read(ws));
  expect(first.result.status).toBe(200);
  // 365 days of 96 slots, less the one that would end after the ceiling (the window starts 10 s before a slot).
  expect(first.result.body.slots).toHaveLength(365 * 96 - 1);
  expect(first.commands.length).toBeGreaterThan(0);

  const second = await engineCommands(() => read(ws));
  expect(second.result.text).toBe(first.result.text);
  expect(second.commands).toEqual([]);
  const narrowed = await engineCommands(() => read(ws, '?from=2025-07-01&to=2025-07-01'));
  expect(narrowed.commands).toEqual([]);
  expect(narrowed.result.body.slots).toHaveLength(96);
  expect(narrowed.result.body.slots[0]).toEqual({ start: '2025-07-01T00:00:00.000Z', end: '2025-07-01T00:15:00.000Z' });
});

test('kept slots follow the clock: a slot leaves as its start passes, one enters as the window ceiling reaches it', async () => {
  const ws = await freshWorkspace({ slotDurationMinutes: 60, leadTimeHours: 0, bookingWindowDays: 1, businessHours: everyDay([['09:00', '17:00']]) });
  const before = await read(ws);
  expect(starts(before.body)[0]).toBe('2025-06-02T10:00:00.000Z');
  // The ceiling is tomorrow 09:59:50: tomorrow's 09:00 slot ends after it.
  expect(starts(before.body).at(-1)).toBe('2025-06-02T16:00:00.000Z');
  expect(before.body.windowStart).toBe(NOW.toISOString());

  clock.set(new Date(NOW.getTime() + 20_000));
  const after = await engineCommands(() => read(ws));
  expect(after.commands).toEqual([]);
  expect(after.result.body.windowStart).toBe('2025-06-02T10:00:10.000Z');
  expect(starts(after.result.body)[0]).toBe('2025-06-02T11:00:00.000Z');
  expect(starts(after.result.body).at(-1)).toBe('2025-06-03T09:00:00.000Z');

  // Past the horizon the kept computation no longer covers the window: computed again, the same rules.
  clock.set(new Date(NOW.getTime() + 3_600_000));
  const later = await engineCommands(() => read(ws));
  expect(later.commands.length).toBeGreaterThan(0);
  expect(starts(later.result.body)[0]).toBe('2025-06-02T11:00:00.000Z');
  expect(starts(later.result.body).at(-1)).toBe('2025-06-03T09:00:00.000Z');
  expect(later.result.body.windowEnd).toBe('2025-06-03T10:59:50.000Z');
});

test('a confirmation, a move, a rule and a settings change show in the very next read', async () => {
  const ws = await freshWorkspace({ slotDurationMinutes: 60, leadTimeHours: 0, bookingWindowDays: 3, businessHours: everyDay([['09:00', '17:00']]) });
  const slot = '2025-06-03T10:00:00.000Z';
  expect(starts((await read(ws)).body)).toContain(slot);
  const booked = await book(node.url, ws, slot);
  // A pending request blocks nothing: the kept answer stays right.
  expect(starts((await read(ws)).body)).toContain(slot);

  expect((await staff(node.url, ws, `/${booked.id}/confirm`)).status).toBe(200);
  expect(starts((await read(ws)).body)).not.toContain(slot);

  const moved = '2025-06-03T14:00:00.000Z';
  expect((await staff(node.url, ws, `/${booked.id}/reschedule`, { scheduledAt: moved })).status).toBe(200);
  const afterMove = starts((await read(ws)).body);
  expect(afterMove).toContain(slot);
  expect(afterMove).not.toContain(moved);

  const rules = await request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments/rules`, { method: 'PUT', token: ws.token, body: { dateOverrides: { '2025-06-04': [] } } });
  expect(rules.status).toBe(200);
  expect(starts((await read(ws)).body).some((start: string) => start.startsWith('2025-06-04'))).toBe(false);

  await configure(node.url, ws, { slotDurationMinutes: 60, leadTimeHours: 0, bookingWindowDays: 3, businessHours: everyDay([['09:00', '12:00']]) });
  const narrowed = await read(ws);
  expect(starts(narrowed.body).every((start: string) => start.slice(11, 13) < '12')).toBe(true);

  await configure(node.url, ws, { enabled: false });
  const off = await read(ws);
  expect(off.body).toMatchObject({ enabled: false, slots: [] });
});
