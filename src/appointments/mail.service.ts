import type { Deps } from '../deps.js';
import { teamAppLink } from '../shared/links.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { memberEmails } from '../workspaces/members.service.js';
import { queueEmail, type MailAttachment, type MailCause } from '../email/email.service.js';
import { appointmentEmails, type AppointmentMailData, type RenderedMail } from '../email/email.templates.js';
import type { Appointment } from './appointments.model.js';
import { inviteIcs, type InviteMethod } from './calendar.js';
import { getSettings, type AppointmentSettings } from './settings.service.js';

type MailExtras = Pick<AppointmentMailData, 'manageUrl' | 'previousStart' | 'declineReason' | 'locale' | 'teamAppUrl'>;

function mailData(workspace: Workspace, appointment: Appointment, settings: AppointmentSettings | null, start: Date, extras: MailExtras = {}): AppointmentMailData {
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
    locale: appointment.locale ?? workspace.defaultLocale,
    ...extras,
  };
}

/**
 * Mails never decide the answer: a failure to queue is logged with the workspace id and dropped. `cause`:
 * what a visitor does (a request, a change through the manage link) counts against the workspace's hourly
 * mail ceiling; what the team does (decisions) and the reminders of the bookings it confirmed do not.
 */
async function sendMail(deps: Deps, workspaceId: string, to: string, mail: RenderedMail, cause: MailCause, attachments?: MailAttachment[]): Promise<void> {
  try {
    await queueEmail(deps, workspaceId, { to, ...mail, attachments }, { cause });
  } catch (error) {
    deps.logger.error({ err: error, workspaceId, subject: mail.subject }, 'appointment mail could not be queued');
  }
}

/** The plugin's notification address, otherwise every owner of the workspace. */
async function customerRecipients(deps: Deps, workspaceId: string, settings: AppointmentSettings | null): Promise<string[]> {
  if (settings?.notificationEmail) return [settings.notificationEmail];
  return memberEmails(deps, workspaceId, 'owner');
}

/** The calendar invite of the appointment's current state, as an attachment. */
function invite(deps: Deps, workspace: Workspace, appointment: Appointment, method: InviteMethod, settings: AppointmentSettings | null): MailAttachment[] {
  try {
    const content = inviteIcs(workspace, appointment, method, deps.config.MAIL_FROM, settings?.timezone ?? appointment.timezone);
    return [{ filename: method === 'CANCEL' ? 'cancel.ics' : 'invite.ics', contentType: `text/calendar; charset=utf-8; method=${method}`, content }];
  } catch (error) {
    deps.logger.error({ err: error, workspaceId: workspace.id }, 'calendar invite could not be built; mail sent without it');
    return [];
  }
}

/** Where the visitor's manage page lives (the mail's link). */
export function manageUrl(deps: Deps, token: string, locale: string | null): string {
  const base = (deps.config.PUBLIC_URL ?? `http://localhost:${deps.config.PORT}`).replace(/\/+$/, '');
  return `${base}/appointments/manage/${encodeURIComponent(token)}${locale ? `?lang=${encodeURIComponent(locale)}` : ''}`;
}

export type VisitorMailKind = 'visitorConfirmed' | 'visitorDeclined' | 'visitorRescheduled' | 'visitorCancelled' | 'visitorReminder';

/**
 * Tells the visitor what happened. Confirmations and moves carry the calendar invite (REQUEST), a
 * cancellation its withdrawal (CANCEL) with the same UID and a higher SEQUENCE.
 */
export async function visitorMail(
  deps: Deps,
  workspace: Workspace,
  appointment: Appointment,
  kind: VisitorMailKind,
  cause: MailCause,
  extras: MailExtras = {},
): Promise<void> {
  const settings = await getSettings(deps, workspace.id);
  const data = mailData(workspace, appointment, settings, appointment.scheduledAt ?? appointment.requestedAt, extras);
  const method: InviteMethod | null = kind === 'visitorConfirmed' || kind === 'visitorRescheduled' ? 'REQUEST' : kind === 'visitorCancelled' ? 'CANCEL' : null;
  const attachments = method && appointment.scheduledAt ? invite(deps, workspace, appointment, method, settings) : undefined;
  await sendMail(deps, workspace.id, appointment.visitorEmail, appointmentEmails[kind](data), cause, attachments);
}

/** The team hears of what the visitor did through the manage link, in the workspace's default language. */
export async function teamMail(deps: Deps, workspace: Workspace, appointment: Appointment, kind: 'customerCancelled' | 'customerRescheduled', extras: MailExtras = {}): Promise<void> {
  const settings = await getSettings(deps, workspace.id);
  const data = mailData(workspace, appointment, settings, appointment.scheduledAt ?? appointment.requestedAt, { ...extras, locale: workspace.defaultLocale });
  for (const to of await customerRecipients(deps, workspace.id, settings).catch(() => [])) {
    await sendMail(deps, workspace.id, to, appointmentEmails[kind](data), 'visitor');
  }
}

/** A new request: the visitor gets a receipt (in the request's language), the business a notification. */
export async function requestReceivedMails(deps: Deps, workspace: Workspace, appointment: Appointment, settings: AppointmentSettings): Promise<void> {
  const data = mailData(workspace, appointment, settings, appointment.requestedAt);
  await sendMail(deps, workspace.id, appointment.visitorEmail, appointmentEmails.visitorReceived(data), 'visitor');
  const teamAppUrl = teamAppLink(deps.config, `bookings/${appointment.id}`);
  for (const to of await customerRecipients(deps, workspace.id, settings).catch(() => [])) {
    await sendMail(deps, workspace.id, to, appointmentEmails.customerNotified({ ...data, locale: workspace.defaultLocale, teamAppUrl }), 'visitor');
  }
}
