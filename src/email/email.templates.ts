import { DateTime } from 'luxon';
import { escapeHtml } from '../shared/html.js';
import { mailLanguage, stringsFor, type AppointmentStrings } from './appointment-strings.js';

/** Data of the appointment mails of the spec. Times are ISO 8601 UTC; templates render them in `timezone`. */
export interface AppointmentMailData {
  workspaceName: string;
  visitorName: string;
  visitorEmail: string;
  visitorPhone?: string | null;
  visitorMessage?: string | null;
  /** Requested or scheduled start, ISO 8601 UTC. */
  start: string;
  durationMinutes: number;
  timezone: string;
  /** The decline reason, or the visitor's reason for a cancellation. */
  declineReason?: string | null;
  policyText?: string | null;
  /** BCP 47 tag of the mail's language; English when absent or not translated. */
  locale?: string | null;
  /** The visitor's manage page (confirmation, reschedule, reminder mails). */
  manageUrl?: string | null;
  /** The request in the team app (the team's "new request" mail). */
  teamAppUrl?: string | null;
  /** The start before a move, ISO 8601 UTC. */
  previousStart?: string | null;
}

export type RenderedMail = { subject: string; text: string; html: string };

/** Subjects are headers: no line breaks from user data, and a sane length. */
function subjectLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').replace(/\s{2,}/g, ' ').trim().slice(0, 200);
}

/**
 * "Monday, 3 March 2025, 14:00 (Europe/Berlin)", in the words of `locale` ("Montag, 3. März 2025, 14:00 Uhr"
 * in German); an unknown zone falls back to UTC rather than failing the mail.
 */
export function formatStart(startIso: string, timezone: string, locale?: string | null): string {
  const utc = DateTime.fromISO(startIso, { zone: 'utc' });
  if (!utc.isValid) return startIso;
  const language = mailLanguage(locale);
  const local = utc.setZone(timezone);
  const shown = (local.isValid ? local : utc).setLocale(language);
  return `${shown.toFormat(stringsFor(language).dateFormat)} (${local.isValid ? timezone : 'UTC'})`;
}

type Line = { label?: string; value: string };

/** One mail, both parts from the same lines: plain text as written, HTML escaped line by line (chat mails too). */
export function render(subject: string, greeting: string, paragraphs: string[], details: Line[], footer: (string | null | undefined)[]): RenderedMail {
  const detailLines = details.filter((line) => line.value !== '');
  const footers = footer.filter((line): line is string => Boolean(line && line.trim()));
  const text = [
    greeting,
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    ...detailLines.map((line) => (line.label ? `${line.label}: ${line.value}` : line.value)),
    ...(footers.length ? ['', ...footers] : []),
    '',
  ].join('\n');
  const multiline = (value: string) => escapeHtml(value).replace(/\r?\n/g, '<br>');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">',
    `<p>${escapeHtml(greeting)}</p>`,
    ...paragraphs.map((p) => `<p>${multiline(p)}</p>`),
    detailLines.length
      ? `<table>${detailLines
          .map((line) => `<tr><th align="left" valign="top">${escapeHtml(line.label ?? '')}</th><td>${multiline(line.value)}</td></tr>`)
          .join('')}</table>`
      : '',
    ...footers.map((f) => `<p style="color:#555">${multiline(f)}</p>`),
    '</body></html>',
  ].join('');
  return { subject: subjectLine(subject), text, html };
}

function strings(data: AppointmentMailData): AppointmentStrings {
  return stringsFor(mailLanguage(data.locale));
}

const when = (data: AppointmentMailData, t: AppointmentStrings): Line[] => [
  { label: t.when, value: formatStart(data.start, data.timezone, data.locale) },
  ...(data.previousStart ? [{ label: t.previously, value: formatStart(data.previousStart, data.timezone, data.locale) }] : []),
  { label: t.duration, value: t.minutes(data.durationMinutes) },
];

const manage = (data: AppointmentMailData, t: AppointmentStrings): Line[] => (data.manageUrl ? [{ label: t.manageLink, value: data.manageUrl }] : []);

/** Each mail in the language of `data.locale` (English when absent or not translated). */
export const appointmentEmails = {
  /** To the visitor: request received. */
  visitorReceived: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(t.receivedSubject(data.workspaceName), t.hello(data.visitorName), [t.receivedBody(data.workspaceName)], [...when(data, t), { label: t.yourMessage, value: data.visitorMessage ?? '' }], [data.policyText]),
  /** To the customer (plugin notification address): a new request. */
  customerNotified: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(
      t.notifiedSubject(data.visitorName),
      t.helloTeam,
      [t.notifiedBody(data.visitorName, data.workspaceName)],
      [
        ...when(data, t),
        { label: t.name, value: data.visitorName },
        { label: t.email, value: data.visitorEmail },
        { label: t.phone, value: data.visitorPhone ?? '' },
        { label: t.message, value: data.visitorMessage ?? '' },
        { label: t.answerLink, value: data.teamAppUrl ?? '' },
      ],
      [],
    ),
  /** To the visitor: confirmed (`start` is the scheduled start), with the manage link when there is one. */
  visitorConfirmed: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(t.confirmedSubject(data.workspaceName), t.hello(data.visitorName), [t.confirmedBody(data.workspaceName)], [...when(data, t), ...manage(data, t)], [data.policyText]),
  /** To the visitor: declined, with the optional reason. */
  visitorDeclined: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(t.declinedSubject(data.workspaceName), t.hello(data.visitorName), [t.declinedBody(data.workspaceName)], [...when(data, t), { label: t.reason, value: data.declineReason ?? '' }], []),
  /** To the visitor: a confirmed appointment was cancelled (by the team: with their reason, when given). */
  visitorCancelled: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(t.cancelledSubject(data.workspaceName), t.hello(data.visitorName), [t.cancelledBody(data.workspaceName)], [...when(data, t), { label: t.reason, value: data.declineReason ?? '' }], []),
  /** To the visitor: moved to a new time (`previousStart` the old one). */
  visitorRescheduled: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(t.rescheduledSubject(data.workspaceName), t.hello(data.visitorName), [t.rescheduledBody(data.workspaceName)], [...when(data, t), ...manage(data, t)], [data.policyText]),
  /** To the visitor: the appointment is coming up. */
  visitorReminder: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(t.reminderSubject(data.workspaceName), t.hello(data.visitorName), [t.reminderBody(data.workspaceName)], [...when(data, t), ...manage(data, t)], [data.policyText]),
  /** To the team: the visitor cancelled through the manage link. */
  customerCancelled: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(
      t.teamCancelledSubject(data.visitorName),
      t.helloTeam,
      [t.teamCancelledBody(data.visitorName)],
      [...when(data, t), { label: t.name, value: data.visitorName }, { label: t.email, value: data.visitorEmail }, { label: t.reason, value: data.declineReason ?? '' }],
      [],
    ),
  /** To the team: the visitor moved the appointment through the manage link. */
  customerRescheduled: (data: AppointmentMailData, t = strings(data)): RenderedMail =>
    render(
      t.teamRescheduledSubject(data.visitorName),
      t.helloTeam,
      [t.teamRescheduledBody(data.visitorName)],
      [...when(data, t), { label: t.name, value: data.visitorName }, { label: t.email, value: data.visitorEmail }],
      [],
    ),
};
