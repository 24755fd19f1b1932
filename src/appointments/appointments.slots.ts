import { DateTime, IANAZone } from 'luxon';
import type { BusinessHours, Weekday } from './settings.model.js';
import type { DateOverrides } from './rules.model.js';

export interface Slot {
  start: Date;
  end: Date;
}

const LUXON_WEEKDAY: Record<number, Weekday> = { 1: 'mon', 2: 'tue', 3: 'wed', 4: 'thu', 5: 'fri', 6: 'sat', 7: 'sun' };

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

/**
 * Slots of the business hours between `from` and `to` (a slot is kept when it lies entirely inside),
 * in chronological order. `overrides` replace the hours of single local dates.
 *
 * Each range's local start and end are resolved to instants in the time zone (`localInstant`), and slots
 * are laid every `durationMinutes` of real elapsed time from the range start. Across a DST shift inside a
 * range, the range is simply one hour shorter or longer: no instant is listed twice and none is lost.
 */
export function generateSlots(hours: BusinessHours, timezone: string, durationMinutes: number, from: Date, to: Date, overrides: DateOverrides = {}): Slot[] {
  if (to.getTime() <= from.getTime()) return [];
  const durationMs = durationMinutes * 60_000;
  const slots: Slot[] = [];
  // One day of margin each side: a range of a neighbouring local day may reach into the window.
  let day = DateTime.fromJSDate(from, { zone: timezone }).startOf('day').minus({ days: 1 });
  const lastDay = DateTime.fromJSDate(to, { zone: timezone }).startOf('day').plus({ days: 1 });
  while (day <= lastDay) {
    // A date override replaces the weekday's hours of that local date (an empty list closes it).
    const ranges = overrides[day.toISODate()!] ?? hours[LUXON_WEEKDAY[day.weekday]] ?? [];
    for (const [startText, endText] of ranges) {
      const rangeStart = localInstant(day, minutesOf(startText), timezone);
      const rangeEnd = localInstant(day, minutesOf(endText), timezone);
      for (let t = rangeStart; t + durationMs <= rangeEnd; t += durationMs) {
        if (t >= from.getTime() && t + durationMs <= to.getTime()) slots.push({ start: new Date(t), end: new Date(t + durationMs) });
      }
    }
    day = day.plus({ days: 1 });
  }
  slots.sort((a, b) => a.start.getTime() - b.start.getTime());
  // Validated ranges never overlap and localInstant keeps their order, so this only guards against
  // pathological input: a slot may never overlap the one before it.
  const kept: Slot[] = [];
  for (const slot of slots) if (kept.length === 0 || slot.start.getTime() >= kept[kept.length - 1].end.getTime()) kept.push(slot);
  return kept;
}

/**
 * The instant a range boundary stands for: the first instant at which the zone's clocks show the wall
 * time `minutes` after midnight of `day`, or a later one ("24:00" is the next day's "00:00").
 * Start and end of every range follow this one rule, so ranges that touch on paper meet at one instant
 * and ranges keep their order (no two overlap) whatever the clocks do:
 * - a wall time that occurs twice (fall back) is its first occurrence, so a range ending after the
 *   repeated hour holds both passes of it from its own start on, each instant once (a range ending
 *   inside that hour stops in the first pass: the price of touching ranges meeting at one instant);
 * - a wall time that never occurs (spring forward) is the instant the clocks jump over it.
 */
function localInstant(day: DateTime, minutes: number, timezone: string): number {
  const date = minutes === MINUTES_PER_DAY ? day.plus({ days: 1 }) : day;
  const wall = { year: date.year, month: date.month, day: date.day, hour: Math.floor(minutes / 60) % 24, minute: minutes % 60 };
  const target = DateTime.fromObject(wall, { zone: 'utc' }).toMillis();
  const zone = IANAZone.create(timezone);
  const resolved = DateTime.fromObject(wall, { zone });
  if (wallClock(resolved) === target) return Math.min(...resolved.getPossibleOffsets().map((dt) => dt.toMillis()));
  // Skipped: luxon has moved it forward by the whole gap (02:30 -> 03:30 CEST), past the jump itself.
  // Around a gap the wall clock only runs forward, so the jump is found by bisection: `before` shows an
  // earlier wall time than the target, `after` the target or a later one, until they are one millisecond apart.
  const clockAt = (ms: number) => wallClock(DateTime.fromMillis(ms, { zone }));
  let after = resolved.toMillis();
  let reach = Math.max(wallClock(resolved) - target, 1);
  while (clockAt(after - reach) >= target) reach *= 2;
  let before = after - reach;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (clockAt(middle) >= target) after = middle;
    else before = middle;
  }
  return after;
}

/** The wall time an instant shows in its zone, as a number that orders like wall times do. */
const wallClock = (dt: DateTime) => dt.setZone('utc', { keepLocalTime: true }).toMillis();

const MINUTES_PER_DAY = 24 * 60;
