import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import {
  bookingRulesBody,
  bookingRulesSchema,
  cancelResultSchema,
  feedQuery,
  feedTokenSchema,
  manageCancelBody,
  manageRescheduleBody,
  manageViewSchema,
  tokenParams,
} from './appointments.schemas.js';
import { getBookingRules } from './availability.service.js';
import { feedCalendar, rotateFeedToken } from './feed.service.js';
import { cancelByManageToken, rescheduleByManageToken, viewByManageToken } from './manage.service.js';
import { putBookingRules } from './settings.service.js';
import { managePage, pageLanguage } from './manage.page.js';
import { z } from 'zod';

const external = ['External: appointments'];
const admin = ['Appointments'];

/** The visitor's manage link, the booking rules beside the plugin settings, and the team's calendar feed. */
export const manageRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/appointments/manage/:token',
    summary: "The visitor's manage page (HTML)",
    description:
      'A small page for the link in the confirmation mail: shows the appointment and offers cancel and move through the JSON manage routes below. Language from `lang` (BCP 47), else `Accept-Language`, else English (en, de, fr, es). The server renders no appointment data (the page script fetches it), so an unknown token still gets the page, which says the link is unknown. Declared as a route so the token is redacted from logs and rate limited like the JSON routes.',
    tags: external,
    auth: 'manageToken',
    params: tokenParams,
    query: z.object({ lang: z.string().max(35).optional() }),
    responses: { 200: { description: 'The page (text/html).' } },
    handle: async ({ req, res, query }) => {
      res
        .status(200)
        .type('text/html; charset=utf-8')
        .setHeader('Cache-Control', 'no-store')
        .setHeader('Referrer-Policy', 'no-referrer')
        .setHeader('Content-Security-Policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; base-uri 'none'")
        .send(managePage(pageLanguage(query.lang, req.get('accept-language'))));
      return {};
    },
  }),
  route({
    method: 'get',
    path: '/external/appointments/manage/:token',
    summary: 'A confirmed appointment by its manage token',
    description:
      'No key needed: the manage token (minted at confirmation and sent only in the confirmation mail\'s link) is the credential; it stays valid until the appointment has ended, also after a cancellation (which then shows `CANCELLED`). `canCancel`: CONFIRMED and at least `cancelNoticeHours` before the start; `canReschedule`: CONFIRMED, not started, and fewer than `maxReschedules` moves so far.',
    tags: external,
    auth: 'manageToken',
    params: tokenParams,
    responses: { 200: { description: 'The appointment.', schema: manageViewSchema }, 404: 'Unknown or expired token (`manage_token_not_found`).' },
    handle: async ({ deps, params }) => ({ body: await viewByManageToken(deps, params.token) }),
  }),
  route({
    method: 'post',
    path: '/external/appointments/manage/:token/cancel',
    summary: 'Cancel a confirmed appointment (visitor)',
    description:
      'CONFIRMED only (409 `appointment_not_confirmed`), and at least `cancelNoticeHours` (booking rules, default 24) before the start, else 409 `too_late_to_cancel` (exactly that many hours ahead is allowed). Frees the time at once, drops the pending reminders, mails the visitor (with a METHOD:CANCEL calendar update of the same UID) and the team (with the optional `reason`).',
    tags: external,
    auth: 'manageToken',
    params: tokenParams,
    body: manageCancelBody,
    responses: { 200: { description: 'Cancelled.', schema: cancelResultSchema }, 404: 'Unknown or expired token.', 409: 'Not confirmed, or too late.' },
    handle: async ({ deps, params, body }) => ({ body: await cancelByManageToken(deps, params.token, body.reason ?? null) }),
  }),
  route({
    method: 'post',
    path: '/external/appointments/manage/:token/reschedule',
    summary: 'Move a confirmed appointment (visitor)',
    description: [
      'CONFIRMED only (409 `appointment_not_confirmed`); at most `maxReschedules` moves (booking rules, default 3; counted by `rescheduleCount`, which staff moves raise too), then 409 `reschedule_limit_reached`.',
      '`requestedAt` must pass every rule a new request passes, with the same 404 codes (`slot_in_past`, `slot_in_lead_time`, `slot_outside_booking_window`, `slot_outside_business_hours`); its own current time does not count against it. A slot taken by another confirmed appointment, its buffers or a full day, the current start itself, or a race lost to another booking is 409 `slot_taken` (reserved time cells under a unique index, as for confirm).',
      'Answers the appointment with the new `scheduledAt` and `rescheduleCount` + 1; mails the visitor (calendar REQUEST with the same UID and a higher SEQUENCE) and the team; replans the reminders.',
    ].join('\n\n'),
    tags: external,
    auth: 'manageToken',
    params: tokenParams,
    body: manageRescheduleBody,
    responses: {
      200: { description: 'Moved.', schema: manageViewSchema },
      404: 'Unknown or expired token, or the new start breaks a booking rule.',
      409: 'Not confirmed, slot taken, or the limit of moves reached.',
    },
    handle: async ({ deps, params, body }) => ({ body: await rescheduleByManageToken(deps, params.token, body.requestedAt) }),
  }),

  // ------------------------------------------------------------------------------------ admin
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/plugins/appointments/rules',
    summary: 'Booking rules',
    description: 'The rules beside the plugin settings; defaults until first set.',
    tags: admin,
    auth: 'member',
    params: workspaceIdParams,
    responses: { 200: { description: 'Rules.', schema: bookingRulesSchema } },
    handle: async ({ deps, workspace }) => ({ body: await getBookingRules(deps, workspace.id) }),
  }),
  route({
    method: 'put',
    path: '/admin/workspaces/:wid/plugins/appointments/rules',
    summary: 'Set the booking rules (owners)',
    description: [
      'Replaces every rule; an omitted field takes its default. Availability, new requests and the visitor\'s moves apply them; staff confirm and reschedule (any time staff choose) do not.',
      '`dateOverrides`: local date `YYYY-MM-DD` -> ranges as in `businessHours` (replacing that date\'s hours; `[]` closes it), at most 400 dates. `bufferBeforeMinutes` / `bufferAfterMinutes` (0 to 240, multiples of 5, default 0): each confirmed appointment also holds this much time before / after it, and so does a new slot. `maxPerDay` (1 to 500 or null): confirmed appointments per local day of the plugin zone.',
      '`cancelNoticeHours` (0 to 720, default 24), `maxReschedules` (0 to 20, default 3): the visitor\'s manage link. `reminders` (at most 5 distinct values, 5 to 43200 minutes before the start, default `[1440, 60]`): reminder mails, planned at confirmation; a change applies to later confirmations and moves.',
      'Each invalid field is a 400 issue with its path (e.g. `dateOverrides.2026-12-31.0`).',
    ].join('\n\n'),
    tags: admin,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    body: bookingRulesBody,
    responses: { 200: { description: 'Stored rules.', schema: bookingRulesSchema }, 400: 'Invalid rule.', 403: 'Agents and editors may not change rules.' },
    handle: async ({ deps, workspace, body }) => ({ body: await putBookingRules(deps, workspace.id, body) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/appointments/feed-token/rotate',
    summary: 'Mint or rotate the calendar feed token (owners)',
    description: 'Returns a new feed token and the subscription `url` holding it (shown once); the previous token stops working at once.',
    tags: admin,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    responses: { 200: { description: 'The new token.', schema: feedTokenSchema } },
    handle: async ({ deps, workspace }) => ({ body: await rotateFeedToken(deps, workspace.id) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/appointments.ics',
    summary: 'Calendar feed of confirmed appointments',
    description:
      'Read-only iCalendar (`text/calendar`, METHOD:PUBLISH) for calendar subscriptions: confirmed appointments from 31 days back to 366 days ahead, one event each with the same UID as the visitor\'s invite. No session: the `token` query (minted by the rotate route; logged redacted) is the credential; missing, unknown or rotated is 401 `invalid_feed_token`.',
    tags: admin,
    auth: 'none',
    params: workspaceIdParams,
    query: feedQuery,
    responses: { 200: { description: 'The calendar (text/calendar).' }, 401: 'Missing, unknown or rotated token.' },
    handle: async ({ deps, params, query, res }) => {
      const text = await feedCalendar(deps, params.wid, query.token);
      res.status(200).type('text/calendar; charset=utf-8').setHeader('Cache-Control', 'private, no-store');
      res.send(text);
      return {};
    },
  }),
];
