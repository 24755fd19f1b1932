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
 * Each range's local start and end are resolved to instants in the time zone by luxon, and slots are
 * laid every `durationMinutes` of real elapsed time from the range start. Across a DST shift inside a
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
      const rangeStart = localInstant(day, minutesOf(startText), timezone, 'first');
      const rangeEnd = localInstant(day, minutesOf(endText), timezone, 'last');
      for (let t = rangeStart; t + durationMs <= rangeEnd; t += durationMs) {
        if (t >= from.getTime() && t + durationMs <= to.getTime()) slots.push({ start: new Date(t), end: new Date(t + durationMs) });
      }
    }
    day = day.plus({ days: 1 });
  }
  slots.sort((a, b) => a.start.getTime() - b.start.getTime());
  // Ranges never overlap (settings validation), so this only guards against pathological input.
  return slots.filter((slot, i) => i === 0 || slot.start.getTime() !== slots[i - 1].start.getTime());
}

/**
 * The instant of local wall time `minutes` after midnight of `day` ("24:00" is the next midnight).
 * A wall time that occurs twice (fall back) resolves to its first occurrence for a range start and to
 * its second for a range end, so the range covers both; one that does not occur (spring forward)
 * resolves to the instant right after the gap.
 */
function localInstant(day: DateTime, minutes: number, timezone: string, which: 'first' | 'last'): number {
  if (minutes === 24 * 60) return day.plus({ days: 1 }).startOf('day').toMillis();
  const wall = { year: day.year, month: day.month, day: day.day, hour: Math.floor(minutes / 60), minute: minutes % 60 };
  const zone = IANAZone.create(timezone);
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const offsets = new Set([zone.offset(naive - DAY_MS), zone.offset(naive), zone.offset(naive + DAY_MS)]);
  const matches = [...offsets].map((offset) => naive - offset * 60_000).filter((ts) => zone.offset(ts) * 60_000 === naive - ts);
  if (matches.length === 0) return DateTime.fromObject(wall, { zone: timezone }).toMillis();
  return which === 'first' ? Math.min(...matches) : Math.max(...matches);
}

const DAY_MS = 86_400_000;
