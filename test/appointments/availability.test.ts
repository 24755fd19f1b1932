import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { rotateKey } from '../../src/credentials/credentials.service.js';
import { book, configure, everyDay, staff, starts } from './helpers.js';

const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

const availability = (apiKey: string, query = '') => request(node.url, `/external/appointments/availability${query}`, { apiKey });

describe('DST changes', () => {
  test('Europe/Berlin spring forward: a night range is one hour shorter, no slot lost or doubled', async () => {
    clock.set(new Date('2025-03-28T00:00:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, {
      timezone: 'Europe/Berlin',
      slotDurationMinutes: 60,
      businessHours: { sat: [['09:00', '11:00']], sun: [['00:00', '04:00']], mon: [['09:00', '11:00']] },
    });
    const res = await availability(ws.apiKey, '?from=2025-03-29T00:00:00Z&to=2025-03-31T12:00:00Z');
    expect(res.status).toBe(200);
    expect(starts(res.body)).toEqual([
      '2025-03-29T08:00:00.000Z', // Sat 09:00 CET
      '2025-03-29T09:00:00.000Z',
      '2025-03-29T23:00:00.000Z', // Sun 00:00 CET
      '2025-03-30T00:00:00.000Z', // 01:00 CET
      '2025-03-30T01:00:00.000Z', // 03:00 CEST (02:00 does not exist)
      '2025-03-31T07:00:00.000Z', // Mon 09:00 CEST
      '2025-03-31T08:00:00.000Z',
    ]);
    expect(res.body.slots[4].end).toBe('2025-03-30T02:00:00.000Z');
  });

  test('Europe/Berlin fall back: the repeated hour gives two distinct slots', async () => {
    clock.set(new Date('2025-10-24T00:00:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, {
      timezone: 'Europe/Berlin',
      businessHours: { sat: [['09:00', '10:00']], sun: [['00:00', '04:00']], mon: [['09:00', '10:00']] },
    });
    const res = await availability(ws.apiKey, '?from=2025-10-25T00:00:00Z&to=2025-10-27T12:00:00Z');
    expect(starts(res.body)).toEqual([
      '2025-10-25T07:00:00.000Z', // Sat 09:00 CEST
      '2025-10-25T22:00:00.000Z', // Sun 00:00 CEST
      '2025-10-25T23:00:00.000Z', // 01:00 CEST
      '2025-10-26T00:00:00.000Z', // 02:00 CEST
      '2025-10-26T01:00:00.000Z', // 02:00 CET
      '2025-10-26T02:00:00.000Z', // 03:00 CET
      '2025-10-27T08:00:00.000Z', // Mon 09:00 CET
    ]);
  });

  test('America/New_York spring forward and fall back with 30-minute slots', async () => {
    clock.set(new Date('2025-03-07T00:00:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, {
      timezone: 'America/New_York',
      slotDurationMinutes: 30,
      bookingWindowDays: 365,
      businessHours: { sat: [['09:00', '10:00']], sun: [['01:00', '04:00']] },
    });
    const spring = await availability(ws.apiKey, '?from=2025-03-08T00:00:00Z&to=2025-03-09T23:00:00Z');
    expect(starts(spring.body)).toEqual([
      '2025-03-08T14:00:00.000Z', // Sat 09:00 EST
      '2025-03-08T14:30:00.000Z',
      '2025-03-09T06:00:00.000Z', // Sun 01:00 EST
      '2025-03-09T06:30:00.000Z',
      '2025-03-09T07:00:00.000Z', // 03:00 EDT
      '2025-03-09T07:30:00.000Z',
    ]);
    const fall = await availability(ws.apiKey, '?from=2025-11-01T00:00:00Z&to=2025-11-02T23:00:00Z');
    const fallStarts = starts(fall.body);
    expect(fallStarts).toEqual([
      '2025-11-01T13:00:00.000Z', // Sat 09:00 EDT
      '2025-11-01T13:30:00.000Z',
      '2025-11-02T05:00:00.000Z', // Sun 01:00 EDT
      '2025-11-02T05:30:00.000Z',
      '2025-11-02T06:00:00.000Z', // 01:00 EST (repeated hour)
      '2025-11-02T06:30:00.000Z',
      '2025-11-02T07:00:00.000Z', // 02:00 EST
      '2025-11-02T07:30:00.000Z',
      '2025-11-02T08:00:00.000Z', // 03:00 EST
      '2025-11-02T08:30:00.000Z',
    ]);
    expect(new Set(fallStarts).size).toBe(fallStarts.length);
  });
});

