import { DateTime } from 'luxon';
import type { Deps } from '../deps.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { fail, invalid, type ErrorName } from '../shared/errors.js';
import type { AvailabilityBound } from './appointments.schemas.js';
import { appointmentStore, type Appointment } from './appointments.model.js';
import { generateSlots, type Slot } from './appointments.slots.js';
import { bookingRulesStore, type BookingRules } from './rules.model.js';
import { getSettings, INACTIVE, type AppointmentSettings } from './settings.service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;

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

export async function getBookingRules(deps: Deps, workspaceId: string): Promise<BookingRules> {
  return bookingRulesStore(deps.db).get(workspaceId);
}

/** The local date (plugin zone) of an instant: the unit of `maxPerDay`, whatever DST does to its length. */
const localDate = (instant: Date, timezone: string) => DateTime.fromJSDate(instant, { zone: timezone }).toISODate()!;

/**
 * Slots of the window that a visitor may book: on the hours (and date overrides), not overlapping a
 * confirmed appointment widened by the buffers (this slot's before-buffer and the other's after-buffer,
 * and the other way round: each appointment holds its own buffers), on a local day below `maxPerDay`.
 * `ignore` is the appointment being moved: its own time does not count against it.
 */
async function freeSlots(deps: Deps, settings: AppointmentSettings, rules: BookingRules, window: Window, ignore?: string): Promise<Slot[]> {
  const slots = generateSlots(settings.businessHours, settings.timezone, settings.slotDurationMinutes, window.start, window.end, rules.dateOverrides);
  if (slots.length === 0) return slots;
  const pad = (rules.bufferBeforeMinutes + rules.bufferAfterMinutes) * MINUTE;
  // Whole local days around the window, for the per-day count.
  const from = DateTime.fromJSDate(new Date(window.start.getTime() - pad), { zone: settings.timezone }).startOf('day').minus({ days: 1 }).toJSDate();
  const to = DateTime.fromJSDate(new Date(window.end.getTime() + pad), { zone: settings.timezone }).endOf('day').plus({ days: 1 }).toJSDate();
  const taken = (await appointmentStore(deps.db).confirmedOverlapping(settings.workspaceId, from, to)).filter((a) => a.id !== ignore);
  const perDay = new Map<string, number>();
  for (const a of taken) perDay.set(localDate(a.scheduledAt!, settings.timezone), (perDay.get(localDate(a.scheduledAt!, settings.timezone)) ?? 0) + 1);
  return slots.filter((slot) => !conflicts(slot, taken, rules) && (rules.maxPerDay === null || (perDay.get(localDate(slot.start, settings.timezone)) ?? 0) < rules.maxPerDay));
}

function conflicts(slot: Slot, taken: Appointment[], rules: BookingRules): boolean {
  const start = slot.start.getTime() - rules.bufferBeforeMinutes * MINUTE;
  const end = slot.end.getTime() + rules.bufferAfterMinutes * MINUTE;
  return taken.some((a) => a.scheduledAt!.getTime() - rules.bufferBeforeMinutes * MINUTE < end && a.scheduledEnd!.getTime() + rules.bufferAfterMinutes * MINUTE > start);
}

/** A query bound as an instant: a day of the workspace's zone starts at its midnight (`from`) or ends at the next (`to`). */
function instantOf(bound: AvailabilityBound | undefined, timezone: string, edge: 'start' | 'end'): Date | undefined {
  if (!bound) return undefined;
  if ('instant' in bound) return bound.instant;
  const day = DateTime.fromISO(bound.day, { zone: timezone });
  return (edge === 'start' ? day : day.plus({ days: 1 })).toJSDate();
}

export async function availability(deps: Deps, workspace: Workspace, fromBound?: AvailabilityBound, toBound?: AvailabilityBound) {
  const settings = await getSettings(deps, workspace.id);
  const timezone = settings?.timezone ?? 'UTC';
  const from = instantOf(fromBound, timezone, 'start');
  const to = instantOf(toBound, timezone, 'end');
  if (from && to && from.getTime() > to.getTime()) throw invalid([{ path: 'to', message: 'must not be before from' }]);
  const now = deps.clock.now();
  if (!settings || !settings.enabled) {
    const base = settings
      ? { timezone: settings.timezone, slotDurationMinutes: settings.slotDurationMinutes, leadTimeHours: settings.leadTimeHours, bookingWindowDays: settings.bookingWindowDays, policyText: settings.policyText }
      : INACTIVE;
    return { enabled: false, ...base, slots: [], windowStart: now.toISOString(), windowEnd: now.toISOString() };
  }
  const window = effectiveWindow(settings, now, from, to);
  const slots = await freeSlots(deps, settings, await getBookingRules(deps, workspace.id), window);
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
 * this order: plugin off, past, lead time, booking window, not a slot of the business hours (or of the
 * date's override), taken by a confirmed appointment, its buffers or the day's limit. `ignore` is the
 * appointment being moved; `taken` the error name of the last rule (the visitor's move answers 409).
 */
export async function assertBookable(
  deps: Deps,
  settings: AppointmentSettings | null,
  requestedAt: Date,
  options: { ignore?: string; taken?: ErrorName } = {},
): Promise<AppointmentSettings> {
  if (!settings || !settings.enabled) throw fail('appointments_disabled');
  const rules = await getBookingRules(deps, settings.workspaceId);
  const now = deps.clock.now();
  const durationMs = settings.slotDurationMinutes * 60_000;
  const end = new Date(requestedAt.getTime() + durationMs);
  const window = effectiveWindow(settings, now);
  if (requestedAt < now) throw fail('slot_in_past');
  if (requestedAt < window.start) throw fail('slot_in_lead_time', `The requested slot is inside the minimum notice of ${settings.leadTimeHours} hours.`);
  if (end > window.end) throw fail('slot_outside_booking_window', `The requested slot is beyond the booking window of ${settings.bookingWindowDays} days.`);
  const candidates = generateSlots(settings.businessHours, settings.timezone, settings.slotDurationMinutes, requestedAt, end, rules.dateOverrides);
  if (!candidates.some((slot) => slot.start.getTime() === requestedAt.getTime())) {
    throw fail('slot_outside_business_hours');
  }
  const free = await freeSlots(deps, settings, rules, { start: requestedAt, end }, options.ignore);
  if (free.length === 0) throw fail(options.taken ?? 'slot_taken');
  return settings;
}
