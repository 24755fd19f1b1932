import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { rotateKey } from '../../src/credentials/credentials.service.js';
import { derivedIdentitySecret, signIdentity } from '../../src/identity/identity.service.js';
import { book, configure, staff } from './helpers.js';

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

async function freshWorkspace() {
  clock.set(NOW);
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, { timezone: 'Europe/Berlin', businessHours: { tue: [['09:00', '17:00']] } });
  return ws;
}

const tokenFor = (ws: WorkspaceFixture, externalId: string) => signIdentity(derivedIdentitySecret(ws.apiKey), externalId);
const bookAs = (ws: WorkspaceFixture, externalId: string, requestedAt = SLOT, identityToken = tokenFor(ws, externalId)) =>
  book(node.url, ws, requestedAt, { visitor: { externalId, identityToken } });
const lookup = (ws: WorkspaceFixture, body: Record<string, unknown>, apiKey = ws.apiKey) =>
  request(node.url, '/external/appointments/requests/lookup', { apiKey, body });

test('only verified bookings of that externalId, with the appointment fields through their states', async () => {
  const ws = await freshWorkspace();
  const pending = await bookAs(ws, 'person-1');
  clock.advance(1000);
  const confirmed = await bookAs(ws, 'person-1', '2025-06-03T09:00:00.000Z');
  clock.advance(1000);
  const rejected = await bookAs(ws, 'person-1', '2025-06-03T11:00:00.000Z');
  clock.advance(1000);
  await bookAs(ws, 'person-1', SLOT, 'f'.repeat(64)); // failed verification: anonymous, never listed
  await book(node.url, ws, SLOT); // anonymous
  await bookAs(ws, 'person-2');
  expect((await staff(node.url, ws, `/${confirmed.id}/confirm`)).status).toBe(200);
  expect((await staff(node.url, ws, `/${rejected.id}/decline`, { reason: 'Fully booked' })).status).toBe(200);

  const res = await lookup(ws, { externalId: 'person-1', identityToken: tokenFor(ws, 'person-1') });
  expect(res.status).toBe(200);
  expect(res.body.timezone).toBe('Europe/Berlin');
  expect(res.body.appointments.map((a: { id: string }) => a.id)).toEqual([rejected.id, confirmed.id, pending.id]);
  const [r, c, p] = res.body.appointments;
  expect(p).toEqual({
    id: pending.id,
    status: 'PENDING',
    requestedAt: SLOT,
    scheduledAt: null,
    durationMinutes: 60,
    timezone: 'Europe/Berlin',
    declineReason: null,
    rescheduleCount: 0,
    respondedAt: null,
    createdAt: NOW.toISOString(),
  });
  expect(c).toMatchObject({ status: 'CONFIRMED', scheduledAt: '2025-06-03T09:00:00.000Z', declineReason: null, respondedAt: expect.any(String) });
  expect(r).toMatchObject({ status: 'REJECTED', scheduledAt: null, declineReason: 'Fully booked', respondedAt: expect.any(String) });

  // A reschedule shows in scheduledAt and rescheduleCount.
  expect((await staff(node.url, ws, `/${confirmed.id}/reschedule`, { scheduledAt: '2025-06-03T14:00:00Z' })).status).toBe(200);
  const after = await lookup(ws, { externalId: 'person-1', identityToken: tokenFor(ws, 'person-1').toUpperCase(), id: confirmed.id });
  expect(after.body.appointments).toHaveLength(1);
  expect(after.body.appointments[0]).toMatchObject({ scheduledAt: '2025-06-03T14:00:00.000Z', rescheduleCount: 1 });
});

test('a bad identity token is a hard 401', async () => {
  const ws = await freshWorkspace();
  await bookAs(ws, 'person-1');
  for (const identityToken of [tokenFor(ws, 'person-2'), 'a'.repeat(64), 'not-hex']) {
    const res = await lookup(ws, { externalId: 'person-1', identityToken });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('identity_not_verified');
  }
});

test('id narrows to one booking; unknown and foreign ids are the same 404', async () => {
  const ws = await freshWorkspace();
  const mine = await bookAs(ws, 'person-1');
  const theirs = await bookAs(ws, 'person-2');
  const body = { externalId: 'person-1', identityToken: tokenFor(ws, 'person-1') };
  const one = await lookup(ws, { ...body, id: mine.id });
  expect(one.status).toBe(200);
  expect(one.body.appointments.map((a: { id: string }) => a.id)).toEqual([mine.id]);
  const foreign = await lookup(ws, { ...body, id: theirs.id });
  const unknown = await lookup(ws, { ...body, id: '0123456789abcdef01234567' });
  const garbage = await lookup(ws, { ...body, id: 'xyz' });
  for (const res of [foreign, unknown, garbage]) {
    expect(res.status).toBe(404);
    expect(res.body).toEqual(foreign.body);
  }
  // A verified person of another workspace sees nothing here either.
  const other = await freshWorkspace();
  const elsewhere = await lookup(other, { externalId: 'person-1', identityToken: tokenFor(other, 'person-1'), id: mine.id });
  expect(elsewhere.status).toBe(404);
});

test('newest first, at most 50', async () => {
  const ws = await freshWorkspace();
  const ids: string[] = [];
  for (let i = 0; i < 51; i++) {
    ids.push((await bookAs(ws, 'regular')).id);
    clock.advance(1000);
  }
  const res = await lookup(ws, { externalId: 'regular', identityToken: tokenFor(ws, 'regular') });
  expect(res.body.appointments).toHaveLength(50);
  expect(res.body.appointments.map((a: { id: string }) => a.id)).toEqual(ids.slice(1).reverse());
});

test('400 on missing or oversized fields; 401 with the publishable key or no key', async () => {
  const ws = await freshWorkspace();
  const token = tokenFor(ws, 'person-1');
  for (const body of [{ identityToken: token }, { externalId: 'person-1' }, { externalId: 'x'.repeat(129), identityToken: token }, { externalId: 'person-1', identityToken: token, id: 'x'.repeat(65) }]) {
    const res = await lookup(ws, body);
    expect(res.status).toBe(400);
    expect(res.body.issues.length).toBeGreaterThan(0);
  }
  // 128 characters is within the bound.
  expect((await lookup(ws, { externalId: 'x'.repeat(128), identityToken: tokenFor(ws, 'x'.repeat(128)) })).status).toBe(200);
  const pk = await rotateKey(node.deps, ws.id, 'publishable');
  const withPk = await request(node.url, '/external/appointments/requests/lookup', { publishableKey: pk, body: { externalId: 'person-1', identityToken: token } });
  expect(withPk.status).toBe(401);
  expect((await request(node.url, '/external/appointments/requests/lookup', { body: { externalId: 'person-1', identityToken: token } })).status).toBe(401);
});
