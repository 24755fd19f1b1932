import type { Deps } from '../deps.js';
import { type Workspace, findWorkspace } from '../workspaces/workspaces.service.js';
import { fail } from '../shared/errors.js';
import { sha256Hex } from '../shared/crypto.js';
import { checkVisitorIdentity, verifyIdentityToken } from '../identity/identity.service.js';
import { appointmentStore, newAppointmentId, type Appointment } from './appointments.model.js';
import { mintToken, parseToken } from './tokens.js';
import { addressHoldStore } from './holds.model.js';
import type { CreateRequestBody } from './appointments.schemas.js';
import { assertBookable } from './availability.service.js';
import { requestReceivedMails } from './mail.service.js';
import { getSettings, INACTIVE } from './settings.service.js';
import { publishAppointment } from './events.service.js';

export type { Appointment, AppointmentStatus } from './appointments.model.js';

export const LOOKUP_LIMIT = 50;

const looksLikeEmail = (value: string | null | undefined): value is string => !!value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

/**
 * Counts a new request against the pending ones `address` holds in the workspace, refusing it (429) when
 * that address already holds `MAX_PENDING_BOOKINGS_PER_ADDRESS`: each pending request is stored, mailed to
 * the team and shown to it until someone answers, so one client must not be able to pile them up. A hold
 * lapses when its requested time has come; at the cap, holds whose request is no longer PENDING (answered or
 * cancelled) are dropped before deciding, so the count is exact when it matters. A hold is counted before its
 * request is stored: one whose request is not stored yet is a booking in flight, dropped only once
 * HOLD_STORE_GRACE_MS has passed without it (that request failed).
 */
async function holdPending(deps: Deps, workspaceId: string, address: string, appointmentId: string, requestedAt: Date): Promise<void> {
  const max = deps.config.MAX_PENDING_BOOKINGS_PER_ADDRESS;
  if (max === 0) return;
  const now = deps.clock.now();
  await addressHoldStore(deps.db).update(workspaceId, address, now, async (stored) => {
    let held = stored.filter((hold) => hold.until > now);
    if (held.length >= max) {
      const store = appointmentStore(deps.db);
      const counts = await Promise.all(
        held.map(async (hold) => {
          const request = await store.byId(workspaceId, hold.appointmentId);
          return request ? request.status === 'PENDING' : now.getTime() - hold.at.getTime() < HOLD_STORE_GRACE_MS;
        }),
      );
      held = held.filter((_, i) => counts[i]);
    }
    if (held.length >= max) {
      throw fail('too_many_pending_requests', `This address already holds ${max} pending requests in this workspace; wait until they are answered or cancel one.`, {
        retryAfterSeconds: PENDING_RETRY_AFTER_SECONDS,
      });
    }
    return [...held, { appointmentId, until: requestedAt, at: now }];
  });
}

/** Longer than storing a request takes, under any load. */
const HOLD_STORE_GRACE_MS = 60_000;
/** A hold frees when the team answers or the visitor cancels, at no foreseeable time: a minute is a polite backoff. */
const PENDING_RETRY_AFTER_SECONDS = 60;

/** `address`: the client address the request came from (what `MAX_PENDING_BOOKINGS_PER_ADDRESS` counts by). */
export async function createRequest(deps: Deps, workspace: Workspace, input: CreateRequestBody, address: string) {
  const settings = await assertBookable(deps, await getSettings(deps, workspace.id), input.requestedAt);

  const checked = await checkVisitorIdentity(deps, workspace.id, input.visitor);
  if (checked && 'failure' in checked) {
    deps.logger.info({ workspaceId: workspace.id, reason: checked.failure }, 'appointment request: visitor identity not verified; booking proceeds anonymously');
  }
  const visitor = checked && 'verified' in checked ? checked.verified : null;
  const verified = visitor !== null;
  const name = visitor?.name?.trim() ? visitor.name.trim() : input.visitorName.trim();
  const email = visitor && looksLikeEmail(visitor.email) ? visitor.email : input.visitorEmail;

  const id = newAppointmentId();
  // Counted before it is stored: a request that then fails to store leaves a hold naming nothing, which the
  // cap drops after a grace; the other order could store requests the count never saw (a crash between).
  await holdPending(deps, workspace.id, address, id, input.requestedAt);
  const token = mintToken('cancellation', id);
  const appointment = await appointmentStore(deps.db).create(
    workspace.id,
    id,
    {
      requestedAt: input.requestedAt,
      durationMinutes: settings.slotDurationMinutes,
      timezone: settings.timezone,
      visitorName: name,
      visitorEmail: email,
      visitorPhone: input.visitorPhone ?? null,
      visitorMessage: input.visitorMessage ?? null,
      visitorSessionId: input.visitorSessionId ?? null,
      externalId: visitor?.externalId ?? null,
      identityVerified: verified,
      visitorAttributes: visitor?.attributes ?? null,
      createdAt: deps.clock.now(),
      locale: input.locale ?? workspace.defaultLocale,
    },
    sha256Hex(token),
  );

  await requestReceivedMails(deps, workspace, appointment, settings);
  await publishAppointment(deps, 'appointment.requested', appointment, 'visitor');

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
  // A token of no known shape names nothing: answered without touching the engine.
  const ref = parseToken('cancellation', token);
  const appointment = ref && (await appointmentStore(deps.db).byLiveToken(ref, sha256Hex(token)));
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
  const ref = parseToken('cancellation', token);
  const outcome = ref && (await appointmentStore(deps.db).cancelByToken(ref, sha256Hex(token), deps.clock.now()));
  if (!outcome) throw tokenNotFound();
  if ('used' in outcome) {
    // Still PENDING with the token live: a racing cancel holds it and is about to answer CANCELLED.
    const status = outcome.used.status === 'PENDING' ? 'CANCELLED' : outcome.used.status;
    throw fail('cancel_not_pending', `The request is ${status} and can no longer be cancelled.`);
  }
  await publishAppointment(deps, 'appointment.cancelled', outcome.cancelled, 'visitor');
  return { id: outcome.cancelled.id, status: 'CANCELLED' as const };
}
