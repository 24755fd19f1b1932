import type { Deps } from '../deps.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { fail } from '../shared/errors.js';
import { appointmentStore } from './appointments.model.js';
import { generateSlots, type Slot } from './appointments.slots.js';
import { getSettings, INACTIVE, type AppointmentSettings } from './settings.service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Window {
  start: Date;
  end: Date;
}

/** The bookable range: [now + lead time, now + booking window], narrowed (never widened) by from/to. */
function effectiveWindow(settings: AppointmentSettings, now: Date, from?: Date, to?: Date): Window {
  const floor = new Date(now.getTime() + settings.leadTimeHours * HOUR);
  const ceiling = new Date(now.getTime() + settings.bookingWindowDays * DAY);
  const start = from && from > floor ? from : floor;
  let end = to && to < ceiling ? to : ceiling;
  if (end < start) end = start;
  return { start, end };
}

async function freeSlots(deps: Deps, settings: AppointmentSettings, window: Window): Promise<Slot[]> {
  const slots = generateSlots(settings.businessHours, settings.timezone, settings.slotDurationMinutes, window.start, window.end);
  if (slots.length === 0) return slots;
  const taken = await appointmentStore(deps.db).confirmedOverlapping(settings.workspaceId, window.start, window.end);
  return slots.filter((slot) => !taken.some((a) => a.scheduledAt! < slot.end && a.scheduledEnd! > slot.start));
}

export async function availability(deps: Deps, workspace: Workspace, from?: Date, to?: Date) {
  const settings = await getSettings(deps, workspace.id);
  const now = deps.clock.now();
  if (!settings || !settings.enabled) {
    const base = settings
      ? { timezone: settings.timezone, slotDurationMinutes: settings.slotDurationMinutes, leadTimeHours: settings.leadTimeHours, bookingWindowDays: settings.bookingWindowDays, policyText: settings.policyText }
      : INACTIVE;
    return { enabled: false, ...base, slots: [], windowStart: now.toISOString(), windowEnd: now.toISOString() };
  }
  const window = effectiveWindow(settings, now, from, to);
  const slots = await freeSlots(deps, settings, window);
  return {
    enabled: true,
    timezone: settings.timezone,
    slotDurationMinutes: settings.slotDurationMinutes,
    leadTimeHours: settings.leadTimeHours,
    bookingWindowDays: settings.bookingWindowDays,
    policyText: settings.policyText,
    slots: slots.map((slot) => ({ start: slot.start.toISOString(), end: slot.end.toISOString() })),
    windowStart: window.start.toISOString(),
    windowEnd: window.end.toISOString(),
  };
}

/**
 * Re-validates a requested start at submission time. Each failure names the rule that refused it, in
 * this order: plugin off, past, lead time, booking window, not a slot of the business hours, taken by a
 * confirmed appointment.
 */
export async function assertBookable(deps: Deps, settings: AppointmentSettings | null, requestedAt: Date): Promise<AppointmentSettings> {
  if (!settings || !settings.enabled) throw fail('appointments_disabled');
  const now = deps.clock.now();
  const durationMs = settings.slotDurationMinutes * 60_000;
  const end = new Date(requestedAt.getTime() + durationMs);
  const window = effectiveWindow(settings, now);
  if (requestedAt < now) throw fail('slot_in_past');
  if (requestedAt < window.start) throw fail('slot_in_lead_time', `The requested slot is inside the minimum notice of ${settings.leadTimeHours} hours.`);
  if (end > window.end) throw fail('slot_outside_booking_window', `The requested slot is beyond the booking window of ${settings.bookingWindowDays} days.`);
  const candidates = generateSlots(settings.businessHours, settings.timezone, settings.slotDurationMinutes, requestedAt, end);
  if (!candidates.some((slot) => slot.start.getTime() === requestedAt.getTime())) {
    throw fail('slot_outside_business_hours');
  }
  const free = await freeSlots(deps, settings, { start: requestedAt, end });
  if (free.length === 0) throw fail('slot_taken');
  return settings;
}
