import { DateTime } from 'luxon';

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
  declineReason?: string | null;
  policyText?: string | null;
}

export type RenderedMail = { subject: string; text: string; html: string };

/** Every user-supplied value goes through this before it reaches the HTML part. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}

/** Subjects are headers: no line breaks from user data, and a sane length. */
function subjectLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').replace(/\s{2,}/g, ' ').trim().slice(0, 200);
}

/** "Monday, 3 March 2025, 14:00 (Europe/Berlin)"; an unknown zone falls back to UTC rather than failing the mail. */
export function formatStart(startIso: string, timezone: string): string {
  const utc = DateTime.fromISO(startIso, { zone: 'utc' });
  if (!utc.isValid) return startIso;
  const local = utc.setZone(timezone);
  const shown = local.isValid ? local : utc;
  return `${shown.toFormat('cccc, d LLLL yyyy, HH:mm')} (${local.isValid ? timezone : 'UTC'})`;
}

type Line = { label?: string; value: string };

/** One mail, both parts from the same lines: plain text as written, HTML escaped line by line. */
function render(subject: string, greeting: string, paragraphs: string[], details: Line[], footer: (string | null | undefined)[]): RenderedMail {
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

const when = (data: AppointmentMailData): Line[] => [
  { label: 'When', value: formatStart(data.start, data.timezone) },
  { label: 'Duration', value: `${data.durationMinutes} minutes` },
];

export const appointmentEmails = {
  /** To the visitor: request received. */
  visitorReceived: (data: AppointmentMailData): RenderedMail =>
    render(
      `We received your appointment request – ${data.workspaceName}`,
      `Hello ${data.visitorName},`,
      [`Thank you for your appointment request with ${data.workspaceName}. It is not confirmed yet: you will receive another e-mail once it is confirmed or declined.`],
      [...when(data), { label: 'Your message', value: data.visitorMessage ?? '' }],
      [data.policyText],
    ),
  /** To the customer (plugin notification address): a new request. */
  customerNotified: (data: AppointmentMailData): RenderedMail =>
    render(
      `New appointment request from ${data.visitorName}`,
      'Hello,',
      [`${data.visitorName} asked for an appointment with ${data.workspaceName}. Confirm or decline it in the CMS.`],
      [
        ...when(data),
        { label: 'Name', value: data.visitorName },
        { label: 'E-mail', value: data.visitorEmail },
        { label: 'Phone', value: data.visitorPhone ?? '' },
        { label: 'Message', value: data.visitorMessage ?? '' },
      ],
      [],
    ),
  /** To the visitor: confirmed (or rescheduled; `start` is the scheduled start). */
  visitorConfirmed: (data: AppointmentMailData): RenderedMail =>
    render(
      `Your appointment with ${data.workspaceName} is confirmed`,
      `Hello ${data.visitorName},`,
      [`Your appointment with ${data.workspaceName} is confirmed.`],
      when(data),
      [data.policyText],
    ),
  /** To the visitor: declined, with the optional reason. */
  visitorDeclined: (data: AppointmentMailData): RenderedMail =>
    render(
      `Your appointment request with ${data.workspaceName} was declined`,
      `Hello ${data.visitorName},`,
      [`Unfortunately ${data.workspaceName} could not accept your appointment request.`],
      [...when(data), { label: 'Reason', value: data.declineReason ?? '' }],
      [],
    ),
};
