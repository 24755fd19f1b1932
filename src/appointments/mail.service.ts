import type { Deps } from '../deps.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { memberEmails } from '../workspaces/members.service.js';
import { queueEmail } from '../email/email.service.js';
import { appointmentEmails, type AppointmentMailData, type RenderedMail } from '../email/email.templates.js';
import type { Appointment } from './appointments.model.js';
import { getSettings, type AppointmentSettings } from './settings.service.js';

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

/** Tells the visitor how the team answered (confirmed or moved: the time; declined: the reason). */
export async function visitorMail(deps: Deps, workspace: Workspace, appointment: Appointment, kind: 'visitorConfirmed' | 'visitorDeclined'): Promise<void> {
  const settings = await getSettings(deps, workspace.id);
  const data = mailData(workspace, appointment, settings, appointment.scheduledAt ?? appointment.requestedAt);
  await sendMail(deps, workspace.id, appointment.visitorEmail, appointmentEmails[kind](data));
}

/** A new request: the visitor gets a receipt, the business a notification. */
export async function requestReceivedMails(deps: Deps, workspace: Workspace, appointment: Appointment, settings: AppointmentSettings): Promise<void> {
  const data = mailData(workspace, appointment, settings, appointment.requestedAt);
  await sendMail(deps, workspace.id, appointment.visitorEmail, appointmentEmails.visitorReceived(data));
  for (const to of await customerRecipients(deps, workspace.id, settings).catch(() => [])) {
    await sendMail(deps, workspace.id, to, appointmentEmails.customerNotified(data));
  }
}
