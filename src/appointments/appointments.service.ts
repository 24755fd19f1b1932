import type { Deps } from '../deps.js';
import { type Workspace, findWorkspace } from '../workspaces/workspaces.service.js';
import { memberEmails } from '../workspaces/members.service.js';
import { fail, invalid } from '../shared/errors.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { verifyIdentityToken } from '../identity/identity.service.js';
import { queueEmail } from '../email/email.service.js';
import { appointmentEmails, type AppointmentMailData, type RenderedMail } from '../email/email.templates.js';
import {
  appointmentSettingsStore,
  appointmentStore,
  cellStarts,
  cellStore,
  CELL_MINUTES,
  type Appointment,
  type AppointmentSettings,
  type AppointmentStatus,
} from './appointments.model.js';
import { generateSlots, type Slot } from './appointments.slots.js';
import type { CreateRequestBody } from './appointments.schemas.js';

export const LOOKUP_LIMIT = 50;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** What availability reports for a workspace that never activated the plugin. */
const INACTIVE = { timezone: 'UTC', slotDurationMinutes: 30, leadTimeHours: 0, bookingWindowDays: 0, policyText: null } as const;

// ------------------------------------------------------------------------------------- settings

export type SettingsInput = Omit<AppointmentSettings, 'workspaceId' | 'updatedAt' | 'policyText' | 'notificationEmail'> & {
  policyText?: string | null;
  notificationEmail?: string | null;
};

export async function putSettings(deps: Deps, workspaceId: string, input: SettingsInput): Promise<AppointmentSettings> {
  return appointmentSettingsStore(deps.db).put(workspaceId, {
    ...input,
    policyText: input.policyText ?? null,
    notificationEmail: input.notificationEmail ?? null,
    updatedAt: deps.clock.now(),
  });
}

export async function getSettings(deps: Deps, workspaceId: string): Promise<AppointmentSettings | null> {
  return appointmentSettingsStore(deps.db).get(workspaceId);
}

export function toSettingsView(settings: AppointmentSettings | null) {
  if (!settings) {
    return { enabled: false, ...INACTIVE, businessHours: {}, notificationEmail: null };
  }
  const { workspaceId: _w, updatedAt: _u, ...view } = settings;
  return view;
}

// --------------------------------------------------------------------------------- availability

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
 * Re-validates a requested start at submission time. Each failure is a 404 whose `code` and `message`
 * say which rule refused it, in this order: plugin off, past, lead time, booking window, not a slot of
 * the business hours, taken by a confirmed appointment.
 */
