import type { Deps } from '../deps.js';
import { findWorkspace, type Workspace } from '../workspaces/workspaces.service.js';
import { fail } from '../shared/errors.js';
import { sha256Hex } from '../shared/crypto.js';
import { appointmentStore, type Appointment } from './appointments.model.js';
import { parseToken } from './tokens.js';
import { assertBookable, getBookingRules } from './availability.service.js';
import { cellStarts, cellStore } from './cells.model.js';
import { teamMail, visitorMail } from './mail.service.js';
import { planReminders } from './reminders.service.js';
import { getSettings } from './settings.service.js';
import { publishAppointment } from './events.service.js';
import { releaseLeft, reserveCells, withdrawConfirmed } from './staff.service.js';

// The visitor's manage link: a credential minted at confirmation, good for that one appointment until it has passed.

const HOUR = 3_600_000;
const notFound = () => fail('manage_token_not_found');

/** The appointment of a live manage token: known, and not yet over. */
async function resolve(deps: Deps, token: string): Promise<{ appointment: Appointment; workspace: Workspace }> {
  // A token of no known shape names nothing: answered without touching the engine.
  const ref = parseToken('manage', token);
  const appointment = ref && (await appointmentStore(deps.db).byManageToken(ref, sha256Hex(token)));
  if (!appointment) throw notFound();
  const end = appointment.scheduledEnd ?? appointment.scheduledAt;
  if (!end || end <= deps.clock.now()) throw notFound();
  const workspace = await findWorkspace(deps, appointment.workspaceId);
  if (!workspace) throw notFound();
  return { appointment, workspace };
}

async function view(deps: Deps, appointment: Appointment, workspace: Workspace) {
  const rules = await getBookingRules(deps, workspace.id);
  const now = deps.clock.now().getTime();
  const confirmed = appointment.status === 'CONFIRMED' && !!appointment.scheduledAt;
  return {
    id: appointment.id,
    status: appointment.status,
    scheduledAt: appointment.scheduledAt ? appointment.scheduledAt.toISOString() : null,
    durationMinutes: appointment.durationMinutes,
    timezone: appointment.timezone,
    rescheduleCount: appointment.rescheduleCount,
    canCancel: confirmed && appointment.scheduledAt!.getTime() - now >= rules.cancelNoticeHours * HOUR,
    canReschedule: confirmed && appointment.scheduledAt!.getTime() > now && appointment.rescheduleCount < rules.maxReschedules,
    workspace: { name: workspace.name, slug: workspace.slug },
    locale: appointment.locale ?? workspace.defaultLocale,
  };
}

export async function viewByManageToken(deps: Deps, token: string) {
  const { appointment, workspace } = await resolve(deps, token);
  return view(deps, appointment, workspace);
}

const notConfirmed = (a: Appointment) => fail('appointment_not_confirmed', `The appointment is ${a.status}; only a CONFIRMED appointment can be changed.`);

/** CONFIRMED and at least `cancelNoticeHours` ahead: cancelled, its time freed, reminders dropped, both sides told. */
export async function cancelByManageToken(deps: Deps, token: string, reason: string | null) {
  const { appointment, workspace } = await resolve(deps, token);
  if (appointment.status !== 'CONFIRMED' || !appointment.scheduledAt || !appointment.scheduledEnd) throw notConfirmed(appointment);
  const rules = await getBookingRules(deps, workspace.id);
  if (appointment.scheduledAt.getTime() - deps.clock.now().getTime() < rules.cancelNoticeHours * HOUR) {
    throw fail('too_late_to_cancel', `Appointments can be cancelled online until ${rules.cancelNoticeHours} hours before the start.`);
  }
  const cancelled = await withdrawConfirmed(deps, workspace, appointment, reason, 'visitor');
  await teamMail(deps, workspace, cancelled, 'customerCancelled', { declineReason: cancelled.cancelReason });
  return { id: cancelled.id, status: 'CANCELLED' as const };
}

/**
 * The visitor's move: the new start passes every rule a new request passes (hours, overrides, lead
 * time, window, buffers, the day's limit; its own current time does not count), at most
 * `maxReschedules` moves, and the same cell reservation as a staff confirm makes two racing moves to
 * one slot end with one winner and one 409 `slot_taken`.
 */
export async function rescheduleByManageToken(deps: Deps, token: string, requestedAt: Date) {
  const { appointment: current, workspace } = await resolve(deps, token);
  if (current.status !== 'CONFIRMED' || !current.scheduledAt || !current.scheduledEnd) throw notConfirmed(current);
  const rules = await getBookingRules(deps, workspace.id);
  if (current.rescheduleCount >= rules.maxReschedules) throw fail('reschedule_limit_reached', `An appointment can be moved at most ${rules.maxReschedules} times.`);
  if (requestedAt.getTime() === current.scheduledAt.getTime()) throw fail('manage_slot_taken', 'The appointment is already at this time.');
  await assertBookable(deps, await getSettings(deps, workspace.id), requestedAt, { ignore: current.id, taken: 'manage_slot_taken' });
  // The appointment keeps the duration it was booked with, whatever the plugin says now.
  const end = new Date(requestedAt.getTime() + current.durationMinutes * 60_000);
  const held = new Set(cellStarts(current.scheduledAt, current.scheduledEnd).map((d) => d.getTime()));
  const wanted = cellStarts(requestedAt, end);
  const hold = await reserveCells(deps, workspace.id, current.id, wanted.filter((d) => !held.has(d.getTime())));
  if (!hold) throw fail('manage_slot_taken');
  const moved = await appointmentStore(deps.db).rescheduleWithin(workspace.id, current.id, current.scheduledAt, requestedAt, end, rules.maxReschedules);
  if (!moved) {
    await cellStore(deps.db).undo(workspace.id, hold);
    const now = await appointmentStore(deps.db).byId(workspace.id, current.id);
    if (now && now.rescheduleCount >= rules.maxReschedules) throw fail('reschedule_limit_reached');
    throw fail('appointment_changed');
  }
  await releaseLeft(deps, workspace.id, current.id, held, wanted);
  await deps.cache.invalidateAvailability(workspace.id);
  await planReminders(deps, moved);
  await visitorMail(deps, workspace, moved, 'visitorRescheduled', 'visitor', { previousStart: current.scheduledAt.toISOString() });
  await teamMail(deps, workspace, moved, 'customerRescheduled', { previousStart: current.scheduledAt.toISOString() });
  await publishAppointment(deps, 'appointment.rescheduled', moved, 'visitor', current.scheduledAt);
  return view(deps, moved, workspace);
}
