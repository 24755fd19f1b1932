import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { IANAZone } from 'luxon';
import { pageInfoSchema, totalQuery } from '../shared/paging.js';
import { visitorIdentityField } from '../identity/identity.schemas.js';
import { WEEKDAYS } from './settings.model.js';

const INSTANT_RULE = 'must be an ISO 8601 date-time with a time zone, e.g. 2025-03-24T09:00:00Z or 2025-03-24T11:00+02:00';
const withSeconds = z.iso.datetime({ offset: true });
const toTheMinute = z.iso.datetime({ offset: true, precision: -1 });
const isZonedDateTime = (value: string) => withSeconds.safeParse(value).success || toTheMinute.safeParse(value).success;

/** ISO 8601 date-time with `Z` or an offset, with or without seconds; turned into a Date. */
export const isoInstant = z
  .string()
  .refine(isZonedDateTime, INSTANT_RULE)
  .meta({ format: 'date-time' })
  .transform((value) => new Date(value));

/**
 * A bound of an availability query: an instant, or a whole day (`YYYY-MM-DD`) of the workspace's time
 * zone, which the service resolves (`from` a day: its start; `to` a day: its end).
 */
export type AvailabilityBound = { instant: Date } | { day: string };
const isoDay = z.iso.date();
const availabilityBound = z
  .string()
  .refine((value) => isZonedDateTime(value) || isoDay.safeParse(value).success, `${INSTANT_RULE}, or a date such as 2025-03-24`)
  .transform((value): AvailabilityBound => (value.includes('T') ? { instant: new Date(value) } : { day: value }));

const STATUSES = ['PENDING', 'CONFIRMED', 'REJECTED', 'CANCELLED'] as const;
export const statusSchema = z.enum(STATUSES);

// ------------------------------------------------------------------------------------- settings

const hhmm = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'must be a time "HH:MM" (00:00 to 24:00)');
const minutesOf = (value: string) => Number(value.slice(0, 2)) * 60 + Number(value.slice(3));

const rangeSchema = z
  .tuple([hhmm, hhmm])
  .refine(([start, end]) => minutesOf(start) < minutesOf(end), 'the end must be after the start (ranges do not cross midnight)')
  .refine(([start, end]) => minutesOf(start) % 5 === 0 && minutesOf(end) % 5 === 0, 'times must be on a 5-minute boundary');

const dayRangesSchema = z
  .array(rangeSchema)
  .max(10, 'at most 10 ranges per day')
  .superRefine((ranges, ctx) => {
    const order = ranges.map((range, index) => ({ range, index })).sort((a, b) => minutesOf(a.range[0]) - minutesOf(b.range[0]));
    for (let i = 1; i < order.length; i++) {
      if (minutesOf(order[i].range[0]) < minutesOf(order[i - 1].range[1])) {
        ctx.addIssue({ code: 'custom', path: [order[i].index], message: `overlaps the range ${order[i - 1].range.join('-')}` });
      }
    }
  });

