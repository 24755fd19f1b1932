import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { failure, newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { availability } from '../../src/appointments/availability.service.js';
import { confirm, decline, getForStaff, listForStaff, reschedule } from '../../src/appointments/staff.service.js';
import { cellStarts, cellStore } from '../../src/appointments/cells.model.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { bookService, configureService, slotStarts } from './service-helpers.js';

// The staff transitions PENDING -> CONFIRMED | REJECTED, CONFIRMED -> CONFIRMED (moved), and the time reservation behind them.
const NOW = new Date('2025-06-02T06:00:00Z');
const clock = new ManualClock(NOW);
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices({ clock });
});
afterAll(async () => {
  await services.close();
});

async function freshWorkspace(): Promise<Workspace> {
  clock.set(NOW);
  const { workspace } = await newWorkspace(services.deps);
  await configureService(services.deps, workspace, { bookingWindowDays: 7 });
  return workspace;
}

const at = (iso: string) => new Date(iso);
const book = (ws: Workspace, requestedAt: string, extra?: { visitorPhone?: string; visitorMessage?: string }) => bookService(services.deps, ws, requestedAt, extra);
const freeStartsOn3June = async (ws: Workspace) => slotStarts(await availability(services.deps, ws, undefined, { instant: at('2025-06-03T23:59:00Z') }));

test('list: newest first, filtered by status, paginated', async () => {
  const ws = await freshWorkspace();
  const a = await book(ws, '2025-06-03T09:00:00Z');
  clock.advance(1000);
  const b = await book(ws, '2025-06-03T10:00:00Z', { visitorPhone: '+1 555', visitorMessage: 'Hi' });
  clock.advance(1000);
  const c = await book(ws, '2025-06-03T11:00:00Z');
  await confirm(services.deps, ws, b.id);
  const all = await listForStaff(services.deps, ws.id, { page: 1, limit: 50 });
  expect(all.items.map((i) => i.id)).toEqual([c.id, b.id, a.id]);
  expect(all.items[1]).toMatchObject({ status: 'CONFIRMED', visitorName: 'Ada Lovelace', visitorEmail: 'ada@example.com', visitorPhone: '+1 555', visitorMessage: 'Hi' });
  const pending = await listForStaff(services.deps, ws.id, { status: 'PENDING', page: 2, limit: 1 });
  expect(pending.items.map((i) => i.id)).toEqual([a.id]);
  expect(pending.pageInfo).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2, hasNext: false, hasPrev: true });
});

describe('confirm', () => {
  test('PENDING becomes CONFIRMED at the requested start; confirming again is appointment_not_pending', async () => {
    const ws = await freshWorkspace();
    const booked = await book(ws, '2025-06-03T10:00:00Z');
    clock.advance(60_000);
    const confirmed = await confirm(services.deps, ws, booked.id);
    expect(confirmed).toMatchObject({ status: 'CONFIRMED', scheduledAt: '2025-06-03T10:00:00.000Z', respondedAt: '2025-06-02T06:01:00.000Z', rescheduleCount: 0 });
    await failure(confirm(services.deps, ws, booked.id), 'appointment_not_pending');
  });

  test('another start may be chosen; overlaps with a confirmed appointment are appointment_overlap, touching is fine', async () => {
    const ws = await freshWorkspace();
    const first = await book(ws, '2025-06-03T10:00:00Z');
    const second = await book(ws, '2025-06-03T10:00:00Z');
    const third = await book(ws, '2025-06-03T10:00:00Z');
    expect((await confirm(services.deps, ws, first.id, at('2025-06-03T12:00:00Z'))).scheduledAt).toBe('2025-06-03T12:00:00.000Z');
    await failure(confirm(services.deps, ws, second.id, at('2025-06-03T12:55:00Z')), 'appointment_overlap');
    await failure(confirm(services.deps, ws, second.id, at('2025-06-03T11:05:00Z')), 'appointment_overlap');
    expect((await confirm(services.deps, ws, second.id, at('2025-06-03T13:00:00Z'))).status).toBe('CONFIRMED');
    expect((await confirm(services.deps, ws, third.id, at('2025-06-03T11:00:00Z'))).status).toBe('CONFIRMED');
    // The failed attempts left nothing behind: 10:00 is still free.
    expect(await freeStartsOn3June(ws)).toContain('2025-06-03T10:00:00.000Z');
  });

  test('a start in the past or off the 5-minute grid is refused with a scheduledAt issue', async () => {
    const ws = await freshWorkspace();
    const booked = await book(ws, '2025-06-03T10:00:00Z');
    for (const start of ['2025-06-01T10:00:00Z', '2025-06-03T10:02:00Z']) {
      const refused = await failure(confirm(services.deps, ws, booked.id, at(start)), 'validation_failed');
      expect(refused.issues?.map((issue) => issue.path)).toEqual(['scheduledAt']);
    }
    clock.set(at('2025-06-03T11:00:00Z')); // the requested start has passed
    await failure(confirm(services.deps, ws, booked.id), 'validation_failed');
    // Nothing was changed by the refusals.
    expect((await getForStaff(services.deps, ws.id, booked.id)).status).toBe('PENDING');
  });

  test('unknown ids, malformed ids and ids of another workspace are appointment_not_found', async () => {
    const ws = await freshWorkspace();
    const other = await freshWorkspace();
    const foreign = await book(other, '2025-06-03T10:00:00Z');
    await failure(confirm(services.deps, ws, foreign.id), 'appointment_not_found');
    await failure(decline(services.deps, ws, '0123456789abcdef01234567', null), 'appointment_not_found');
    await failure(confirm(services.deps, ws, 'nonsense'), 'appointment_not_found');
    await failure(getForStaff(services.deps, ws.id, foreign.id), 'appointment_not_found');
    await failure(reschedule(services.deps, ws, foreign.id, at('2025-06-03T12:00:00Z')), 'appointment_not_found');
    expect((await getForStaff(services.deps, other.id, foreign.id)).status).toBe('PENDING');
  });
});

