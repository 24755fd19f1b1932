import type { Deps } from '../deps.js';
import type { AppointmentData, BusinessEvent } from '../events/events.js';
import type { Appointment } from './appointments.model.js';

type AppointmentEventName = Extract<BusinessEvent, { data: AppointmentData }>['event'];

/** Publishes an appointment's change on the bus (webhook endpoints subscribe), after it is stored. */
export async function publishAppointment(
  deps: Deps,
  event: AppointmentEventName,
  appointment: Appointment,
  by: AppointmentData['by'],
  previousScheduledAt: Date | null = null,
): Promise<void> {
  await deps.events.publish({
    event,
    workspaceId: appointment.workspaceId,
    at: deps.clock.now().toISOString(),
    data: {
      appointmentId: appointment.id,
      status: appointment.status,
      requestedAt: appointment.requestedAt.toISOString(),
      scheduledAt: appointment.scheduledAt?.toISOString() ?? null,
      previousScheduledAt: previousScheduledAt?.toISOString() ?? null,
      durationMinutes: appointment.durationMinutes,
      timezone: appointment.timezone,
      visitorName: appointment.visitorName,
      visitorEmail: appointment.visitorEmail,
      declineReason: appointment.declineReason,
      by,
    },
  });
}
