import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { rotateKey } from '../../src/credentials/credentials.service.js';
import { derivedIdentitySecret, setExplicitIdentitySecret, signIdentity } from '../../src/identity/identity.service.js';
import { book, configure, staff, visitorBody } from './helpers.js';

const NOW = new Date('2025-06-02T06:00:00Z');
const SLOT = '2025-06-03T10:00:00.000Z';
const clock = new ManualClock(NOW);
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

const post = (ws: WorkspaceFixture, body: unknown) => request(node.url, '/external/appointments/requests', { apiKey: ws.apiKey, body });
const settings = { leadTimeHours: 2, bookingWindowDays: 7 };

async function freshWorkspace(overrides: Record<string, unknown> = {}) {
  clock.set(NOW);
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { ...settings, ...overrides });
  return ws;
}

test('201 with the request record: canonical UTC start, configured duration, PENDING, a cancellation token', async () => {
  const ws = await freshWorkspace();
  const res = await post(ws, visitorBody('2025-06-03T12:00:00+02:00'));
  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    id: expect.stringMatching(/^[0-9a-f]{24}$/),
    createdAt: NOW.toISOString(),
    requestedAt: SLOT,
    durationMinutes: 60,
    status: 'PENDING',
    identityVerified: false,
    cancellationToken: expect.any(String),
  });

  // The duration is the one configured at submission; changing it later does not touch stored requests.
  await configure(node.url, ws, { ...settings, slotDurationMinutes: 30 });
  const second = await post(ws, visitorBody('2025-06-03T10:30:00Z'));
  expect(second.body.durationMinutes).toBe(30);
  const first = await request(node.url, `/external/appointments/requests/${res.body.cancellationToken}`);
  expect(first.body.durationMinutes).toBe(60);
});

describe('bounds', () => {
  const long = (n: number) => 'x'.repeat(n);
  // 64 + 1 + 135 = 200 characters.
  const email200 = `${'a'.repeat(64)}@${'b'.repeat(50)}.${'c'.repeat(50)}.${'d'.repeat(29)}.com`;

  const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    ['visitorName', { visitorName: long(120) }, { visitorName: long(121) }, 'visitorName'],
    ['visitorEmail', { visitorEmail: email200 }, { visitorEmail: `${email200.slice(0, 64)}a${email200.slice(64)}` }, 'visitorEmail'],
    ['visitorPhone', { visitorPhone: long(40) }, { visitorPhone: long(41) }, 'visitorPhone'],
    ['visitorMessage', { visitorMessage: long(2000) }, { visitorMessage: long(2001) }, 'visitorMessage'],
    ['visitorSessionId', { visitorSessionId: long(120) }, { visitorSessionId: long(121) }, 'visitorSessionId'],
  ];

  test.each(cases)('%s: the limit passes, one more is 400', async (_name, ok, tooLong, path) => {
    const ws = await freshWorkspace();
    expect((await post(ws, visitorBody(SLOT, ok))).status).toBe(201);
    const res = await post(ws, visitorBody(SLOT, tooLong));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.issues.map((issue: { path: string }) => issue.path).some((p: string) => p.startsWith(path))).toBe(true);
  });

  test('missing fields, an empty name, an invalid e-mail and a malformed requestedAt are 400 with field issues', async () => {
    const ws = await freshWorkspace();
    for (const field of ['visitorName', 'visitorEmail', 'requestedAt']) {
      const body: Record<string, unknown> = visitorBody(SLOT);
      delete body[field];
      const res = await post(ws, body);
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe(field);
    }
    expect((await post(ws, visitorBody(SLOT, { visitorName: '' }))).body.issues[0].path).toBe('visitorName');
    expect((await post(ws, visitorBody(SLOT, { visitorName: '   ' }))).status).toBe(400);
    expect((await post(ws, visitorBody(SLOT, { visitorEmail: 'not-an-email' }))).body.issues[0].path).toBe('visitorEmail');
    for (const bad of ['next tuesday', '2025-06-03', '2025-06-03T10:00:00', 42]) {
      const res = await post(ws, visitorBody(SLOT, { requestedAt: bad }));
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('requestedAt');
    }
  });
});

