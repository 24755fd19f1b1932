import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { baseSettings, book, configure, staff, starts } from './helpers.js';
import { cellStarts, cellStore } from '../../src/appointments/cells.model.js';

const NOW = new Date('2025-06-02T06:00:00Z');
const clock = new ManualClock(NOW);
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

async function freshWorkspace(overrides: Record<string, unknown> = {}) {
  clock.set(NOW);
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { bookingWindowDays: 7, ...overrides });
  return ws;
}

describe('plugin settings', () => {
  const put = (ws: { id: string; token: string }, body: unknown) =>
    request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments`, { method: 'PUT', token: ws.token, body });

  test('round trip, and defaults before activation', async () => {
    const ws = await createWorkspace(node.url);
    const before = await request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments`, { token: ws.token });
    expect(before.body).toMatchObject({ enabled: false, businessHours: {} });
    const body = {
      ...baseSettings,
      timezone: 'America/New_York',
      slotDurationMinutes: 45,
      businessHours: { mon: [['09:00', '12:00'], ['13:00', '17:30']], sat: [['10:00', '24:00']] },
      notificationEmail: 'desk@example.com',
    };
    const res = await put(ws, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...body });
    const read = await request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments`, { token: ws.token });
    expect(read.body).toEqual(res.body);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ['duration 20', { slotDurationMinutes: 20 }, 'slotDurationMinutes'],
    ['duration 90', { slotDurationMinutes: 90 }, 'slotDurationMinutes'],
    ['negative lead time', { leadTimeHours: -1 }, 'leadTimeHours'],
    ['fractional lead time', { leadTimeHours: 1.5 }, 'leadTimeHours'],
    ['lead time above 720', { leadTimeHours: 721 }, 'leadTimeHours'],
    ['booking window 0', { bookingWindowDays: 0 }, 'bookingWindowDays'],
    ['booking window above 365', { bookingWindowDays: 366 }, 'bookingWindowDays'],
    ['overlapping ranges', { businessHours: { mon: [['09:00', '12:00'], ['11:00', '14:00']] } }, 'businessHours.mon.1'],
    ['range end before start', { businessHours: { tue: [['12:00', '09:00']] } }, 'businessHours.tue.0'],
    ['malformed time', { businessHours: { wed: [['9:00', '12:00']] } }, 'businessHours.wed.0.0'],
    ['25:00', { businessHours: { wed: [['09:00', '25:00']] } }, 'businessHours.wed.0.1'],
    ['off the 5-minute grid', { businessHours: { wed: [['09:03', '12:00']] } }, 'businessHours.wed.0'],
    ['unknown weekday', { businessHours: { monday: [['09:00', '12:00']] } }, 'businessHours'],
    ['invalid notification e-mail', { notificationEmail: 'desk' }, 'notificationEmail'],
    ['missing enabled', { enabled: undefined }, 'enabled'],
  ];
  test.each(invalid)('%s is 400 with a field issue', async (_name, patch, path) => {
    const ws = await createWorkspace(node.url);
    const res = await put(ws, { ...baseSettings, ...patch });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((issue: { path: string }) => issue.path)).toContain(path);
  });

  test('touching ranges, every duration and the bounds 0/720 hours and 1/365 days are accepted', async () => {
    const ws = await createWorkspace(node.url);
    for (const slotDurationMinutes of [15, 30, 45, 60]) expect((await put(ws, { ...baseSettings, slotDurationMinutes })).status).toBe(200);
    expect((await put(ws, { ...baseSettings, leadTimeHours: 720, bookingWindowDays: 365 })).status).toBe(200);
    expect((await put(ws, { ...baseSettings, leadTimeHours: 0, bookingWindowDays: 1 })).status).toBe(200);
    expect((await put(ws, { ...baseSettings, businessHours: { mon: [['13:00', '17:00'], ['09:00', '13:00']] } })).status).toBe(200);
  });
});

test('list: newest first, filtered by status, paginated', async () => {
  const ws = await freshWorkspace();
  const a = await book(node.url, ws, '2025-06-03T09:00:00Z');
  clock.advance(1000);
  const b = await book(node.url, ws, '2025-06-03T10:00:00Z', { visitorPhone: '+1 555', visitorMessage: 'Hi' });
  clock.advance(1000);
  const c = await book(node.url, ws, '2025-06-03T11:00:00Z');
  await staff(node.url, ws, `/${b.id}/confirm`);
  const all = await request(node.url, `/admin/workspaces/${ws.id}/appointments`, { token: ws.token });
  expect(all.body.items.map((i: { id: string }) => i.id)).toEqual([c.id, b.id, a.id]);
  expect(all.body.items[1]).toMatchObject({ status: 'CONFIRMED', visitorName: 'Ada Lovelace', visitorEmail: 'ada@example.com', visitorPhone: '+1 555', visitorMessage: 'Hi' });
  const pending = await request(node.url, `/admin/workspaces/${ws.id}/appointments?status=PENDING&limit=1&page=2`, { token: ws.token });
  expect(pending.body.items.map((i: { id: string }) => i.id)).toEqual([a.id]);
  expect(pending.body.pageInfo).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2, hasNext: false, hasPrev: true });
  expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments?status=DONE`, { token: ws.token })).status).toBe(400);
});

