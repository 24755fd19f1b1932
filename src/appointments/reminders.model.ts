import { Schema, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';

/** One reminder mail planned for a confirmed appointment: `minutes` before the `start` it was planned for. */
export interface PlannedReminder {
  workspaceId: string;
  appointmentId: string;
  start: Date;
  minutes: number;
  /** `start` minus `minutes`. */
  dueAt: Date;
}

/**
 * Planned reminders, each filed under the minute it falls due in (`dueMinute`, minutes since the epoch):
 * the sweep reads one minute's reminders by equality, which every engine narrows by its index (FerretDB
 * narrows nothing else), so its cost follows the reminders due, not the appointments booked. One Agenda
 * job per reminder cost the opposite: the queue read every planned reminder at each poll, every second.
 * Not tenant-scoped: the sweep is the whole server's, across workspaces; each row names its workspace.
 */
interface ReminderDoc {
  /** `<appointmentId>:<minutes>`: planning the same reminder twice keeps one. */
  _id: string;
  workspaceId: string;
  appointmentId: string;
  start: Date;
  minutes: number;
  dueAt: Date;
  dueMinute: number;
}

const reminderSchema = new Schema<ReminderDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    appointmentId: { type: String, required: true },
    start: { type: Date, required: true },
    minutes: { type: Number, required: true },
    dueAt: { type: Date, required: true },
    dueMinute: { type: Number, required: true },
  },
  { collection: 'appointment_reminders', versionKey: false },
);
reminderSchema.index({ dueMinute: 1 });
reminderSchema.index({ appointmentId: 1 });

/** Where the sweep has got to: every minute up to `minute` has been swept. One document. */
interface SweepDoc {
  _id: string;
  minute: number;
}

const sweepSchema = new Schema<SweepDoc>({ _id: { type: String, required: true }, minute: { type: Number, required: true } }, { collection: 'appointment_reminder_sweep', versionKey: false });

const Reminders = defineModel('AppointmentReminder', reminderSchema);
const Sweeps = defineModel('AppointmentReminderSweep', sweepSchema);

export const MINUTE_MS = 60_000;
export const minuteOf = (at: Date): number => Math.floor(at.getTime() / MINUTE_MS);
const SWEEP_ID = 'reminders';

const toReminder = (doc: ReminderDoc): PlannedReminder => ({ workspaceId: doc.workspaceId, appointmentId: doc.appointmentId, start: doc.start, minutes: doc.minutes, dueAt: doc.dueAt });

export function reminderStore(db: Connection) {
  const model = Reminders(db);
  const sweeps = Sweeps(db);
  return {
    /** The appointment's reminders become `planned` (none: it has none left). */
    async replace(appointmentId: string, planned: PlannedReminder[]): Promise<void> {
      await model.deleteMany({ appointmentId });
      if (planned.length === 0) return;
      await model.insertMany(
        planned.map((reminder) => ({ _id: `${appointmentId}:${reminder.minutes}`, ...reminder, dueMinute: minuteOf(reminder.dueAt) })),
        { ordered: false },
      );
    },
    async of(appointmentId: string): Promise<PlannedReminder[]> {
      return (await model.find({ appointmentId }).lean<ReminderDoc[]>()).map(toReminder);
    },
    /** The reminders due in one minute. */
    async dueIn(minute: number): Promise<PlannedReminder[]> {
      return (await model.find({ dueMinute: minute }).lean<ReminderDoc[]>()).map(toReminder);
    },
    async remove(reminder: PlannedReminder): Promise<void> {
      await model.deleteOne({ _id: `${reminder.appointmentId}:${reminder.minutes}`, start: reminder.start });
    },
    /** The last minute swept, or null before the first sweep. */
    async sweptUpTo(): Promise<number | null> {
      return (await sweeps.findById(SWEEP_ID).lean<SweepDoc>())?.minute ?? null;
    },
    async markSwept(minute: number): Promise<void> {
      await sweeps.updateOne({ _id: SWEEP_ID }, { $set: { minute } }, { upsert: true });
    },
  };
}