describe('404: not bookable, told apart by code and message', () => {
  async function refused(ws: WorkspaceFixture, requestedAt: string, code: string) {
    const res = await post(ws, visitorBody(requestedAt));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(code);
    return res.body.message as string;
  }

  test('every case', async () => {
    const messages = new Set<string>();
    const never = await createWorkspace(node.url);
    messages.add(await refused(never, SLOT, 'appointments_disabled'));
    const off = await freshWorkspace({ enabled: false });
    await refused(off, SLOT, 'appointments_disabled');

    const ws = await freshWorkspace();
    messages.add(await refused(ws, '2025-06-02T05:00:00Z', 'slot_in_past'));
    messages.add(await refused(ws, '2025-06-03T18:00:00Z', 'slot_outside_business_hours'));
    await refused(ws, '2025-06-03T10:30:00Z', 'slot_outside_business_hours'); // off the grid
    await refused(ws, '2025-06-03T16:30:00Z', 'slot_outside_business_hours'); // would end after 17:00
    messages.add(await refused(ws, '2025-06-10T10:00:00Z', 'slot_outside_booking_window'));

    clock.set(new Date('2025-06-02T08:00:00Z')); // floor 10:00
    messages.add(await refused(ws, '2025-06-02T09:00:00Z', 'slot_in_lead_time'));

    clock.set(NOW);
    const taken = await book(node.url, ws, SLOT);
    expect((await staff(node.url, ws, `/${taken.id}/confirm`)).status).toBe(200);
    messages.add(await refused(ws, SLOT, 'slot_taken'));
    expect(messages.size).toBe(6);
  });

  test('lead time boundary: a slot exactly at the floor is accepted, one minute later it is not', async () => {
    const ws = await freshWorkspace();
    clock.set(new Date('2025-06-02T07:00:00Z'));
    expect((await post(ws, visitorBody('2025-06-02T09:00:00Z'))).status).toBe(201);
    clock.set(new Date('2025-06-02T07:01:00Z'));
    expect((await post(ws, visitorBody('2025-06-02T09:00:00Z'))).body.code).toBe('slot_in_lead_time');
  });

  test('booking window boundary: a slot ending exactly at the ceiling is accepted, the next is not', async () => {
    const ws = await freshWorkspace({ leadTimeHours: 0, bookingWindowDays: 1 });
    clock.set(new Date('2025-06-02T11:00:00Z')); // ceiling 2025-06-03T11:00Z
    expect((await post(ws, visitorBody('2025-06-03T10:00:00Z'))).status).toBe(201);
    expect((await post(ws, visitorBody('2025-06-03T11:00:00Z'))).body.code).toBe('slot_outside_booking_window');
  });
});