describe('confirm', () => {
  test('PENDING becomes CONFIRMED at the requested start; confirming again is 409', async () => {
    const ws = await freshWorkspace();
    const booked = await book(node.url, ws, '2025-06-03T10:00:00Z');
    clock.advance(60_000);
    const res = await staff(node.url, ws, `/${booked.id}/confirm`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'CONFIRMED', scheduledAt: '2025-06-03T10:00:00.000Z', respondedAt: '2025-06-02T06:01:00.000Z', rescheduleCount: 0 });
    const again = await staff(node.url, ws, `/${booked.id}/confirm`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('appointment_not_pending');
  });

  test('another start may be chosen; overlaps with a confirmed appointment are 409, touching is fine', async () => {
    const ws = await freshWorkspace();
    const first = await book(node.url, ws, '2025-06-03T10:00:00Z');
    const second = await book(node.url, ws, '2025-06-03T10:00:00Z');
    const third = await book(node.url, ws, '2025-06-03T10:00:00Z');
    expect((await staff(node.url, ws, `/${first.id}/confirm`, { scheduledAt: '2025-06-03T12:00:00Z' })).body.scheduledAt).toBe('2025-06-03T12:00:00.000Z');
    const overlap = await staff(node.url, ws, `/${second.id}/confirm`, { scheduledAt: '2025-06-03T12:55:00Z' });
    expect(overlap.status).toBe(409);
    expect(overlap.body.code).toBe('appointment_overlap');
    expect((await staff(node.url, ws, `/${second.id}/confirm`, { scheduledAt: '2025-06-03T11:05:00Z' })).status).toBe(409);
    expect((await staff(node.url, ws, `/${second.id}/confirm`, { scheduledAt: '2025-06-03T13:00:00Z' })).status).toBe(200);
    expect((await staff(node.url, ws, `/${third.id}/confirm`, { scheduledAt: '2025-06-03T11:00:00Z' })).status).toBe(200);
    // The failed attempts left nothing behind: 10:00 is still free.
    expect(starts((await request(node.url, '/external/appointments/availability?to=2025-06-03T23:59:00Z', { apiKey: ws.apiKey })).body)).toContain('2025-06-03T10:00:00.000Z');
  });

  test('a start in the past or off the 5-minute grid is 400', async () => {
    const ws = await freshWorkspace();
    const booked = await book(node.url, ws, '2025-06-03T10:00:00Z');
    expect((await staff(node.url, ws, `/${booked.id}/confirm`, { scheduledAt: '2025-06-01T10:00:00Z' })).status).toBe(400);
    expect((await staff(node.url, ws, `/${booked.id}/confirm`, { scheduledAt: '2025-06-03T10:02:00Z' })).status).toBe(400);
    expect((await staff(node.url, ws, `/${booked.id}/confirm`, { scheduledAt: 'soon' })).status).toBe(400);
    clock.set(new Date('2025-06-03T11:00:00Z')); // the requested start has passed
    expect((await staff(node.url, ws, `/${booked.id}/confirm`)).status).toBe(400);
  });

  test('unknown ids and ids of another workspace are 404', async () => {
    const ws = await freshWorkspace();
    const other = await freshWorkspace();
    const foreign = await book(node.url, other, '2025-06-03T10:00:00Z');
    expect((await staff(node.url, ws, `/${foreign.id}/confirm`)).status).toBe(404);
    expect((await staff(node.url, ws, '/0123456789abcdef01234567/decline')).status).toBe(404);
    expect((await staff(node.url, ws, '/nonsense/confirm')).status).toBe(404);
    expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments/${foreign.id}`, { token: ws.token })).status).toBe(404);
  });
});

test('decline: REJECTED with the reason; only PENDING requests', async () => {
  const ws = await freshWorkspace();
  const booked = await book(node.url, ws, '2025-06-03T10:00:00Z');
  const res = await staff(node.url, ws, `/${booked.id}/decline`, { reason: 'We are closed for inventory.' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'REJECTED', declineReason: 'We are closed for inventory.', scheduledAt: null, respondedAt: NOW.toISOString() });
  expect((await staff(node.url, ws, `/${booked.id}/decline`)).status).toBe(409);
  expect((await staff(node.url, ws, `/${booked.id}/confirm`)).status).toBe(409);
  const noReason = await book(node.url, ws, '2025-06-03T10:00:00Z');
  expect((await staff(node.url, ws, `/${noReason.id}/decline`)).body.declineReason).toBeNull();
  expect((await staff(node.url, ws, `/${noReason.id}/decline`, { reason: 'x'.repeat(2001) })).status).toBe(400);
});

describe('reschedule', () => {
  test('moves a confirmed appointment, counts the moves, frees the old time', async () => {
    const ws = await freshWorkspace();
    const booked = await book(node.url, ws, '2025-06-03T10:00:00Z');
    await staff(node.url, ws, `/${booked.id}/confirm`);
    // Overlapping its own current time is fine.
    const moved = await staff(node.url, ws, `/${booked.id}/reschedule`, { scheduledAt: '2025-06-03T10:30:00Z' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ status: 'CONFIRMED', scheduledAt: '2025-06-03T10:30:00.000Z', rescheduleCount: 1, requestedAt: '2025-06-03T10:00:00.000Z' });
    const again = await staff(node.url, ws, `/${booked.id}/reschedule`, { scheduledAt: '2025-06-03T14:00:00Z' });
    expect(again.body).toMatchObject({ scheduledAt: '2025-06-03T14:00:00.000Z', rescheduleCount: 2 });
    // 10:00 and 11:00 are free again: another request can be confirmed there.
    const next = await book(node.url, ws, '2025-06-03T10:00:00Z');
    expect((await staff(node.url, ws, `/${next.id}/confirm`, { scheduledAt: '2025-06-03T10:30:00Z' })).status).toBe(200);
    const slots = starts((await request(node.url, '/external/appointments/availability?to=2025-06-03T23:59:00Z', { apiKey: ws.apiKey })).body);
    expect(slots).not.toContain('2025-06-03T14:00:00.000Z');
    expect(slots).toContain('2025-06-03T12:00:00.000Z');
  });

  test('onto another confirmed appointment is 409; PENDING cannot be rescheduled; same start and past are 400', async () => {
    const ws = await freshWorkspace();
    const a = await book(node.url, ws, '2025-06-03T10:00:00Z');
    const b = await book(node.url, ws, '2025-06-03T12:00:00Z');
    const pending = await book(node.url, ws, '2025-06-03T15:00:00Z');
    await staff(node.url, ws, `/${a.id}/confirm`);
    await staff(node.url, ws, `/${b.id}/confirm`);
    const clash = await staff(node.url, ws, `/${a.id}/reschedule`, { scheduledAt: '2025-06-03T11:30:00Z' });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('appointment_overlap');
    // The failed move kept a's time reserved and left b's alone.
    const check = await book(node.url, ws, '2025-06-03T15:00:00Z');
    expect((await staff(node.url, ws, `/${check.id}/confirm`, { scheduledAt: '2025-06-03T10:30:00Z' })).status).toBe(409);
    const notConfirmed = await staff(node.url, ws, `/${pending.id}/reschedule`, { scheduledAt: '2025-06-03T16:00:00Z' });
    expect(notConfirmed.status).toBe(409);
    expect(notConfirmed.body.code).toBe('appointment_not_confirmed');
    expect((await staff(node.url, ws, `/${a.id}/reschedule`, { scheduledAt: '2025-06-03T10:00:00Z' })).status).toBe(400);
    expect((await staff(node.url, ws, `/${a.id}/reschedule`, { scheduledAt: '2025-06-01T10:00:00Z' })).status).toBe(400);
    expect((await staff(node.url, ws, `/${a.id}/reschedule`, {})).status).toBe(400);
  });
});

test('leftovers of an interrupted confirm (reserved, never confirmed) stop blocking once stale; fresh ones keep blocking', async () => {
  const ws = await freshWorkspace();
  const interrupted = await book(node.url, ws, '2025-06-03T10:00:00Z');
  const other = await book(node.url, ws, '2025-06-03T10:00:00Z');
  const cells = cellStarts(new Date('2025-06-03T10:00:00Z'), new Date('2025-06-03T11:00:00Z'));
  // As if a node died between reserving the time and changing the status.
  expect(await cellStore(node.deps.db).reserve(ws.id, interrupted.id, cells, clock.now())).not.toBeNull();
  expect((await staff(node.url, ws, `/${other.id}/confirm`)).status).toBe(409);
  clock.advance(3 * 60_000);
  expect((await staff(node.url, ws, `/${other.id}/confirm`)).status).toBe(200);
  // A real confirmed appointment is never treated as a leftover, however old.
  clock.advance(60 * 60_000);
  expect((await staff(node.url, ws, `/${interrupted.id}/confirm`)).status).toBe(409);
});

test('agents work appointments but may not change the plugin settings; non-members see 404', async () => {
  const ws = await freshWorkspace();
  const email = `agent-${ws.id}@example.com`;
  const user = await request(node.url, '/admin/users', { token: ws.token, body: { email, name: 'Agent', password: 'agent-password-1' } });
  expect(user.status).toBe(201);
  const stranger = await request(node.url, '/admin/auth/login', { body: { email, password: 'agent-password-1' } });
  const booked = await book(node.url, ws, '2025-06-03T10:00:00Z');
  expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments/${booked.id}/confirm`, { token: stranger.body.token, body: {} })).status).toBe(404);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.body.id, role: 'agent' } })).status).toBe(201);
  const agent = { id: ws.id, token: stranger.body.token, apiKey: ws.apiKey };
  expect((await staff(node.url, agent, `/${booked.id}/confirm`)).status).toBe(200);
  const put = await request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments`, { method: 'PUT', token: agent.token, body: baseSettings });
  expect(put.status).toBe(403);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments`, { token: agent.token })).status).toBe(200);
});
