import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { availability } from '../../src/appointments/availability.service.js';
import { confirm } from '../../src/appointments/staff.service.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { everyDay } from './helpers.js';
import { bookService, configureService, slotStarts } from './service-helpers.js';

// Slot generation and the window clamps, through the availability service (the edge parses from/to).
const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices({ clock });
});
afterAll(async () => {
  await services.close();
});

const slotsOf = (workspace: Workspace, from?: string, to?: string) =>
  availability(services.deps, workspace, from ? { instant: new Date(from) } : undefined, to ? { instant: new Date(to) } : undefined);
const fresh = async () => (await newWorkspace(services.deps)).workspace;

describe('DST changes', () => {
  test('Europe/Berlin spring forward: a night range is one hour shorter, no slot lost or doubled', async () => {
    clock.set(new Date('2025-03-28T00:00:00Z'));
    const ws = await fresh();
    await configureService(services.deps, ws, {
      timezone: 'Europe/Berlin',
      slotDurationMinutes: 60,
      businessHours: { sat: [['09:00', '11:00']], sun: [['00:00', '04:00']], mon: [['09:00', '11:00']] },
    });
    const answer = await slotsOf(ws, '2025-03-29T00:00:00Z', '2025-03-31T12:00:00Z');
    expect(slotStarts(answer)).toEqual([
      '2025-03-29T08:00:00.000Z', // Sat 09:00 CET
      '2025-03-29T09:00:00.000Z',
      '2025-03-29T23:00:00.000Z', // Sun 00:00 CET
      '2025-03-30T00:00:00.000Z', // 01:00 CET
      '2025-03-30T01:00:00.000Z', // 03:00 CEST (02:00 does not exist)
      '2025-03-31T07:00:00.000Z', // Mon 09:00 CEST
      '2025-03-31T08:00:00.000Z',
    ]);
    expect(answer.slots[4].end).toBe('2025-03-30T02:00:00.000Z');
  });

  test('Europe/Berlin fall back: the repeated hour gives two distinct slots', async () => {
    clock.set(new Date('2025-10-24T00:00:00Z'));
    const ws = await fresh();
    await configureService(services.deps, ws, {
      timezone: 'Europe/Berlin',
      businessHours: { sat: [['09:00', '10:00']], sun: [['00:00', '04:00']], mon: [['09:00', '10:00']] },
    });
    expect(slotStarts(await slotsOf(ws, '2025-10-25T00:00:00Z', '2025-10-27T12:00:00Z'))).toEqual([
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
    const ws = await fresh();
    await configureService(services.deps, ws, {
      timezone: 'America/New_York',
      slotDurationMinutes: 30,
      bookingWindowDays: 365,
      businessHours: { sat: [['09:00', '10:00']], sun: [['01:00', '04:00']] },
    });
    expect(slotStarts(await slotsOf(ws, '2025-03-08T00:00:00Z', '2025-03-09T23:00:00Z'))).toEqual([
      '2025-03-08T14:00:00.000Z', // Sat 09:00 EST
      '2025-03-08T14:30:00.000Z',
      '2025-03-09T06:00:00.000Z', // Sun 01:00 EST
      '2025-03-09T06:30:00.000Z',
      '2025-03-09T07:00:00.000Z', // 03:00 EDT
      '2025-03-09T07:30:00.000Z',
    ]);
    const fallStarts = slotStarts(await slotsOf(ws, '2025-11-01T00:00:00Z', '2025-11-02T23:00:00Z'));
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

  test('Europe/Berlin spring forward: a range starting in the skipped hour starts when the clocks jump', async () => {
    clock.set(new Date('2025-03-28T00:00:00Z'));
    const halfHours = await fresh();
    await configureService(services.deps, halfHours, { timezone: 'Europe/Berlin', slotDurationMinutes: 30, businessHours: { sun: [['02:30', '04:00']] } });
    expect(slotStarts(await slotsOf(halfHours, '2025-03-29T00:00:00Z', '2025-03-31T00:00:00Z'))).toEqual([
      '2025-03-30T01:00:00.000Z', // 03:00 CEST, the jump
      '2025-03-30T01:30:00.000Z',
    ]);
    const quarters = await fresh();
    await configureService(services.deps, quarters, { timezone: 'Europe/Berlin', slotDurationMinutes: 15, businessHours: { sun: [['02:15', '03:15']] } });
    const answer = await slotsOf(quarters, '2025-03-29T00:00:00Z', '2025-03-31T00:00:00Z');
    expect(answer.slots).toEqual([{ start: '2025-03-30T01:00:00.000Z', end: '2025-03-30T01:15:00.000Z' }]);
  });

  test('Europe/Berlin spring forward: a range ending in the skipped hour ends when the clocks jump', async () => {
    clock.set(new Date('2025-03-28T00:00:00Z'));
    const ws = await fresh();
    await configureService(services.deps, ws, { timezone: 'Europe/Berlin', slotDurationMinutes: 30, businessHours: { sun: [['00:00', '02:30']] } });
    const answer = await slotsOf(ws, '2025-03-29T00:00:00Z', '2025-03-31T00:00:00Z');
    expect(slotStarts(answer)).toEqual(['2025-03-29T23:00:00.000Z', '2025-03-29T23:30:00.000Z', '2025-03-30T00:00:00.000Z', '2025-03-30T00:30:00.000Z']);
    expect(answer.slots.at(-1)!.end).toBe('2025-03-30T01:00:00.000Z'); // 03:00 CEST
  });

  test('Europe/Berlin fall back: touching ranges meet at one instant of the repeated wall time, no slots overlap', async () => {
    clock.set(new Date('2025-10-24T00:00:00Z'));
    const ws = await fresh();
    await configureService(services.deps, ws, {
      timezone: 'Europe/Berlin',
      slotDurationMinutes: 45,
      businessHours: { sun: [['00:00', '02:30'], ['02:30', '05:00']] },
    });
    const answer = await slotsOf(ws, '2025-10-25T00:00:00Z', '2025-10-27T00:00:00Z');
    expect(slotStarts(answer)).toEqual([
      '2025-10-25T22:00:00.000Z', // 00:00 CEST
      '2025-10-25T22:45:00.000Z',
      '2025-10-25T23:30:00.000Z', // ends 02:15 CEST: 02:30 CEST is where the first range stops
      '2025-10-26T00:30:00.000Z', // 02:30 CEST, the second range
      '2025-10-26T01:15:00.000Z', // 02:15 CET
      '2025-10-26T02:00:00.000Z',
      '2025-10-26T02:45:00.000Z', // ends 04:30 CET
    ]);
    for (let i = 1; i < answer.slots.length; i++) expect(answer.slots[i].start >= answer.slots[i - 1].end).toBe(true);
  });
});

describe('window clamps', () => {
  // Mon 2 June 06:00Z; lead 24 h -> floor Tue 06:00Z; window 3 days -> ceiling Thu 06:00Z.
  const clamped = { leadTimeHours: 24, bookingWindowDays: 3 };
  const clampedWorkspace = async () => {
    const ws = await fresh();
    await configureService(services.deps, ws, clamped);
    return ws;
  };

  test('lead time and booking window bound the default range', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await clampedWorkspace();
    const answer = await slotsOf(ws);
    expect(answer).toMatchObject({
      enabled: true,
      timezone: 'UTC',
      slotDurationMinutes: 60,
      leadTimeHours: 24,
      bookingWindowDays: 3,
      policyText: 'Be on time.',
      windowStart: '2025-06-03T06:00:00.000Z',
      windowEnd: '2025-06-05T06:00:00.000Z',
    });
    const list = slotStarts(answer);
    expect(list).toHaveLength(16);
    expect(list[0]).toBe('2025-06-03T09:00:00.000Z');
    expect(list[15]).toBe('2025-06-04T16:00:00.000Z');
    expect(answer.slots[0].end).toBe('2025-06-03T10:00:00.000Z');
  });

  test('from before the floor is ignored; a later from applies', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await clampedWorkspace();
    const early = await slotsOf(ws, '2025-06-02T00:00:00Z');
    expect(early.windowStart).toBe('2025-06-03T06:00:00.000Z');
    expect(slotStarts(early)[0]).toBe('2025-06-03T09:00:00.000Z');
    const late = await slotsOf(ws, '2025-06-04T10:00:00Z');
    expect(late.windowStart).toBe('2025-06-04T10:00:00.000Z');
    expect(slotStarts(late)).toEqual(['10', '11', '12', '13', '14', '15', '16'].map((h) => `2025-06-04T${h}:00:00.000Z`));
  });

  test('to after the ceiling is ignored; an earlier to applies (a slot must end by it)', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await clampedWorkspace();
    const far = await slotsOf(ws, undefined, '2025-07-30T00:00:00Z');
    expect(far.windowEnd).toBe('2025-06-05T06:00:00.000Z');
    expect(slotStarts(far)).toHaveLength(16);
    const near = await slotsOf(ws, undefined, '2025-06-03T12:00:00Z');
    expect(near.windowEnd).toBe('2025-06-03T12:00:00.000Z');
    expect(slotStarts(near)).toEqual(['2025-06-03T09:00:00.000Z', '2025-06-03T10:00:00.000Z', '2025-06-03T11:00:00.000Z']);
  });

  test('lead time boundary: a slot exactly at the floor is offered, one minute later it is not', async () => {
    const ws = await clampedWorkspace();
    clock.set(new Date('2025-06-02T09:00:00Z'));
    expect(slotStarts(await slotsOf(ws))[0]).toBe('2025-06-03T09:00:00.000Z');
    clock.set(new Date('2025-06-02T09:01:00Z'));
    expect(slotStarts(await slotsOf(ws))[0]).toBe('2025-06-03T10:00:00.000Z');
  });

  test('past slots are gone even without lead time', async () => {
    clock.set(new Date('2025-06-02T09:30:00Z'));
    const ws = await fresh();
    await configureService(services.deps, ws, { bookingWindowDays: 1 });
    const answer = await slotsOf(ws);
    expect(answer.windowStart).toBe('2025-06-02T09:30:00.000Z');
    expect(slotStarts(answer)[0]).toBe('2025-06-02T10:00:00.000Z');
  });

  test('from beyond the ceiling leaves an empty window', async () => {
    clock.set(new Date('2025-06-02T06:00:00Z'));
    const ws = await clampedWorkspace();
    const beyond = await slotsOf(ws, '2025-06-10T00:00:00Z');
    expect(beyond.slots).toEqual([]);
    expect(beyond.windowEnd).toBe(beyond.windowStart);
  });
});

test('a confirmed appointment removes its slot; a pending request does not', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await fresh();
  await configureService(services.deps, ws, { bookingWindowDays: 1, businessHours: everyDay([['09:00', '13:00']]) });
  const request1 = await bookService(services.deps, ws, '2025-06-02T10:00:00Z');
  expect(slotStarts(await slotsOf(ws))).toContain('2025-06-02T10:00:00.000Z');
  await confirm(services.deps, ws, request1.id);
  expect(slotStarts(await slotsOf(ws))).toEqual(['2025-06-02T09:00:00.000Z', '2025-06-02T11:00:00.000Z', '2025-06-02T12:00:00.000Z']);

  // An appointment confirmed at an off-grid time blocks every slot it touches.
  const request2 = await bookService(services.deps, ws, '2025-06-02T12:00:00Z');
  await confirm(services.deps, ws, request2.id, new Date('2025-06-02T11:30:00Z'));
  expect(slotStarts(await slotsOf(ws))).toEqual(['2025-06-02T09:00:00.000Z']);
});

test('disabled plugin: enabled false, no slots, windowStart equals windowEnd', async () => {
  clock.set(new Date('2025-06-02T06:00:00Z'));
  const ws = await fresh();
  expect(await slotsOf(ws)).toEqual({
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
  await configureService(services.deps, ws, { enabled: false, timezone: 'Europe/Berlin' });
  const off = await slotsOf(ws);
  expect(off).toMatchObject({ enabled: false, timezone: 'Europe/Berlin', slots: [] });
  expect(off.windowEnd).toBe(off.windowStart);
});
