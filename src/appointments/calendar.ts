import { createEvent, createEvents, type EventAttributes } from 'ics';
import type { Workspace } from '../workspaces/workspaces.service.js';
import type { Appointment } from './appointments.model.js';

export type InviteMethod = 'REQUEST' | 'CANCEL';

/** Stable per appointment, so calendars update the one event they already hold. */
export const eventUid = (a: Appointment) => `appointment-${a.id}@hearth`;

/** Confirmation is 0; every later change (a move, the cancellation) is one more. */
export const sequenceOf = (a: Appointment) => a.rescheduleCount + (a.status === 'CANCELLED' ? 1 : 0);

/** The address part of `Name <addr>` or a bare address. */
function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from.trim();
}

/**
 * A name as an iCalendar parameter value (`CN="..."`). The ics library quotes it but writes a `"` inside as
 * `\"`, which no parser reads as an escape: the quote ends the value and the rest of the name becomes the
 * line's own parameters and address. RFC 6868 is how a value carries `"` (`^'`) and `^` (`^^`); line breaks
 * and other control characters cannot be in a name and become spaces.
 */
export function parameterText(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced here
  return name.replace(/\r\n|[\x00-\x1f\x7f]/g, ' ').replace(/\^/g, '^^').replace(/"/g, "^'");
}

function eventOf(workspace: Workspace, a: Appointment, organizerEmail: string, method?: InviteMethod): EventAttributes {
  const start = a.scheduledAt ?? a.requestedAt;
  return {
    uid: eventUid(a),
    sequence: sequenceOf(a),
    start: start.getTime(),
    startInputType: 'utc',
    startOutputType: 'utc',
    end: (a.scheduledEnd ?? new Date(start.getTime() + a.durationMinutes * 60_000)).getTime(),
    endInputType: 'utc',
    endOutputType: 'utc',
    title: workspace.name,
    status: method === 'CANCEL' || a.status === 'CANCELLED' ? 'CANCELLED' : 'CONFIRMED',
    organizer: { name: parameterText(workspace.name), email: organizerEmail },
    attendees: [{ name: parameterText(a.visitorName), email: a.visitorEmail, rsvp: false, role: 'REQ-PARTICIPANT', partstat: 'ACCEPTED' }],
    productId: 'hearth/appointments',
  };
}

/**
 * Times are written in UTC (unambiguous whatever the reader's zone); the plugin's zone travels as
 * `X-WR-TIMEZONE`, so a client shows the event the way the business sees it.
 */
function withZone(text: string, timezone: string): string {
  return text.replace(/^BEGIN:VCALENDAR\r?\n/, (line) => `${line}X-WR-TIMEZONE:${timezone}\r\n`);
}

function unwrap(result: { error: Error | null; value?: string | null }): string {
  if (result.error || !result.value) throw result.error ?? new Error('ics produced no text');
  return result.value;
}

/** An iTIP invite (REQUEST: new or changed; CANCEL: withdrawn) of one appointment. */
export function inviteIcs(workspace: Workspace, a: Appointment, method: InviteMethod, organizerFrom: string, timezone: string): string {
  return withZone(unwrap(createEvent({ ...eventOf(workspace, a, addressOf(organizerFrom), method), method })), timezone);
}

/** The team's subscription feed: every given appointment, published. */
export function feedIcs(workspace: Workspace, appointments: Appointment[], organizerFrom: string, timezone: string): string {
  if (appointments.length === 0) {
    return withZone(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:hearth/appointments', 'METHOD:PUBLISH', `X-WR-CALNAME:${workspace.name.replace(/[\r\n,;\\]/g, ' ')}`, 'END:VCALENDAR', ''].join('\r\n'), timezone);
  }
  const events = appointments.map((a, i) => ({ ...eventOf(workspace, a, addressOf(organizerFrom)), ...(i === 0 ? { method: 'PUBLISH', calName: workspace.name } : {}) }));
  return withZone(unwrap(createEvents(events)), timezone);
}
