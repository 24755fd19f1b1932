import type { Deps } from '../deps.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { fail, invalid } from '../shared/errors.js';
import { pageOf, type PageRequest } from '../shared/paging.js';
import { matchedBy, type PersonKeys } from '../shared/person-keys.js';
import { appointmentStore, type Appointment, type AppointmentFilter } from './appointments.model.js';
import { cellStarts, cellStore, CELL_MINUTES } from './cells.model.js';
import { sha256Hex } from '../shared/crypto.js';
import { mintToken } from './tokens.js';
import { manageUrl, visitorMail } from './mail.service.js';
import { cancelReminders, planReminders } from './reminders.service.js';
import { toPublicAppointment } from './requests.service.js';
import { publishAppointment } from './events.service.js';

export function toStaffAppointment(a: Appointment) {
  return {
    ...toPublicAppointment(a),
    visitorName: a.visitorName,
    visitorEmail: a.visitorEmail,
    visitorPhone: a.visitorPhone,
    visitorMessage: a.visitorMessage,
    visitorSessionId: a.visitorSessionId,
    externalId: a.externalId,
    identityVerified: a.identityVerified,
    visitorAttributes: a.visitorAttributes,
    cancelledAt: a.cancelledAt ? a.cancelledAt.toISOString() : null,
    cancelReason: a.cancelReason,
  };
}

export async function listForStaff(deps: Deps, workspaceId: string, filter: AppointmentFilter & PageRequest) {
  const request = { page: filter.page, limit: filter.limit, withTotal: filter.withTotal };
  const { items, total } = await appointmentStore(deps.db).list(workspaceId, { status: filter.status, q: filter.q, from: filter.from, to: filter.to }, request, deps.clock.now());
  return pageOf(request, items.map(toStaffAppointment), total);
}

/**
 * A person's bookings (the person timeline), newest first, at most `limit`: as the staff list answers them,
 * each with the keys that linked it.
 */
export async function appointmentsOfPerson(deps: Deps, workspaceId: string, keys: PersonKeys, limit: number) {
  const items = await appointmentStore(deps.db).ofPerson(workspaceId, keys, limit);
  return items.map((item) => {
    const fields = { externalId: item.identityVerified ? item.externalId : null, email: item.visitorEmail, visitorSessionId: item.visitorSessionId };
    return { ...toStaffAppointment(item), matchedBy: matchedBy(keys, fields) };
  });
}

async function mustFind(deps: Deps, workspaceId: string, id: string): Promise<Appointment> {
  const appointment = await appointmentStore(deps.db).byId(workspaceId, id);
  if (!appointment) throw fail('appointment_not_found');
  return appointment;
}

export async function getForStaff(deps: Deps, workspaceId: string, id: string) {
  return toStaffAppointment(await mustFind(deps, workspaceId, id));
}

const notPending = (a: Appointment) => fail('appointment_not_pending', `The appointment is ${a.status}; only PENDING requests can be answered.`);
const slotConflict = () => fail('appointment_overlap');

function assertStart(deps: Deps, start: Date): void {
  if (start.getTime() % (CELL_MINUTES * 60_000) !== 0) {
    throw invalid([{ path: 'scheduledAt', message: 'must be on a 5-minute boundary (seconds zero)' }], 'The start must be on a 5-minute boundary.');
  }
  if (start < deps.clock.now()) {
    throw invalid([{ path: 'scheduledAt', message: 'must not be in the past' }], 'The start is in the past.');
  }
}

/** A cell reserved this long ago by a call that never completed its state change is a leftover. */
const STALE_HOLD_MS = 2 * 60_000;

/**
 * Reserves the cells; when some are taken, removes those that are provably leftovers of an interrupted
 * call (a crash between reserving and the status change: the holder does not cover the cell with its
 * confirmed time, and the hold is older than any call takes) and tries once more. Real reservations,
 * including ones in flight, are never removed, so this cannot open a way to an overlap.
 */