export const businessHoursSchema = z.strictObject(Object.fromEntries(WEEKDAYS.map((day) => [day, dayRangesSchema.optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<typeof dayRangesSchema>>);

export const timezoneSchema = z.string().max(64).refine((zone) => IANAZone.isValidZone(zone), 'must be an IANA time zone such as "Europe/Berlin"');

export const appointmentSettingsBody = z.object({
  enabled: z.boolean(),
  timezone: timezoneSchema,
  slotDurationMinutes: z.union([z.literal(15), z.literal(30), z.literal(45), z.literal(60)], { message: 'must be 15, 30, 45 or 60' }),
  leadTimeHours: z.number().int().min(0).max(720),
  bookingWindowDays: z.number().int().min(1).max(365),
  policyText: inputText().max(5000).nullable().optional(),
  businessHours: businessHoursSchema,
  notificationEmail: z.email().max(200).nullable().optional(),
});

export const appointmentSettingsSchema = z
  .object({
    enabled: z.boolean(),
    timezone: z.string(),
    slotDurationMinutes: z.number(),
    leadTimeHours: z.number(),
    bookingWindowDays: z.number(),
    policyText: z.string().nullable(),
    businessHours: z.record(z.string(), z.array(z.tuple([z.string(), z.string()]))),
    notificationEmail: z.string().nullable(),
  })
  .meta({ id: 'AppointmentSettings' });

// --------------------------------------------------------------------------------- availability

// A reversed range (`to` before `from`) is refused by the service, which knows the zone of a day.
export const availabilityQuery = z.object({
  from: availabilityBound.optional(),
  to: availabilityBound.optional(),
  publishableKey: z.string().optional(),
});

export const availabilitySchema = z
  .object({
    enabled: z.boolean(),
    timezone: z.string(),
    slotDurationMinutes: z.number(),
    leadTimeHours: z.number(),
    bookingWindowDays: z.number(),
    policyText: z.string().nullable(),
    slots: z.array(z.object({ start: z.string(), end: z.string() })),
    windowStart: z.string(),
    windowEnd: z.string(),
  })
  .meta({ id: 'AppointmentAvailability' });

// ------------------------------------------------------------------------------------- requests

const optionalText = (max: number) => inputText().max(max).nullable().optional();

export const createRequestBody = z.object({
  visitorName: inputText()
    .max(120)
    .refine((value) => value.trim().length > 0, 'must not be empty'),
  visitorEmail: z.email().max(200),
  visitorPhone: optionalText(40),
  visitorMessage: optionalText(2000),
  requestedAt: isoInstant,
  visitorSessionId: optionalText(120),
  // An identity that does not verify (malformed, over its bounds, badly signed) books anonymously, never a 400.
  visitor: visitorIdentityField,
  locale: z
    .string()
    .max(35)
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag such as "de" or "fr-CA"')
    .optional(),
});
/** `visitor` as the service takes it: whatever was sent, checked there (see `checkVisitorIdentity`). */
export type CreateRequestBody = Omit<z.output<typeof createRequestBody>, 'visitor'> & { visitor?: unknown };

export const requestRecordSchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    requestedAt: z.string(),
    durationMinutes: z.number(),
    status: statusSchema,
    identityVerified: z.boolean(),
    cancellationToken: z.string().nullable(),
  })
  .meta({ id: 'AppointmentRequestRecord' });

export const lookupBody = z.object({
  externalId: inputText().min(1).max(128),
  identityToken: inputText().min(1).max(200),
  id: inputText().max(64).optional(),
});

export const publicAppointmentSchema = z
  .object({
    id: z.string(),
    status: statusSchema,
    requestedAt: z.string(),
    scheduledAt: z.string().nullable(),
    durationMinutes: z.number(),
    timezone: z.string(),
    declineReason: z.string().nullable(),
    rescheduleCount: z.number(),
    respondedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Appointment' });

export const lookupResultSchema = z.object({ timezone: z.string(), appointments: z.array(publicAppointmentSchema) });

/** Any text: a token is looked up by its hash, so one no token can be (too long, malformed) is simply unknown (404), never a 400. */
export const tokenParams = z.object({ token: z.string().min(1) });

export const tokenViewSchema = z
  .object({
    id: z.string(),
    visitorName: z.string(),
    visitorEmail: z.string(),
    requestedAt: z.string(),
    durationMinutes: z.number(),
    status: statusSchema,
    workspace: z.object({ name: z.string(), slug: z.string() }),
  })
  .meta({ id: 'AppointmentByToken' });

export const cancelResultSchema = z.object({ id: z.string(), status: z.literal('CANCELLED') });

// ---------------------------------------------------------------------------------------- staff

export const staffParams = z.object({ wid: z.string(), aid: z.string() });

export const staffListQuery = z
  .object({
    status: statusSchema.optional(),
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    from: isoInstant.optional(),
    to: isoInstant.optional(),
    total: totalQuery,
  })
  .refine((query) => !query.from || !query.to || query.from < query.to, { path: ['to'], message: 'must be after `from`' });

export const confirmBody = z.object({ scheduledAt: isoInstant.optional() });
export const declineBody = z.object({ reason: inputText().max(2000).nullable().optional() });
export const rescheduleBody = z.object({ scheduledAt: isoInstant });
export const staffCancelBody = declineBody;

export const staffAppointmentSchema = publicAppointmentSchema
  .extend({
    visitorName: z.string(),
    visitorEmail: z.string(),
    visitorPhone: z.string().nullable(),
    visitorMessage: z.string().nullable(),
    visitorSessionId: z.string().nullable(),
    externalId: z.string().nullable(),
    identityVerified: z.boolean(),
    visitorAttributes: z.record(z.string(), z.string()).nullable(),
    cancelledAt: z.string().nullable(),
    cancelReason: z.string().nullable(),
  })
  .meta({ id: 'StaffAppointment' });

export const staffListSchema = z.object({
  items: z.array(staffAppointmentSchema),
  pageInfo: pageInfoSchema,
});

// ------------------------------------------------------------------------------- booking rules

const isoDate = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const realDate = (key: string) => {
  const date = new Date(`${key}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(key);
};

export const bookingRulesBody = z.object({
  dateOverrides: z
    .record(inputText(), dayRangesSchema)
    .superRefine((overrides, ctx) => {
      const keys = Object.keys(overrides);
      if (keys.length > 400) ctx.addIssue({ code: 'custom', message: 'at most 400 dates' });
      for (const key of keys) {
        if (!isoDate.test(key) || !realDate(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'must be a date "YYYY-MM-DD"' });
      }
    })
    .default({}),
  bufferBeforeMinutes: z.number().int().min(0).max(240).multipleOf(5, 'must be a multiple of 5').default(0),
  bufferAfterMinutes: z.number().int().min(0).max(240).multipleOf(5, 'must be a multiple of 5').default(0),
  maxPerDay: z.number().int().min(1).max(500).nullable().default(null),
  cancelNoticeHours: z.number().int().min(0).max(720).default(24),
  maxReschedules: z.number().int().min(0).max(20).default(3),
  reminders: z
    .array(z.number().int().min(5).max(43_200))
    .max(5, 'at most 5 reminders')
    .refine((list) => new Set(list).size === list.length, 'must not repeat a reminder')
    .default([1440, 60]),
});

export const bookingRulesSchema = z
  .object({
    dateOverrides: z.record(z.string(), z.array(z.tuple([z.string(), z.string()]))),
    bufferBeforeMinutes: z.number(),
    bufferAfterMinutes: z.number(),
    maxPerDay: z.number().nullable(),
    cancelNoticeHours: z.number(),
    maxReschedules: z.number(),
    reminders: z.array(z.number()),
  })
  .meta({ id: 'AppointmentBookingRules' });

// ---------------------------------------------------------------------------------- manage link

export const manageViewSchema = z
  .object({
    id: z.string(),
    status: statusSchema,
    scheduledAt: z.string().nullable(),
    durationMinutes: z.number(),
    timezone: z.string(),
    rescheduleCount: z.number(),
    canCancel: z.boolean(),
    canReschedule: z.boolean(),
    workspace: z.object({ name: z.string(), slug: z.string() }),
    locale: z.string().describe('The language of the visitor\'s mails (BCP 47).'),
  })
  .meta({ id: 'ManagedAppointment' });

export const manageCancelBody = z.object({ reason: inputText().max(2000).nullable().optional() });
export const manageRescheduleBody = z.object({ requestedAt: isoInstant });

// --------------------------------------------------------------------------------- team feed

export const feedQuery = z.object({ token: z.string().max(200).optional() });
export const feedTokenSchema = z.object({ token: z.string(), url: z.string() }).meta({ id: 'AppointmentFeedToken' });