describe('window clamps', () => {
  // Mon 2 June 06:00Z; lead 24 h -> floor Tue 06:00Z; window 3 days -> ceiling Thu 06:00Z.
  const clamped = { leadTimeHours: 24, bookingWindowDays: 3 };

  test('lead time and booking window bound the default range', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, clamped);
    const res = await availability(ws.apiKey);
    expect(res.body).toMatchObject({
      enabled: true,
      timezone: 'UTC',
      slotDurationMinutes: 60,
      leadTimeHours: 24,
      bookingWindowDays: 3,
      policyText: 'Be on time.',
      windowStart: '2025-06-03T06:00:00.000Z',
      windowEnd: '2025-06-05T06:00:00.000Z',
    });
    const list = starts(res.body);
    expect(list).toHaveLength(16);
    expect(list[0]).toBe('2025-06-03T09:00:00.000Z');
    expect(list[15]).toBe('2025-06-04T16:00:00.000Z');
    expect(res.body.slots[0].end).toBe('2025-06-03T10:00:00.000Z');
  });

  test('from before the floor is ignored; a later from applies', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, clamped);
    const early = await availability(ws.apiKey, '?from=2025-06-02T00:00:00Z');
    expect(early.body.windowStart).toBe('2025-06-03T06:00:00.000Z');
    expect(starts(early.body)[0]).toBe('2025-06-03T09:00:00.000Z');
    const late = await availability(ws.apiKey, '?from=2025-06-04T10:00:00Z');
    expect(late.body.windowStart).toBe('2025-06-04T10:00:00.000Z');
    expect(starts(late.body)).toEqual(['10', '11', '12', '13', '14', '15', '16'].map((h) => `2025-06-04T${h}:00:00.000Z`));
  });

  test('to after the ceiling is ignored; an earlier to applies (a slot must end by it)', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, clamped);
    const far = await availability(ws.apiKey, '?to=2025-07-30T00:00:00Z');
    expect(far.body.windowEnd).toBe('2025-06-05T06:00:00.000Z');
    expect(starts(far.body)).toHaveLength(16);
    const near = await availability(ws.apiKey, '?to=2025-06-03T12:00:00Z');
    expect(near.body.windowEnd).toBe('2025-06-03T12:00:00.000Z');
    expect(starts(near.body)).toEqual(['2025-06-03T09:00:00.000Z', '2025-06-03T10:00:00.000Z', '2025-06-03T11:00:00.000Z']);
  });

  test('lead time boundary: a slot exactly at the floor is offered, one minute later it is not', async () => {
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, clamped);
    clock.set(new Date('2025-06-02T09:00:00Z'));
    expect(starts((await availability(ws.apiKey)).body)[0]).toBe('2025-06-03T09:00:00.000Z');
    clock.set(new Date('2025-06-02T09:01:00Z'));
    expect(starts((await availability(ws.apiKey)).body)[0]).toBe('2025-06-03T10:00:00.000Z');
  });

  test('past slots are gone even without lead time', async () => {
    clock.set(new Date('2025-06-02T09:30:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, { bookingWindowDays: 1 });
    const res = await availability(ws.apiKey);
    expect(res.body.windowStart).toBe('2025-06-02T09:30:00.000Z');
    expect(starts(res.body)[0]).toBe('2025-06-02T10:00:00.000Z');
  });

  test('from beyond the ceiling leaves an empty window; malformed or reversed from/to is 400', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await createWorkspace(node.url);
    await configure(node.url, ws, clamped);
    const beyond = await availability(ws.apiKey, '?from=2025-06-10T00:00:00Z');
    expect(beyond.status).toBe(200);
    expect(beyond.body.slots).toEqual([]);
    expect(beyond.body.windowEnd).toBe(beyond.body.windowStart);
    const malformed = await availability(ws.apiKey, '?from=tomorrow');
    expect(malformed.status).toBe(400);
    expect(malformed.body.issues[0].path).toBe('from');
    const reversed = await availability(ws.apiKey, '?from=2025-06-04T00:00:00Z&to=2025-06-03T00:00:00Z');
    expect(reversed.status).toBe(400);
    expect(reversed.body.issues[0].path).toBe('to');
  });
});

test('a confirmed appointment removes its slot; a pending request does not', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { bookingWindowDays: 1, businessHours: everyDay([['09:00', '13:00']]) });
  const request1 = await book(node.url, ws, '2025-06-02T10:00:00Z');
  expect(starts((await availability(ws.apiKey)).body)).toContain('2025-06-02T10:00:00.000Z');
  expect((await staff(node.url, ws, `/${request1.id}/confirm`)).status).toBe(200);
  expect(starts((await availability(ws.apiKey)).body)).toEqual(['2025-06-02T09:00:00.000Z', '2025-06-02T11:00:00.000Z', '2025-06-02T12:00:00.000Z']);

  // An appointment confirmed at an off-grid time blocks every slot it touches.
  const request2 = await book(node.url, ws, '2025-06-02T12:00:00Z');
  expect((await staff(node.url, ws, `/${request2.id}/confirm`, { scheduledAt: '2025-06-02T11:30:00Z' })).status).toBe(200);
  expect(starts((await availability(ws.apiKey)).body)).toEqual(['2025-06-02T09:00:00.000Z']);
});

test('disabled plugin: enabled false, no slots, windowStart equals windowEnd', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await createWorkspace(node.url);
  const never = await availability(ws.apiKey);
  expect(never.status).toBe(200);
  expect(never.body).toEqual({
    enabled: false,
    timezone: 'UTC',
    slotDurationMinutes: 30,
    leadTimeHours: 0,
    bookingWindowDays: 0,
    policyText: null,
    slots: [],
    windowStart: '2025-06-02T06:00:00.000Z',
    windowEnd: '2025-06-02T06:00:00.000Z',
  });
  await configure(node.url, ws, { enabled: false, timezone: 'Europe/Berlin' });
  const off = await availability(ws.apiKey);
  expect(off.body).toMatchObject({ enabled: false, timezone: 'Europe/Berlin', slots: [] });
  expect(off.body.windowEnd).toBe(off.body.windowStart);
});

test('the publishable key reads availability; no key or an unknown key is 401', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { bookingWindowDays: 1 });
  const pk = await rotateKey(node.deps, ws.id, 'publishable');
  const viaHeader = await request(node.url, '/external/appointments/availability', { publishableKey: pk });
  expect(viaHeader.status).toBe(200);
  expect(viaHeader.body.slots.length).toBe(8);
  const viaQuery = await request(node.url, `/external/appointments/availability?publishableKey=${pk}`);
  expect(viaQuery.status).toBe(200);
  expect((await request(node.url, '/external/appointments/availability')).status).toBe(401);
  expect((await availability('sk_unknownunknownunknownunknownunknownunknown')).status).toBe(401);
});