describe('verified identity', () => {
  const staffView = async (ws: WorkspaceFixture, id: string) => (await request(node.url, `/admin/workspaces/${ws.id}/appointments/${id}`, { token: ws.token })).body;
  const identified = (token: string, extra: Record<string, unknown> = {}) => ({
    visitor: { externalId: 'cust-42', name: 'Verified Name', email: 'verified@example.com', identityToken: token, ...extra },
  });

  test('a valid token attributes the booking and its name and e-mail win; uppercase hex is accepted', async () => {
    const ws = await freshWorkspace();
    const token = signIdentity(derivedIdentitySecret(ws.apiKey), 'cust-42');
    for (const presented of [token, token.toUpperCase()]) {
      const res = await post(ws, visitorBody(SLOT, identified(presented, { attributes: { plan: 'gold' } })));
      expect(res.status).toBe(201);
      expect(res.body.identityVerified).toBe(true);
      const view = await staffView(ws, res.body.id);
      expect(view).toMatchObject({ externalId: 'cust-42', identityVerified: true, visitorName: 'Verified Name', visitorEmail: 'verified@example.com', visitorAttributes: { plan: 'gold' } });
    }
  });

  test('a wrong, malformed or missing token books anonymously, never a 400', async () => {
    const ws = await freshWorkspace();
    const other = await createWorkspace(node.url);
    const wrongTokens = [
      signIdentity(derivedIdentitySecret(other.apiKey), 'cust-42'), // another workspace's secret
      signIdentity(derivedIdentitySecret(ws.apiKey), 'cust-43'), // another person
      'zz-not-hex',
      undefined,
    ];
    for (const token of wrongTokens) {
      const res = await post(ws, visitorBody(SLOT, identified(token as string)));
      expect(res.status).toBe(201);
      expect(res.body.identityVerified).toBe(false);
      const view = await staffView(ws, res.body.id);
      expect(view).toMatchObject({ externalId: null, identityVerified: false, visitorName: 'Ada Lovelace', visitorEmail: 'ada@example.com', visitorAttributes: null });
    }
  });

  test('an identity at its bounds verifies; one over them, or of the wrong shape, books anonymously: 201, never a 400', async () => {
    const ws = await freshWorkspace();
    const long = (n: number) => 'x'.repeat(n);
    const attributes = (n: number, keyLength = 5, valueLength = 5) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i}`.padStart(keyLength, 'k'), long(valueLength)]));
    const signedAs = (externalId: string, extra: Record<string, unknown> = {}) => ({
      visitor: { externalId, identityToken: signIdentity(derivedIdentitySecret(ws.apiKey), externalId), ...extra },
    });
    const verifiedOf = async (body: Record<string, unknown>) => {
      const res = await post(ws, visitorBody(SLOT, body));
      expect(res.status).toBe(201);
      return res.body.identityVerified as boolean;
    };
    const bounds: [Record<string, unknown>, Record<string, unknown>][] = [
      [signedAs(long(128)), signedAs(long(129))],
      [signedAs('u-1', { name: long(120) }), signedAs('u-1', { name: long(121) })],
      [signedAs('u-1', { email: long(200) }), signedAs('u-1', { email: long(201) })],
      [signedAs('u-1', { attributes: attributes(10) }), signedAs('u-1', { attributes: attributes(11) })],
      [signedAs('u-1', { attributes: attributes(1, 40) }), signedAs('u-1', { attributes: attributes(1, 41) })],
      [signedAs('u-1', { attributes: attributes(1, 5, 100) }), signedAs('u-1', { attributes: attributes(1, 5, 101) })],
    ];
    for (const [atBound, over] of bounds) {
      expect(await verifiedOf(atBound)).toBe(true);
      expect(await verifiedOf(over)).toBe(false);
    }
    for (const visitor of ['abc', 42, [], {}, { name: 'No Id' }, { externalId: 7 }, { ...signedAs('u-1').visitor, identityToken: 5 }]) {
      expect(await verifiedOf({ visitor })).toBe(false);
    }
    expect(await verifiedOf({ visitor: null })).toBe(false);
  });

  test('an explicit secret verifies only while configured; the derived secret keeps working beside it', async () => {
    const ws = await freshWorkspace();
    const explicit = signIdentity('my-explicit-identity-secret', 'cust-42');
    expect((await post(ws, visitorBody(SLOT, identified(explicit)))).body.identityVerified).toBe(false);
    await setExplicitIdentitySecret(node.deps, ws.id, 'my-explicit-identity-secret');
    expect((await post(ws, visitorBody(SLOT, identified(explicit)))).body.identityVerified).toBe(true);
    const derived = signIdentity(derivedIdentitySecret(ws.apiKey), 'cust-42');
    expect((await post(ws, visitorBody(SLOT, identified(derived)))).body.identityVerified).toBe(true);
    await setExplicitIdentitySecret(node.deps, ws.id, null);
    expect((await post(ws, visitorBody(SLOT, identified(explicit)))).body.identityVerified).toBe(false);
  });

  test('rotating the API key invalidates tokens made with the old derived secret', async () => {
    const ws = await freshWorkspace();
    const old = signIdentity(derivedIdentitySecret(ws.apiKey), 'cust-42');
    const apiKey = await rotateKey(node.deps, ws.id, 'workspace');
    const res = await request(node.url, '/external/appointments/requests', { apiKey, body: visitorBody(SLOT, identified(old)) });
    expect(res.body.identityVerified).toBe(false);
  });
});

test('credentials: the publishable key cannot book; a missing or unknown key is 401', async () => {
  const ws = await freshWorkspace();
  const pk = await rotateKey(node.deps, ws.id, 'publishable');
  const withPk = await request(node.url, '/external/appointments/requests', { publishableKey: pk, body: visitorBody(SLOT) });
  expect(withPk.status).toBe(401);
  expect(withPk.body.code).toBe('wrong_credential_kind');
  const pkAsApiKey = await request(node.url, '/external/appointments/requests', { apiKey: pk, body: visitorBody(SLOT) });
  expect(pkAsApiKey.status).toBe(401);
  expect((await request(node.url, '/external/appointments/requests', { body: visitorBody(SLOT) })).status).toBe(401);
  expect((await request(node.url, '/external/appointments/requests', { apiKey: 'sk_nope', body: visitorBody(SLOT) })).status).toBe(401);
});

describe('cancellation token', () => {
  const view = (token: string) => request(node.url, `/external/appointments/requests/${token}`);
  const cancel = (token: string) => request(node.url, `/external/appointments/requests/${token}/cancel`, { body: {} });

  test('the token shows the request and cancels it once; a second cancel is 400 and the token no longer reads', async () => {
    const ws = await freshWorkspace();
    const booked = await book(node.url, ws, SLOT, { visitorPhone: '+49 30 1234' });
    const shown = await view(booked.cancellationToken);
    expect(shown.status).toBe(200);
    const workspace = (await request(node.url, '/external/workspace', { apiKey: ws.apiKey })).body;
    expect(shown.body).toEqual({
      id: booked.id,
      visitorName: 'Ada Lovelace',
      visitorEmail: 'ada@example.com',
      requestedAt: SLOT,
      durationMinutes: 60,
      status: 'PENDING',
      workspace: { name: workspace.name, slug: workspace.slug },
    });
    const cancelled = await cancel(booked.cancellationToken);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ id: booked.id, status: 'CANCELLED' });
    const again = await cancel(booked.cancellationToken);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('appointment_not_pending');
    expect((await view(booked.cancellationToken)).status).toBe(404);
    // Staff see it cancelled and cannot confirm it any more.
    expect((await staff(node.url, ws, `/${booked.id}/confirm`)).status).toBe(409);
  });

  test('one token sent to cancel five times at once cancels once: one 200, four 400 appointment_not_pending', async () => {
    const ws = await freshWorkspace();
    for (let round = 0; round < 3; round += 1) {
      const booked = await book(node.url, ws, SLOT);
      const answers = await Promise.all(Array.from({ length: 5 }, () => cancel(booked.cancellationToken)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400, 400]);
      for (const refused of answers.filter((answer) => answer.status === 400)) expect(refused.body.code).toBe('appointment_not_pending');
    }
  });

  test('a staff confirm and a visitor cancel at the same moment: exactly one of them happens', async () => {
    const ws = await freshWorkspace();
    for (let round = 0; round < 3; round += 1) {
      // A slot of its own each round: a confirm that won the round before took its slot.
      const booked = await book(node.url, ws, new Date(Date.parse(SLOT) + round * 3_600_000).toISOString());
      const [confirmed, cancelled] = await Promise.all([staff(node.url, ws, `/${booked.id}/confirm`), cancel(booked.cancellationToken)]);
      expect([confirmed.status === 200, cancelled.status === 200].filter(Boolean)).toHaveLength(1);
      const view = (await request(node.url, `/admin/workspaces/${ws.id}/appointments/${booked.id}`, { token: ws.token })).body;
      expect(view.status).toBe(confirmed.status === 200 ? 'CONFIRMED' : 'CANCELLED');
    }
  });

  test('confirm and decline revoke the token: read and cancel are 404', async () => {
    const ws = await freshWorkspace();
    const confirmed = await book(node.url, ws, SLOT);
    const declined = await book(node.url, ws, SLOT);
    expect((await staff(node.url, ws, `/${confirmed.id}/confirm`)).status).toBe(200);
    expect((await staff(node.url, ws, `/${declined.id}/decline`, { reason: 'Closed that day' })).status).toBe(200);
    for (const token of [confirmed.cancellationToken, declined.cancellationToken]) {
      expect((await view(token)).status).toBe(404);
      const res = await cancel(token);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('appointment_token_not_found');
    }
  });

  test('unknown tokens are 404, however long or odd', async () => {
    for (const token of ['ct_doesnotexist', 'x'.repeat(201), 'x'.repeat(4000), encodeURIComponent('<é>')]) {
      for (const res of [await view(token), await cancel(token)]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('appointment_token_not_found');
      }
    }
  });
});

// The slot rules are service tests (availability.service.test.ts); the edge owns the query and the keys.
describe('GET /external/appointments/availability', () => {
  const availability = (apiKey: string, query = '') => request(node.url, `/external/appointments/availability${query}`, { apiKey });

  test('from/to reach the window (from beyond the ceiling is 200 with an empty window); malformed or reversed from/to is 400', async () => {
    const ws = await freshWorkspace({ leadTimeHours: 24, bookingWindowDays: 3 });
    const beyond = await availability(ws.apiKey, '?from=2025-06-10T00:00:00Z');
    expect(beyond.status).toBe(200);
    expect(beyond.body.slots).toEqual([]);
    expect(beyond.body.windowEnd).toBe(beyond.body.windowStart);
    const malformed = await availability(ws.apiKey, '?from=tomorrow');
    expect(malformed.status).toBe(400);
    expect(malformed.body.issues[0].path).toBe('from');
    const reversed = await availability(ws.apiKey, '?from=2025-06-04T00:00:00Z&to=2025-06-03T00:00:00Z');
    expect(reversed.status).toBe(400);
    expect(reversed.body.issues[0].path).toBe('to');
  });

  test('from/to take any ISO 8601 instant with a zone, seconds or not, or a whole day of the workspace\'s zone', async () => {
    const ws = await freshWorkspace({ timezone: 'Europe/Berlin', leadTimeHours: 0, bookingWindowDays: 7 });
    const starts = (res: { body: { slots: { start: string }[] } }) => res.body.slots.map((slot) => slot.start);
    // A day of Berlin, from its midnight to the next: 09:00-17:00 CEST is 07:00-15:00 UTC.
    const day = await availability(ws.apiKey, '?from=2025-06-04&to=2025-06-04');
    expect(day.status).toBe(200);
    expect(day.body).toMatchObject({ windowStart: '2025-06-03T22:00:00.000Z', windowEnd: '2025-06-04T22:00:00.000Z' });
    expect(starts(day)).toEqual(['07', '08', '09', '10', '11', '12', '13', '14'].map((hour) => `2025-06-04T${hour}:00:00.000Z`));
    const minutes = await availability(ws.apiKey, `?from=${encodeURIComponent('2025-06-04T09:00+02:00')}&to=2025-06-04T10:00Z`);
    expect(starts(minutes)).toEqual(['2025-06-04T07:00:00.000Z', '2025-06-04T08:00:00.000Z', '2025-06-04T09:00:00.000Z']);
    // A booking may name its start without seconds too.
    expect((await post(ws, visitorBody('2025-06-04T07:00Z'))).status).toBe(201);
    for (const [query, path] of [
      ['?from=2025-06-06&to=2025-06-04', 'to'],
      ['?from=2025-06-04T09:00', 'from'],
      ['?to=2025-06-31', 'to'],
    ]) {
      const res = await availability(ws.apiKey, query);
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe(path);
    }
  });

  test('the publishable key reads availability; no key or an unknown key is 401', async () => {
    const ws = await freshWorkspace({ leadTimeHours: 0, bookingWindowDays: 1 });
    const pk = await rotateKey(node.deps, ws.id, 'publishable');
    const viaHeader = await request(node.url, '/external/appointments/availability', { publishableKey: pk });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.slots.length).toBe(8);
    const viaQuery = await request(node.url, `/external/appointments/availability?publishableKey=${pk}`);
    expect(viaQuery.status).toBe(200);
    expect((await request(node.url, '/external/appointments/availability')).status).toBe(401);
    expect((await availability('sk_unknownunknownunknownunknownunknownunknown')).status).toBe(401);
  });
});
