import type { Deps } from '../deps.js';
import { claimOnce } from '../db/once.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { appointmentStore, type Appointment } from './appointments.model.js';
import { getBookingRules } from './availability.service.js';
import { visitorMail } from './mail.service.js';

export const REMINDER_JOB = 'appointments.reminder';

export interface ReminderJobData {
  key: string;
  workspaceId: string;
  appointmentId: string;
  /** The start the reminder was planned for (ISO): a job left from before a move finds it changed and does nothing. */
  start: string;
  minutes: number;
}

/**
 * One Agenda job per configured reminder of a confirmed appointment, due `minutes` before its start.
 * Replaces whatever jobs the appointment had (a move replans them all); reminders whose time has
 * already come are not planned: a late "reminder" right after the confirmation would only repeat it.
 */
export async function planReminders(deps: Deps, appointment: Appointment): Promise<void> {
  try {
    await cancelReminders(deps, appointment.id);
    if (appointment.status !== 'CONFIRMED' || !appointment.scheduledAt) return;
    const now = deps.clock.now().getTime();
    const rules = await getBookingRules(deps, appointment.workspaceId);
    for (const minutes of new Set(rules.reminders)) {
      const at = new Date(appointment.scheduledAt.getTime() - minutes * 60_000);
      if (at.getTime() <= now) continue;
      const data: ReminderJobData = {
        key: `${appointment.id}:${minutes}`,
        workspaceId: appointment.workspaceId,
        appointmentId: appointment.id,
        start: appointment.scheduledAt.toISOString(),
        minutes,
      };
      await deps.jobs.enqueueUnique(REMINDER_JOB, { ...data }, 'key', { at });
    }
  } catch (error) {
    deps.logger.error({ err: error, appointmentId: appointment.id }, 'appointment reminders could not be planned');
  }
}

export async function cancelReminders(deps: Deps, appointmentId: string): Promise<void> {
  await deps.jobs.agenda.cancel({ name: REMINDER_JOB, data: { appointmentId } });
}

/**
 * The reminder job. Sends only for an appointment still CONFIRMED at the planned start and not yet
 * begun; the claim (a unique `<id>|<start>|<minutes>` record) lets exactly one run send, however many
 * workers pick the job up after a crash.
 */
export async function sendReminder(deps: Deps, data: ReminderJobData): Promise<void> {
  const store = appointmentStore(deps.db);
  const appointment = await store.byId(data.workspaceId, data.appointmentId);
  const start = new Date(data.start);
  if (!appointment || appointment.status !== 'CONFIRMED' || appointment.scheduledAt?.getTime() !== start.getTime()) return;
  if (start <= deps.clock.now()) return;
  // Once per (appointment, start, offset), whichever worker runs it: the claim, not a field on the appointment,
  // which a move of that same document could race with.
  if (!(await claimOnce(deps.db, `reminder:${data.appointmentId}|${data.start}|${data.minutes}`))) return;
  const workspace = await findWorkspace(deps, data.workspaceId);
  if (!workspace) return;
  // The manage token is stored hashed only, so the reminder points to the confirmation mail's link instead of repeating it.
  await visitorMail(deps, workspace, appointment, 'visitorReminder', 'team');
}
