import { DateTime } from 'luxon';

/**
 * The keys a scheduled appointment is filed under, so that reads of a time range match it by equality:
 * FerretDB 1.24 hands only equality filters on top-level scalars to PostgreSQL and decodes everything a
 * filter lets through, so a range filter alone (`scheduledAt: {$gte, $lt}`) decodes every appointment of the
 * workspace, while `scheduledDay: '2026-11-27'` decodes that day's. UTC dates, not the plugin zone's: the
 * zone may change after an appointment is filed, a UTC date never does, and the readers widen their range
 * to whole local days themselves.
 */
export interface ScheduleKeys {
  /** The UTC date of the start, `YYYY-MM-DD`. */
  scheduledDay: string;
  /** The UTC month of the start, `YYYY-MM`: one query for a month a long range covers whole. */
  scheduledMonth: string;
}

export function scheduleKeys(start: Date): ScheduleKeys {
  const utc = DateTime.fromJSDate(start, { zone: 'utc' });
  return { scheduledDay: utc.toISODate()!, scheduledMonth: utc.toFormat('yyyy-MM') };
}

/**
 * The longest an appointment lasts (`slotDurationMinutes` is 15, 30, 45 or 60, the duration a request keeps):
 * an appointment overlapping a range starts at most this long before it, so the days read start that much earlier.
 */
export const LONGEST_APPOINTMENT_MS = 60 * 60_000;

/**
 * A month with at least this many days to read is read with one query on its month key: fewer queries (each
 * one a scan of the table on FerretDB) for a few more documents decoded (the range filter still drops them).
 */
export const MONTH_QUERY_FROM_DAYS = 8;

/** One equality filter's key: a day or a month. */
export type ScheduleKeyFilter = { scheduledDay: string } | { scheduledMonth: string };

/**
 * How far back every confirmed appointment carries its keys: a node of the version that brought them files those
 * stored before that end after its start less this (twice the calendar feed's month back, the furthest back a
 * read by key went then), and every confirm or move since files its own. A read by key of a range that starts
 * later than this before now finds every confirmed appointment of the range.
 */
export const SCHEDULE_KEYS_FILED_BACK_MS = 62 * 24 * 3_600_000;

/**
 * The keys whose appointments include every appointment that overlaps [from, to): the days on which such an
 * appointment can start (from `LONGEST_APPOINTMENT_MS` before `from` to the last instant before `to`), a
 * month's days replaced by its month when at least `MONTH_QUERY_FROM_DAYS` of them are read. In order.
 */
export function scheduleKeysOverlapping(from: Date, to: Date): ScheduleKeyFilter[] {
  if (to.getTime() <= from.getTime()) return [];
  return scheduleKeysStarting(new Date(from.getTime() - LONGEST_APPOINTMENT_MS), to);
}

/** The keys whose appointments include every appointment that starts in [from, to), read as `scheduleKeysOverlapping` reads them. In order. */
export function scheduleKeysStarting(from: Date, to: Date): ScheduleKeyFilter[] {
  if (to.getTime() <= from.getTime()) return [];
  const first = DateTime.fromMillis(from.getTime(), { zone: 'utc' }).startOf('day');
  const last = DateTime.fromMillis(to.getTime() - 1, { zone: 'utc' }).startOf('day');
  const byMonth = new Map<string, string[]>();
  for (let day = first; day <= last; day = day.plus({ days: 1 })) {
    const { scheduledDay, scheduledMonth } = scheduleKeys(day.toJSDate());
    byMonth.set(scheduledMonth, [...(byMonth.get(scheduledMonth) ?? []), scheduledDay]);
  }
  return [...byMonth].flatMap(([scheduledMonth, days]): ScheduleKeyFilter[] =>
    days.length >= MONTH_QUERY_FROM_DAYS ? [{ scheduledMonth }] : days.map((scheduledDay) => ({ scheduledDay })),
  );
}
