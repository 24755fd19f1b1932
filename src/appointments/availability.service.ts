import { DateTime } from 'luxon';
import type { Deps } from '../deps.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { fail, invalid, type ErrorName } from '../shared/errors.js';
import type { AvailabilityBound } from './appointments.schemas.js';
import { appointmentStore, type Appointment } from './appointments.model.js';
import { generateSlots, type Slot } from './appointments.slots.js';
import { bookingRulesStore, type BookingRules } from './rules.model.js';
import { getSettings, INACTIVE, type AppointmentSettings } from './settings.service.js';
import { availabilityTag } from '../cache/caches.js';

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
  // The whole local days the window and its buffers touch: every appointment a slot's buffers can meet, and every
  // one that starts on a slot's local day (the per-day count). Nothing further: each day read costs a query.
  const from = DateTime.fromJSDate(new Date(window.start.getTime() - pad), { zone: settings.timezone }).startOf('day').toJSDate();
  const to = DateTime.fromJSDate(new Date(window.end.getTime() + pad), { zone: settings.timezone }).endOf('day').toJSDate();
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

/**
 * How far past the booking-window ceiling of the moment it is computed a workspace's free slots are kept
 * computed, and so how long they serve: every read within it finds all of its own window among them.
 */
export const AVAILABILITY_HORIZON_MS = 60_000;

/** A slot as answered, with its instants for the range search. */
interface FreeSlot {
  startMs: number;
  endMs: number;
  answer: { start: string; end: string };
}

/** A workspace's availability as computed at one moment, for every window of the next AVAILABILITY_HORIZON_MS. */
interface Computed {
  settings: AppointmentSettings | null;
  /** The range the slots were computed for: the window at that moment, its end stretched by the horizon. */
  fromMs: number;
  toMs: number;
  slots: FreeSlot[];
}

/** What one kept slot costs in memory, roughly (two 24-character strings, an object, two numbers). */
const SLOT_BYTES = 200;

/**
 * The settings and free slots of the workspace, computed once and kept (`deps.cache.computed`) until a
 * change of its settings, rules or confirmed times (the services that make one call
 * `deps.cache.invalidateAvailability`) or the end of the horizon:
 * generating a year of round-the-clock 15-minute slots costs a tenth of a second of CPU or more, and an
 * anonymous visitor with the publishable key may ask for it as often as the rate limit lets it.
 */
async function computedAvailability(deps: Deps, workspaceId: string, now: Date): Promise<Computed> {
  const key = `availability:${workspaceId}`;
  const { value: kept, token } = deps.cache.computed.lookup<Computed>(key);
  if (kept && covers(kept, now)) return kept;
  const settings = await getSettings(deps, workspaceId);
  let computed: Computed = { settings, fromMs: now.getTime(), toMs: now.getTime() + AVAILABILITY_HORIZON_MS, slots: [] };
  if (settings?.enabled) {
    const window = effectiveWindow(settings, now);
    const stretched = { start: window.start, end: new Date(window.end.getTime() + AVAILABILITY_HORIZON_MS) };
    const slots = await freeSlots(deps, settings, await getBookingRules(deps, workspaceId), stretched);
    const answered = slots.map((slot) => ({ startMs: slot.start.getTime(), endMs: slot.end.getTime(), answer: { start: slot.start.toISOString(), end: slot.end.toISOString() } }));
    computed = { settings, fromMs: window.start.getTime(), toMs: stretched.end.getTime(), slots: answered };
  }
  deps.cache.computed.store(key, computed, 1_024 + computed.slots.length * SLOT_BYTES, [availabilityTag(workspaceId)], token);
  return computed;
}

/** Whether the kept computation holds the whole window of `now` (a clock set back, or moved past the horizon, needs a new one). */
function covers(computed: Computed, now: Date): boolean {
  if (!computed.settings?.enabled) return now.getTime() >= computed.fromMs && now.getTime() <= computed.toMs;
  const window = effectiveWindow(computed.settings, now);
  return window.start.getTime() >= computed.fromMs && window.end.getTime() <= computed.toMs;
}

/** The first index of `slots` whose `edge` is above `ms` (they are in order of start, all of one duration, so of end too). */
function firstAbove(slots: FreeSlot[], edge: 'startMs' | 'endMs', ms: number): number {
  let low = 0;
  let high = slots.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (slots[middle][edge] > ms) high = middle;
    else low = middle + 1;
  }
  return low;
}

export async function availability(deps: Deps, workspace: Workspace, fromBound?: AvailabilityBound, toBound?: AvailabilityBound) {
  const now = deps.clock.now();
  const { settings, slots } = await computedAvailability(deps, workspace.id, now);
  const timezone = settings?.timezone ?? 'UTC';
  const from = instantOf(fromBound, timezone, 'start');
  const to = instantOf(toBound, timezone, 'end');
  if (from && to && from.getTime() > to.getTime()) throw invalid([{ path: 'to', message: 'must not be before from' }]);
  if (!settings || !settings.enabled) {
    const base = settings
      ? { timezone: settings.timezone, slotDurationMinutes: settings.slotDurationMinutes, leadTimeHours: settings.leadTimeHours, bookingWindowDays: settings.bookingWindowDays, policyText: settings.policyText }
      : INACTIVE;
    return { enabled: false, ...base, slots: [], windowStart: now.toISOString(), windowEnd: now.toISOString() };
  }
  const window = effectiveWindow(settings, now, from, to);
  // The slots lying entirely inside the window: starting at or after its start, ending at or before its end.
  const first = firstAbove(slots, 'startMs', window.start.getTime() - 1);
  const last = firstAbove(slots, 'endMs', window.end.getTime());
  return {
    enabled: true,
    timezone: settings.timezone,
    slotDurationMinutes: settings.slotDurationMinutes,
    leadTimeHours: settings.leadTimeHours,
    bookingWindowDays: settings.bookingWindowDays,
    policyText: settings.policyText,
    slots: slots.slice(first, Math.max(first, last)).map((slot) => slot.answer),
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