test('decline: REJECTED with the reason; only PENDING requests', async () => {
  const ws = await freshWorkspace();
  const booked = await book(ws, '2025-06-03T10:00:00Z');
  const declined = await decline(services.deps, ws, booked.id, 'We are closed for inventory.');
  expect(declined).toMatchObject({ status: 'REJECTED', declineReason: 'We are closed for inventory.', scheduledAt: null, respondedAt: NOW.toISOString() });
  await failure(decline(services.deps, ws, booked.id, null), 'appointment_not_pending');
  await failure(confirm(services.deps, ws, booked.id), 'appointment_not_pending');
  const noReason = await book(ws, '2025-06-03T10:00:00Z');
  expect((await decline(services.deps, ws, noReason.id, null)).declineReason).toBeNull();
  const blank = await book(ws, '2025-06-03T10:00:00Z');
  expect((await decline(services.deps, ws, blank.id, '   ')).declineReason).toBeNull();
});

describe('reschedule', () => {
  test('moves a confirmed appointment, counts the moves, frees the old time', async () => {
    const ws = await freshWorkspace();
    const booked = await book(ws, '2025-06-03T10:00:00Z');
    await confirm(services.deps, ws, booked.id);
    // Overlapping its own current time is fine.
    const moved = await reschedule(services.deps, ws, booked.id, at('2025-06-03T10:30:00Z'));
    expect(moved).toMatchObject({ status: 'CONFIRMED', scheduledAt: '2025-06-03T10:30:00.000Z', rescheduleCount: 1, requestedAt: '2025-06-03T10:00:00.000Z' });
    const again = await reschedule(services.deps, ws, booked.id, at('2025-06-03T14:00:00Z'));
    expect(again).toMatchObject({ scheduledAt: '2025-06-03T14:00:00.000Z', rescheduleCount: 2 });
    // 10:00 and 11:00 are free again: another request can be confirmed there.
    const next = await book(ws, '2025-06-03T10:00:00Z');
    expect((await confirm(services.deps, ws, next.id, at('2025-06-03T10:30:00Z'))).status).toBe('CONFIRMED');
    const slots = await freeStartsOn3June(ws);
    expect(slots).not.toContain('2025-06-03T14:00:00.000Z');
    expect(slots).toContain('2025-06-03T12:00:00.000Z');
  });

  test('onto another confirmed appointment is appointment_overlap; PENDING cannot be rescheduled; same start and past are refused', async () => {
    const ws = await freshWorkspace();
    const a = await book(ws, '2025-06-03T10:00:00Z');
    const b = await book(ws, '2025-06-03T12:00:00Z');
    const pending = await book(ws, '2025-06-03T15:00:00Z');
    await confirm(services.deps, ws, a.id);
    await confirm(services.deps, ws, b.id);
    await failure(reschedule(services.deps, ws, a.id, at('2025-06-03T11:30:00Z')), 'appointment_overlap');
    // The failed move kept a's time reserved and left b's alone.
    const check = await book(ws, '2025-06-03T15:00:00Z');
    await failure(confirm(services.deps, ws, check.id, at('2025-06-03T10:30:00Z')), 'appointment_overlap');
    await failure(reschedule(services.deps, ws, pending.id, at('2025-06-03T16:00:00Z')), 'appointment_not_confirmed');
    const same = await failure(reschedule(services.deps, ws, a.id, at('2025-06-03T10:00:00Z')), 'validation_failed');
    expect(same.issues?.[0].path).toBe('scheduledAt');
    await failure(reschedule(services.deps, ws, a.id, at('2025-06-01T10:00:00Z')), 'validation_failed');
    expect((await getForStaff(services.deps, ws.id, a.id)).scheduledAt).toBe('2025-06-03T10:00:00.000Z');
  });
});

test('leftovers of an interrupted confirm (reserved, never confirmed) stop blocking once stale; fresh ones keep blocking', async () => {
  const ws = await freshWorkspace();
  const interrupted = await book(ws, '2025-06-03T10:00:00Z');
  const other = await book(ws, '2025-06-03T10:00:00Z');
  const cells = cellStarts(at('2025-06-03T10:00:00Z'), at('2025-06-03T11:00:00Z'));
  // As if a node died between reserving the time and changing the status.
  expect(await cellStore(services.deps.db).reserve(ws.id, interrupted.id, cells, clock.now())).not.toBeNull();
  await failure(confirm(services.deps, ws, other.id), 'appointment_overlap');
  clock.advance(3 * 60_000);
  expect((await confirm(services.deps, ws, other.id)).status).toBe('CONFIRMED');
  // A real confirmed appointment is never treated as a leftover, however old.
  clock.advance(60 * 60_000);
  await failure(confirm(services.deps, ws, interrupted.id), 'appointment_overlap');
});