export async function reserveCells(deps: Deps, workspaceId: string, appointmentId: string, starts: Date[]): Promise<string | null> {
  const cells = cellStore(deps.db);
  const now = deps.clock.now();
  const hold = await cells.reserve(workspaceId, appointmentId, starts, now);
  if (hold) return hold;
  let removed = false;
  for (const holder of await cells.holders(workspaceId, starts)) {
    if (now.getTime() - holder.reservedAt.getTime() < STALE_HOLD_MS) continue;
    const owner = await appointmentStore(deps.db).byId(workspaceId, holder.appointmentId);
    const covers = owner?.status === 'CONFIRMED' && owner.scheduledAt! <= holder.start && holder.start < owner.scheduledEnd!;
    if (covers) continue;
    deps.logger.warn({ workspaceId, appointmentId: holder.appointmentId, start: holder.start }, 'appointments: removing a leftover time reservation');
    await cells.removeCell(workspaceId, holder.start, holder.holdId);
    removed = true;
  }
  return removed ? cells.reserve(workspaceId, appointmentId, starts, now) : null;
}

/**
 * PENDING -> CONFIRMED. The time is first reserved cell by cell under a unique index, then the status
 * changes conditionally; whichever step loses a race undoes the reservation, so any number of
 * concurrent confirms on any number of nodes leaves at most one appointment on any instant.
 */
export async function confirm(deps: Deps, workspace: Workspace, id: string, scheduledAt?: Date) {
  const current = await mustFind(deps, workspace.id, id);
  if (current.status !== 'PENDING') throw notPending(current);
  const start = scheduledAt ?? current.requestedAt;
  assertStart(deps, start);
  const end = new Date(start.getTime() + current.durationMinutes * 60_000);
  const now = deps.clock.now();
  const cells = cellStore(deps.db);
  const hold = await reserveCells(deps, workspace.id, id, cellStarts(start, end));
  if (!hold) throw slotConflict();
  // The visitor's manage credential: shown once, in the confirmation mail's link.
  const manageToken = mintToken('manage', current.id);
  const confirmed = await appointmentStore(deps.db).confirm(workspace.id, id, start, end, now, sha256Hex(manageToken));
  if (!confirmed) {
    await cells.undo(workspace.id, hold);
    throw notPending((await appointmentStore(deps.db).byId(workspace.id, id)) ?? current);
  }
  // Its time is no longer free: the kept availability goes on every node before anyone is told.
  await deps.cache.invalidateAvailability(workspace.id);
  await planReminders(deps, confirmed);
  await visitorMail(deps, workspace, confirmed, 'visitorConfirmed', 'team', { manageUrl: manageUrl(deps, manageToken, confirmed.locale ?? workspace.defaultLocale) });
  await publishAppointment(deps, 'appointment.confirmed', confirmed, 'team');
  return toStaffAppointment(confirmed);
}

export async function decline(deps: Deps, workspace: Workspace, id: string, reason: string | null) {
  const current = await mustFind(deps, workspace.id, id);
  if (current.status !== 'PENDING') throw notPending(current);
  const declined = await appointmentStore(deps.db).decline(workspace.id, id, reason?.trim() || null, deps.clock.now());
  if (!declined) throw notPending((await appointmentStore(deps.db).byId(workspace.id, id)) ?? current);
  await cancelReminders(deps, id).catch((error: unknown) => deps.logger.error({ err: error, appointmentId: id }, 'reminders could not be removed'));
  await visitorMail(deps, workspace, declined, 'visitorDeclined', 'team');
  await publishAppointment(deps, 'appointment.declined', declined, 'team');
  return toStaffAppointment(declined);
}

