import type { Deps } from '../deps.js';
import { claimOnce } from '../db/once.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { appointmentStore, type Appointment } from './appointments.model.js';
import { getBookingRules } from './availability.service.js';
import { visitorMail } from './mail.service.js';
import { MINUTE_MS, minuteOf, reminderStore, type PlannedReminder } from './reminders.model.js';

/** The sweep: one Agenda job, kept between runs, that sends the reminders fallen due since its last run. */
export const REMINDERS_DUE_JOB = 'appointments.reminders-due';
export const REMINDERS_SWEEP_EVERY_MS = 10_000;
/** Reminders planned before the sweep existed were one job each, still run by this name until they are gone. */
export const REMINDER_JOB = 'appointments.reminder';
/** The longest reminder (30 days): whatever fell due longer ago belongs to an appointment that has begun. */
const LONGEST_REMINDER_MINUTES = 43_200;

export interface ReminderJobData {
  key: string;
  workspaceId: string;
  appointmentId: string;
  /** The start the reminder was planned for (ISO): a reminder left from before a move finds it changed and does nothing. */
  start: string;
  minutes: number;
}

/**
 * One reminder per configured offset of a confirmed appointment, due `minutes` before its start; replaces
 * whatever the appointment had planned (a move replans them all). Reminders whose time has already come
 * are not planned: a late "reminder" right after the confirmation would only repeat it.
 */
export async function planReminders(deps: Deps, appointment: Appointment): Promise<void> {
  try {
    const planned: PlannedReminder[] = [];
    if (appointment.status === 'CONFIRMED' && appointment.scheduledAt) {
      const now = deps.clock.now().getTime();
      const start = appointment.scheduledAt;
      const rules = await getBookingRules(deps, appointment.workspaceId);
      for (const minutes of new Set(rules.reminders)) {
        const dueAt = new Date(start.getTime() - minutes * MINUTE_MS);
        if (dueAt.getTime() > now) planned.push({ workspaceId: appointment.workspaceId, appointmentId: appointment.id, start, minutes, dueAt });
      }
    }
    await reminderStore(deps.db).replace(appointment.id, planned);
  } catch (error) {
    deps.logger.error({ err: error, appointmentId: appointment.id }, 'appointment reminders could not be planned');
  }
}

export async function cancelReminders(deps: Deps, appointmentId: string): Promise<void> {
  await reminderStore(deps.db).replace(appointmentId, []);
}

/**
 * The sweep: sends every reminder due by now, minute by minute since the last sweep (after a stop, the
 * minutes missed, back to the longest reminder at most), and removes each once handled. The current
 * minute is swept again next time, for the reminders due later in it. Returns when to sweep next.
 */
export async function sendDueReminders(deps: Deps): Promise<Date> {
  const store = reminderStore(deps.db);
  const now = deps.clock.now();
  const current = minuteOf(now);
  const swept = await store.sweptUpTo();
  const from = swept === null ? current : Math.max(swept + 1, current - LONGEST_REMINDER_MINUTES);
  for (let minute = from; minute <= current; minute += 1) {
    for (const reminder of await store.dueIn(minute)) {
      if (reminder.dueAt > now) continue;
      await sendReminder(deps, {
        key: `${reminder.appointmentId}:${reminder.minutes}`,
        workspaceId: reminder.workspaceId,
        appointmentId: reminder.appointmentId,
        start: reminder.start.toISOString(),
        minutes: reminder.minutes,
      });
      await store.remove(reminder);
    }
    if (minute < current) await store.markSwept(minute);
  }
  // The first sweep ever: later ones start here.
  if (swept === null) await store.markSwept(current - 1);
  return new Date(now.getTime() + REMINDERS_SWEEP_EVERY_MS);
}

/**
 * One reminder. Sends only for an appointment still CONFIRMED at the planned start and not yet
 * begun; the claim (a unique `<id>|<start>|<minutes>` record) lets exactly one run send, however many
 * sweeps or workers handle it after a crash.
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
