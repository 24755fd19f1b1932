import type { Connection, Types } from 'mongoose';
import { tenantScope } from '../db/tenant-store.js';
import { Appointments, type AppointmentDoc } from './appointments.model.js';
import { scheduleKeys } from './schedule-keys.js';

/**
 * An upgrade (once per database, `upgradeOnce`): files the confirmed appointments stored before the schedule
 * keys under theirs. Only those ending after `since`: no read by key reaches further back (the calendar feed
 * goes back a month), and each one costs a write. Each is filed as one transition from what is stored, so a
 * move on another node in between is not undone. The number filed.
 */
export async function fileScheduleKeysOfEarlierVersions(db: Connection, since: Date): Promise<number> {
  const model = Appointments(db);
  const scope = tenantScope(model);
  const earlier = await model.find({ status: 'CONFIRMED', scheduledEnd: { $gt: since }, scheduledDay: null }, { _id: 1 }).lean<{ _id: Types.ObjectId }[]>();
  let filed = 0;
  for (const { _id } of earlier) {
    const done = await scope.transition(_id.toHexString(), async () => {
      const stored = await model.findOne({ _id }).lean<AppointmentDoc>();
      if (!stored?.scheduledAt || stored.scheduledDay) return false;
      await model.updateOne({ _id }, { $set: scheduleKeys(stored.scheduledAt) });
      return true;
    });
    if (done) filed += 1;
  }
  return filed;
}
