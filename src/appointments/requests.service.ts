import type { Deps } from '../deps.js';
import { type Workspace, findWorkspace } from '../workspaces/workspaces.service.js';
import { fail } from '../shared/errors.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { checkVisitorIdentity, verifyIdentityToken } from '../identity/identity.service.js';
import { appointmentStore, type Appointment } from './appointments.model.js';
import type { CreateRequestBody } from './appointments.schemas.js';
import { assertBookable } from './availability.service.js';
import { requestReceivedMails } from './mail.service.js';
import { getSettings, INACTIVE } from './settings.service.js';
import { publishAppointment } from './events.service.js';

export type { Appointment, AppointmentStatus } from './appointments.model.js';

export const LOOKUP_LIMIT = 50;

const looksLikeEmail = (value: string | null | undefined): value is string => !!value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

export async function createRequest(deps: Deps, workspace: Workspace, input: CreateRequestBody) {
  const settings = await assertBookable(deps, await getSettings(deps, workspace.id), input.requestedAt);

  const checked = await checkVisitorIdentity(deps, workspace.id, input.visitor);
  if (checked && 'failure' in checked) {
    deps.logger.info({ workspaceId: workspace.id, reason: checked.failure }, 'appointment request: visitor identity not verified; booking proceeds anonymously');
  }
  const visitor = checked && 'verified' in checked ? checked.verified : null;
  const verified = visitor !== null;
  const name = visitor?.name?.trim() ? visitor.name.trim() : input.visitorName.trim();
  const email = visitor && looksLikeEmail(visitor.email) ? visitor.email : input.visitorEmail;

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
  if (cancelled) {
    await publishAppointment(deps, 'appointment.cancelled', cancelled, 'visitor');
    return { id: cancelled.id, status: 'CANCELLED' as const };
  }
  // Live first: a racing cancel that won clears the live token and sets the consumed one in one write,
  // so whichever lookup runs after that write finds it. Still PENDING means that cancel is under way.
  const used = (await store.byLiveToken(hash)) ?? (await store.byConsumedToken(hash));
  if (used) throw fail('cancel_not_pending', `The request is ${used.status === 'PENDING' ? 'CANCELLED' : used.status} and can no longer be cancelled.`);
  throw tokenNotFound();
}