/** CONFIRMED only. Reserves the cells of the new time it does not already hold, then moves, then frees the old ones. */
export async function reschedule(deps: Deps, workspace: Workspace, id: string, scheduledAt: Date) {
  const current = await mustFind(deps, workspace.id, id);
  if (current.status !== 'CONFIRMED' || !current.scheduledAt || !current.scheduledEnd) {
    throw fail('appointment_not_confirmed', `The appointment is ${current.status}; only CONFIRMED appointments can be rescheduled.`);
  }
  assertStart(deps, scheduledAt);
  if (scheduledAt.getTime() === current.scheduledAt.getTime()) {
    throw invalid([{ path: 'scheduledAt', message: 'must differ from the current start' }], 'The appointment is already at this time.');
  }
  const end = new Date(scheduledAt.getTime() + current.durationMinutes * 60_000);
  const held = new Set(cellStarts(current.scheduledAt, current.scheduledEnd).map((d) => d.getTime()));
  const wanted = cellStarts(scheduledAt, end);
  const cells = cellStore(deps.db);
  const hold = await reserveCells(deps, workspace.id, id, wanted.filter((d) => !held.has(d.getTime())));
  if (!hold) throw slotConflict();
  const moved = await appointmentStore(deps.db).reschedule(workspace.id, id, current.scheduledAt, scheduledAt, end);
  if (!moved) {
    await cells.undo(workspace.id, hold);
    throw fail('appointment_changed');
  }
  await releaseLeft(deps, workspace.id, id, held, wanted);
  await deps.cache.invalidateAvailability(workspace.id);
  await planReminders(deps, moved);
  await visitorMail(deps, workspace, moved, 'visitorRescheduled', 'team', { previousStart: current.scheduledAt.toISOString() });
  await publishAppointment(deps, 'appointment.rescheduled', moved, 'team', current.scheduledAt);
  return toStaffAppointment(moved);
}

/**
 * CONFIRMED -> CANCELLED by the team (the business calls it off): at any time, the visitor's notice rule is
 * theirs alone. A PENDING request is declined instead (409 `appointment_not_confirmed`).
 */
export async function cancelByStaff(deps: Deps, workspace: Workspace, id: string, reason: string | null) {
  const current = await mustFind(deps, workspace.id, id);
  const cancelled = await withdrawConfirmed(deps, workspace, current, reason, 'team');
  return toStaffAppointment(cancelled);
}

/**
 * Cancels a CONFIRMED appointment, whoever asks: its time is freed, its reminders dropped, the visitor gets the
 * withdrawal of the invite (with the reason), and `appointment.cancelled` is published naming who did it.
 */
export async function withdrawConfirmed(deps: Deps, workspace: Workspace, current: Appointment, reason: string | null, by: 'visitor' | 'team'): Promise<Appointment> {
  if (current.status !== 'CONFIRMED' || !current.scheduledAt || !current.scheduledEnd) {
    throw fail('appointment_not_confirmed', `The appointment is ${current.status}; only a CONFIRMED appointment can be cancelled.`);
  }
  const why = reason?.trim() || null;
  const cancelled = await appointmentStore(deps.db).cancelConfirmed(workspace.id, current.id, current.scheduledAt, why, deps.clock.now());
  if (!cancelled) throw fail('appointment_changed');
  await cellStore(deps.db).release(workspace.id, current.id, cellStarts(current.scheduledAt, current.scheduledEnd));
  // Its time is free again: the kept availability goes on every node.
  await deps.cache.invalidateAvailability(workspace.id);
  await cancelReminders(deps, current.id).catch((error: unknown) => deps.logger.error({ err: error, appointmentId: current.id }, 'reminders could not be removed'));
  await visitorMail(deps, workspace, cancelled, 'visitorCancelled', by, { declineReason: by === 'team' ? why : null });
  await publishAppointment(deps, 'appointment.cancelled', cancelled, by);
  return cancelled;
}

/** After a move: frees the cells of the old time that the new one does not cover. */
export async function releaseLeft(deps: Deps, workspaceId: string, id: string, held: Set<number>, wanted: Date[]): Promise<void> {
  const keep = new Set(wanted.map((d) => d.getTime()));
  await cellStore(deps.db).release(workspaceId, id, [...held].filter((t) => !keep.has(t)).map((t) => new Date(t)));
}
