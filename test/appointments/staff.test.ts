import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { baseSettings, book, configure, staff } from './helpers.js';

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

// The transitions and the time reservation are service tests (staff.service.test.ts); here the edge:
// statuses and wire codes of each refusal, body and query validation, path ids.
test('staff routes: 409 and 404 codes on the wire; body, query and path bounds are 400 or 404', async () => {
  const ws = await freshWorkspace();
  const other = await freshWorkspace();
  const a = await book(node.url, ws, '2025-06-03T10:00:00Z');
  const b = await book(node.url, ws, '2025-06-03T10:00:00Z');
  const foreign = await book(node.url, other, '2025-06-03T10:00:00Z');
  const confirmed = await staff(node.url, ws, `/${a.id}/confirm`);
  expect(confirmed.status).toBe(200);
  expect(confirmed.body).toMatchObject({ status: 'CONFIRMED', scheduledAt: '2025-06-03T10:00:00.000Z' });
  const again = await staff(node.url, ws, `/${a.id}/confirm`);
  expect(again.status).toBe(409);
  expect(again.body.code).toBe('appointment_not_pending');
  const overlap = await staff(node.url, ws, `/${b.id}/confirm`, { scheduledAt: '2025-06-03T10:55:00Z' });
  expect(overlap.status).toBe(409);
  expect(overlap.body.code).toBe('appointment_overlap');
  const notConfirmed = await staff(node.url, ws, `/${b.id}/reschedule`, { scheduledAt: '2025-06-03T16:00:00Z' });
  expect(notConfirmed.status).toBe(409);
  expect(notConfirmed.body.code).toBe('appointment_not_confirmed');
  expect((await staff(node.url, ws, `/${b.id}/confirm`, { scheduledAt: '2025-06-03T10:02:00Z' })).status).toBe(400);

  expect((await staff(node.url, ws, `/${b.id}/confirm`, { scheduledAt: 'soon' })).status).toBe(400);
  expect((await staff(node.url, ws, `/${a.id}/reschedule`, {})).status).toBe(400);
  expect((await staff(node.url, ws, `/${b.id}/decline`, { reason: 'x'.repeat(2001) })).status).toBe(400);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments?status=DONE`, { token: ws.token })).status).toBe(400);

  expect((await staff(node.url, ws, `/${foreign.id}/confirm`)).status).toBe(404);
  expect((await staff(node.url, ws, '/0123456789abcdef01234567/decline')).status).toBe(404);
  expect((await staff(node.url, ws, '/nonsense/confirm')).status).toBe(404);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments/${foreign.id}`, { token: ws.token })).status).toBe(404);
  const declined = await staff(node.url, ws, `/${b.id}/decline`, { reason: 'x'.repeat(2000) });
  expect(declined.status).toBe(200);
  expect(declined.body.status).toBe('REJECTED');
});

test('the team cancels a confirmed appointment at any time: its time is free again; pending, cancelled and foreign ones are refused', async () => {
  const ws = await freshWorkspace();
  const other = await freshWorkspace();
  const a = await book(node.url, ws, '2025-06-02T10:00:00Z');
  const b = await book(node.url, ws, '2025-06-02T10:00:00Z');
  const foreign = await book(node.url, other, '2025-06-02T10:00:00Z');
  expect((await staff(node.url, other, `/${foreign.id}/confirm`)).status).toBe(200);
  const pending = await staff(node.url, ws, `/${a.id}/cancel`, {});
  expect(pending.status).toBe(409);
  expect(pending.body.code).toBe('appointment_not_confirmed');
  expect((await staff(node.url, ws, `/${a.id}/confirm`)).status).toBe(200);
  expect((await staff(node.url, ws, `/${b.id}/confirm`)).body.code).toBe('appointment_overlap');

  expect((await staff(node.url, ws, `/${a.id}/cancel`, { reason: 'x'.repeat(2001) })).status).toBe(400);
  expect((await staff(node.url, ws, `/${foreign.id}/cancel`, {})).status).toBe(404);
  // Four hours ahead, inside the visitor's 24-hour notice (the default): the team may still call it off.
  const cancelled = await staff(node.url, ws, `/${a.id}/cancel`, { reason: 'x'.repeat(2000) });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ status: 'CANCELLED', cancelReason: 'x'.repeat(2000), cancelledAt: NOW.toISOString() });
  const again = await staff(node.url, ws, `/${a.id}/cancel`, {});
  expect(again.status).toBe(409);
  expect(again.body.code).toBe('appointment_not_confirmed');
  // The freed time takes the other request; the other workspace's appointment is untouched.
  expect((await staff(node.url, ws, `/${b.id}/confirm`)).status).toBe(200);
  expect((await request(node.url, `/admin/workspaces/${other.id}/appointments/${foreign.id}`, { token: other.token })).body.status).toBe('CONFIRMED');
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

test('the agenda: appointments scheduled in [from, to), earliest first, whatever order they were booked in', async () => {
  const ws = await freshWorkspace();
  const late = await book(node.url, ws, '2025-06-04T15:00:00Z');
  const early = await book(node.url, ws, '2025-06-03T09:00:00Z');
  const edge = await book(node.url, ws, '2025-06-05T09:00:00Z');
  const pending = await book(node.url, ws, '2025-06-03T11:00:00Z');
  for (const id of [late.id, early.id, edge.id]) expect((await staff(node.url, ws, `/${id}/confirm`)).status).toBe(200);
  const agenda = (query: string) => request(node.url, `/admin/workspaces/${ws.id}/appointments?${query}`, { token: ws.token });

  const week = await agenda('from=2025-06-02T00:00:00Z&to=2025-06-05T09:00:00Z');
  expect(week.status).toBe(200);
  expect(week.body.items.map((a: { id: string }) => a.id)).toEqual([early.id, late.id]);
  expect(week.body.pageInfo.total).toBe(2);
  const fromOnly = await agenda('status=CONFIRMED&from=2025-06-04T15:00:00Z');
  expect(fromOnly.body.items.map((a: { id: string }) => a.id)).toEqual([late.id, edge.id]);
  // Without bounds the list stays as it was: newest request first, pending ones included.
  expect((await agenda('')).body.items.map((a: { id: string }) => a.id)).toEqual([pending.id, edge.id, early.id, late.id]);

  for (const query of ['from=2025-06-05T00:00:00Z&to=2025-06-05T00:00:00Z', 'from=tomorrow']) {
    const res = await agenda(query);
    expect(res.status).toBe(400);
    expect(res.body.issues).toHaveLength(1);
  }
});