async function assertBookable(deps: Deps, settings: AppointmentSettings | null, requestedAt: Date): Promise<AppointmentSettings> {
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

// ------------------------------------------------------------------------------------- requests

function mailData(workspace: Workspace, appointment: Appointment, settings: AppointmentSettings | null, start: Date): AppointmentMailData {
  return {
    workspaceName: workspace.name,
    visitorName: appointment.visitorName,
    visitorEmail: appointment.visitorEmail,
    visitorPhone: appointment.visitorPhone,
    visitorMessage: appointment.visitorMessage,
    start: start.toISOString(),
    durationMinutes: appointment.durationMinutes,
    timezone: appointment.timezone,
    declineReason: appointment.declineReason,
    policyText: settings?.policyText ?? null,
  };
}

/** Mails never decide the answer: a failure to queue is logged with the workspace id and dropped. */
async function sendMail(deps: Deps, workspaceId: string, to: string, mail: RenderedMail): Promise<void> {
  try {
    await queueEmail(deps, workspaceId, { to, ...mail });
  } catch (error) {
    deps.logger.error({ err: error, workspaceId, subject: mail.subject }, 'appointment mail could not be queued');
  }
}

/** The plugin's notification address, otherwise every owner of the workspace. */
async function customerRecipients(deps: Deps, workspaceId: string, settings: AppointmentSettings): Promise<string[]> {
  if (settings.notificationEmail) return [settings.notificationEmail];
  return memberEmails(deps, workspaceId, 'owner');
}

const looksLikeEmail = (value: string | undefined): value is string => !!value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

export async function createRequest(deps: Deps, workspace: Workspace, input: CreateRequestBody) {
  const settings = await assertBookable(deps, await getSettings(deps, workspace.id), input.requestedAt);

  const visitor = input.visitor;
  const verified = visitor ? await verifyIdentityToken(deps, workspace.id, visitor.externalId, visitor.identityToken) : false;
  if (visitor && !verified) {
    deps.logger.info({ workspaceId: workspace.id }, 'appointment request: visitor identity not verified; booking proceeds anonymously');
  }
  const name = verified && visitor!.name?.trim() ? visitor!.name.trim() : input.visitorName.trim();
  const email = verified && looksLikeEmail(visitor!.email) ? visitor!.email : input.visitorEmail;

  const token = randomToken('ct_');
  const appointment = await appointmentStore(deps.db).create(
    workspace.id,
    {
      requestedAt: input.requestedAt,
      durationMinutes: settings.slotDurationMinutes,
      timezone: settings.timezone,
      visitorName: name,
      visitorEmail: email,
      visitorPhone: input.visitorPhone ?? null,
      visitorMessage: input.visitorMessage ?? null,
      visitorSessionId: input.visitorSessionId ?? null,
      externalId: verified ? visitor!.externalId : null,
      identityVerified: verified,
      visitorAttributes: verified ? (visitor!.attributes ?? null) : null,
      createdAt: deps.clock.now(),
    },
    sha256Hex(token),
  );

  const data = mailData(workspace, appointment, settings, appointment.requestedAt);
  await sendMail(deps, workspace.id, appointment.visitorEmail, appointmentEmails.visitorReceived(data));
  for (const to of await customerRecipients(deps, workspace.id, settings).catch(() => [])) {
    await sendMail(deps, workspace.id, to, appointmentEmails.customerNotified(data));
  }

  return {
    id: appointment.id,
    createdAt: appointment.createdAt.toISOString(),
    requestedAt: appointment.requestedAt.toISOString(),
    durationMinutes: appointment.durationMinutes,
    status: appointment.status,
    identityVerified: appointment.identityVerified,
    cancellationToken: token,
  };
}

export function toPublicAppointment(a: Appointment) {
  return {
    id: a.id,
    status: a.status,
    requestedAt: a.requestedAt.toISOString(),
    scheduledAt: a.status === 'CONFIRMED' && a.scheduledAt ? a.scheduledAt.toISOString() : null,
    durationMinutes: a.durationMinutes,
    timezone: a.timezone,
    declineReason: a.status === 'REJECTED' ? a.declineReason : null,
    rescheduleCount: a.rescheduleCount,
    respondedAt: a.respondedAt ? a.respondedAt.toISOString() : null,
    createdAt: a.createdAt.toISOString(),
  };
}

export function toStaffAppointment(a: Appointment) {
  return {
    ...toPublicAppointment(a),
    visitorName: a.visitorName,
    visitorEmail: a.visitorEmail,
    visitorPhone: a.visitorPhone,
    visitorMessage: a.visitorMessage,
    visitorSessionId: a.visitorSessionId,
    externalId: a.externalId,
    identityVerified: a.identityVerified,
    visitorAttributes: a.visitorAttributes,
    cancelledAt: a.cancelledAt ? a.cancelledAt.toISOString() : null,
  };
}

export async function lookup(deps: Deps, workspace: Workspace, input: { externalId: string; identityToken: string; id?: string }) {
  if (!(await verifyIdentityToken(deps, workspace.id, input.externalId, input.identityToken))) {
    throw fail('identity_not_verified');
  }
  const appointments = await appointmentStore(deps.db).verifiedOf(workspace.id, input.externalId, LOOKUP_LIMIT, input.id);
  if (input.id !== undefined && appointments.length === 0) throw fail('appointment_not_found');
  const settings = await getSettings(deps, workspace.id);
  return { timezone: settings?.timezone ?? INACTIVE.timezone, appointments: appointments.map(toPublicAppointment) };
}

const tokenNotFound = () => fail('appointment_token_not_found');

export async function viewByToken(deps: Deps, token: string) {
  const appointment = await appointmentStore(deps.db).byLiveToken(sha256Hex(token));
  if (!appointment) throw tokenNotFound();
  const workspace = await findWorkspace(deps, appointment.workspaceId);
  if (!workspace) throw tokenNotFound();
  return {
    id: appointment.id,
    visitorName: appointment.visitorName,
    visitorEmail: appointment.visitorEmail,
    requestedAt: appointment.requestedAt.toISOString(),
    durationMinutes: appointment.durationMinutes,
    status: appointment.status,
    workspace: { name: workspace.name, slug: workspace.slug },
  };
}

export async function cancelByToken(deps: Deps, token: string) {
  const hash = sha256Hex(token);
  const store = appointmentStore(deps.db);
  const cancelled = await store.cancelByToken(hash, deps.clock.now());
  if (cancelled) return { id: cancelled.id, status: 'CANCELLED' as const };
  const used = (await store.byConsumedToken(hash)) ?? (await store.byLiveToken(hash));
  if (used) throw fail('cancel_not_pending', `The request is ${used.status} and can no longer be cancelled.`);
  throw tokenNotFound();
}

// ---------------------------------------------------------------------------------------- staff

export async function listForStaff(deps: Deps, workspaceId: string, filter: { status?: AppointmentStatus; page: number; limit: number }) {
  const { items, total } = await appointmentStore(deps.db).list(workspaceId, { status: filter.status }, { skip: (filter.page - 1) * filter.limit, limit: filter.limit });
  const totalPages = Math.ceil(total / filter.limit);
  return {
    items: items.map(toStaffAppointment),
    pageInfo: { page: filter.page, limit: filter.limit, total, totalPages, hasNext: filter.page < totalPages, hasPrev: filter.page > 1 },
  };
}

async function mustFind(deps: Deps, workspaceId: string, id: string): Promise<Appointment> {
  const appointment = await appointmentStore(deps.db).byId(workspaceId, id);
  if (!appointment) throw fail('appointment_not_found');
  return appointment;
}

export async function getForStaff(deps: Deps, workspaceId: string, id: string) {
  return toStaffAppointment(await mustFind(deps, workspaceId, id));
}

const notPending = (a: Appointment) => fail('appointment_not_pending', `The appointment is ${a.status}; only PENDING requests can be answered.`);
const slotConflict = () => fail('appointment_overlap');

function assertStart(deps: Deps, start: Date): void {
  if (start.getTime() % (CELL_MINUTES * 60_000) !== 0) {
    throw invalid([{ path: 'scheduledAt', message: 'must be on a 5-minute boundary (seconds zero)' }], 'The start must be on a 5-minute boundary.');
  }
  if (start < deps.clock.now()) {
    throw invalid([{ path: 'scheduledAt', message: 'must not be in the past' }], 'The start is in the past.');
  }
}

async function visitorMail(deps: Deps, workspace: Workspace, appointment: Appointment, kind: 'visitorConfirmed' | 'visitorDeclined'): Promise<void> {
  const settings = await getSettings(deps, workspace.id);
  const data = mailData(workspace, appointment, settings, appointment.scheduledAt ?? appointment.requestedAt);
  await sendMail(deps, workspace.id, appointment.visitorEmail, appointmentEmails[kind](data));
}

/** A cell reserved this long ago by a call that never completed its state change is a leftover. */
const STALE_HOLD_MS = 2 * 60_000;

/**
 * Reserves the cells; when some are taken, removes those that are provably leftovers of an interrupted
 * call (a crash between reserving and the status change: the holder does not cover the cell with its
 * confirmed time, and the hold is older than any call takes) and tries once more. Real reservations,
 * including ones in flight, are never removed, so this cannot open a way to an overlap.
 */
async function reserveCells(deps: Deps, workspaceId: string, appointmentId: string, starts: Date[]): Promise<string | null> {
  const cells = cellStore(deps.db);
  const now = deps.clock.now();
  const hold = await cells.reserve(workspaceId, appointmentId, starts, now);
  if (hold) return hold;
  let removed = false;
  for (const holder of await cells.holders(workspaceId, starts)) {
    if (now.getTime() - holder.reservedAt.getTime() < STALE_HOLD_MS) continue;
    const owner = await appointmentStore(deps.db).byId(workspaceId, holder.appointmentId);
    const covers = owner?.status === 'CONFIRMED' && owner.scheduledAt! <= holder.start && holder.start < owner.scheduledEnd!;
    if (covers) continue;
    deps.logger.warn({ workspaceId, appointmentId: holder.appointmentId, start: holder.start }, 'appointments: removing a leftover time reservation');
    await cells.removeCell(workspaceId, holder.start, holder.holdId);
    removed = true;
  }
  return removed ? cells.reserve(workspaceId, appointmentId, starts, now) : null;
}

/**
 * PENDING -> CONFIRMED. The time is first reserved cell by cell under a unique index, then the status
 * changes conditionally; whichever step loses a race undoes the reservation, so any number of
 * concurrent confirms on any number of nodes leaves at most one appointment on any instant.
 */
export async function confirm(deps: Deps, workspace: Workspace, id: string, scheduledAt?: Date) {
  const current = await mustFind(deps, workspace.id, id);
  if (current.status !== 'PENDING') throw notPending(current);
  const start = scheduledAt ?? current.requestedAt;
  assertStart(deps, start);
  const end = new Date(start.getTime() + current.durationMinutes * 60_000);
  const now = deps.clock.now();
  const cells = cellStore(deps.db);
  const hold = await reserveCells(deps, workspace.id, id, cellStarts(start, end));
  if (!hold) throw slotConflict();
  const confirmed = await appointmentStore(deps.db).confirm(workspace.id, id, start, end, now);
  if (!confirmed) {
    await cells.undo(workspace.id, hold);
    throw notPending((await appointmentStore(deps.db).byId(workspace.id, id)) ?? current);
  }
  await visitorMail(deps, workspace, confirmed, 'visitorConfirmed');
  return toStaffAppointment(confirmed);
}

export async function decline(deps: Deps, workspace: Workspace, id: string, reason: string | null) {
  const current = await mustFind(deps, workspace.id, id);
  if (current.status !== 'PENDING') throw notPending(current);
  const declined = await appointmentStore(deps.db).decline(workspace.id, id, reason?.trim() || null, deps.clock.now());
  if (!declined) throw notPending((await appointmentStore(deps.db).byId(workspace.id, id)) ?? current);
  await visitorMail(deps, workspace, declined, 'visitorDeclined');
  return toStaffAppointment(declined);
}

/** CONFIRMED only. Reserves the cells of the new time it does not already hold, then moves, then frees the old ones. */
export async function reschedule(deps: Deps, workspace: Workspace, id: string, scheduledAt: Date) {
  const current = await mustFind(deps, workspace.id, id);
  if (current.status !== 'CONFIRMED' || !current.scheduledAt || !current.scheduledEnd) {
    throw fail('appointment_not_confirmed', `The appointment is ${current.status}; only CONFIRMED appointments can be rescheduled.`);
  }
  assertStart(deps, scheduledAt);
  if (scheduledAt.getTime() === current.scheduledAt.getTime()) {
    throw invalid([{ path: 'scheduledAt', message: 'must differ from the current start' }], 'The appointment is already at this time.');
  }
  const end = new Date(scheduledAt.getTime() + current.durationMinutes * 60_000);
  const held = new Set(cellStarts(current.scheduledAt, current.scheduledEnd).map((d) => d.getTime()));
  const wanted = cellStarts(scheduledAt, end);
  const cells = cellStore(deps.db);
  const hold = await reserveCells(deps, workspace.id, id, wanted.filter((d) => !held.has(d.getTime())));
  if (!hold) throw slotConflict();
  const moved = await appointmentStore(deps.db).reschedule(workspace.id, id, current.scheduledAt, scheduledAt, end);
  if (!moved) {
    await cells.undo(workspace.id, hold);
    throw fail('appointment_changed');
  }
  const keep = new Set(wanted.map((d) => d.getTime()));
  await cells.release(workspace.id, id, [...held].filter((t) => !keep.has(t)).map((t) => new Date(t)));
  await visitorMail(deps, workspace, moved, 'visitorConfirmed');
  return toStaffAppointment(moved);
}
