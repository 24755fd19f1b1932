import { expect, test } from '@jest/globals';
import ICAL from 'ical.js';
import { feedIcs, inviteIcs } from '../../src/appointments/calendar.js';
import type { Appointment } from '../../src/appointments/appointments.model.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';

/**
 * A name is a parameter value in an invite (`ATTENDEE;CN="..."`, `ORGANIZER;CN="..."`): whatever an anonymous
 * visitor or a workspace calls itself, a calendar reads back that name and the one address Hearth wrote.
 */

const at = new Date('2026-12-01T09:00:00Z');
const workspace = (name: string): Workspace => ({
  id: 'w1', slug: 'w', name, locales: ['en'], defaultLocale: 'en', customConfig: null, schemaOrg: null, webhookUrl: null,
  analytics: null, siteUrl: null, version: 1, createdAt: at, updatedAt: at,
});
const appointment = (visitorName: string): Appointment => ({
  id: 'a1', workspaceId: 'w1', status: 'CONFIRMED', requestedAt: at, scheduledAt: at, scheduledEnd: null, durationMinutes: 30,
  timezone: 'Europe/Berlin', visitorName, visitorEmail: 'visitor@example.test', visitorPhone: null, visitorMessage: null,
  visitorSessionId: null, externalId: null, identityVerified: false, visitorAttributes: null, declineReason: null,
  rescheduleCount: 0, respondedAt: null, cancelledAt: null, cancelReason: null, createdAt: at, locale: null,
});

const HOSTILE = [
  'Eve";CN=x:mailto:evil@attacker.test',
  'Eve\\":mailto:evil@attacker.test',
  'Eve\r\nATTENDEE:mailto:evil@attacker.test',
  'Eve\nATTENDEE:mailto:evil@attacker.test',
  'Caret ^ and "quotes" and ^n',
  'Ünïcødé ✓',
];

function events(text: string) {
  return new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent');
}

test.each(HOSTILE)('an invite and the feed keep one attendee with the visitor address and the name as given: %j', (name) => {
  for (const text of [inviteIcs(workspace('Bakery'), appointment(name), 'REQUEST', 'Hearth <no-reply@hearth.test>', 'Europe/Berlin'), feedIcs(workspace('Bakery'), [appointment(name)], 'no-reply@hearth.test', 'UTC')]) {
    const [event] = events(text);
    const attendees = event.getAllProperties('attendee');
    expect(attendees).toHaveLength(1);
    expect(attendees[0].getFirstValue()).toBe('mailto:visitor@example.test');
    // Line breaks cannot be a parameter's: they arrive as spaces; every other character as sent.
      expect(attendees[0].getParameter('cn')).toBe(name.replace(/\r\n|\r|\n/g, ' '));
  }
});

test.each(HOSTILE)('a workspace name stays the organizer name and the feed name: %j', (name) => {
  const [event] = events(inviteIcs(workspace(name), appointment('Ann'), 'REQUEST', 'no-reply@hearth.test', 'UTC'));
  const organizers = event.getAllProperties('organizer');
  expect(organizers).toHaveLength(1);
  expect((organizers[0].getFirstValue() as string).toLowerCase()).toBe('mailto:no-reply@hearth.test');
  expect(organizers[0].getParameter('cn')).toBe(name.replace(/\r\n|\r|\n/g, ' '));
  expect(event.getAllProperties('attendee')).toHaveLength(1);
});
