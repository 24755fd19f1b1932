import http from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { configure, everyDay, staff, visitorBody } from './helpers.js';

/**
 * Issue 28, resource caps: one client address holds at most MAX_PENDING_BOOKINGS_PER_ADDRESS pending
 * requests per workspace (each is stored, mailed and shown to the team until answered); past it, 429 in
 * the error shape of every rate limit. Answered or cancelled requests no longer count. Two nodes on one
 * database and Redis: the cap holds across them. Clients are loopback addresses of their own.
 */
const MAX = 3;
let a: HearthNode;
let b: HearthNode;
beforeAll(async () => {
  const dbName = uniqueDbName('pendingcap');
  const env = { MAX_PENDING_BOOKINGS_PER_ADDRESS: String(MAX), RATE_LIMIT_PER_MINUTE: '10000' };
  a = await startTestNode({ redis: true, dbName, env });
  b = await startTestNode({ redis: true, dbName, env });
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const HOUR = 3_600_000;
const slot = (hoursAhead: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hoursAhead * HOUR).toISOString();
const roundTheClock = { leadTimeHours: 0, bookingWindowDays: 7, businessHours: everyDay([['00:00', '24:00']]) };

interface Answer {
  status: number;
  body: { code?: string; message?: string; id?: string; cancellationToken?: string };
  retryAfter: string | undefined;
}

/** A booking request sent from the source address `from` to `node`. */
function bookFrom(node: HearthNode, from: string, ws: WorkspaceFixture, hoursAhead: number): Promise<Answer> {
  const { port } = new URL(node.url);
  const payload = JSON.stringify(visitorBody(slot(hoursAhead)));
  const headers = { 'Content-Type': 'application/json', 'X-Api-Key': ws.apiKey };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/external/appointments/requests', method: 'POST', localAddress: from, agent: false, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'], retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function freshWorkspace(): Promise<WorkspaceFixture> {
  const ws = await createWorkspace(a.url);
  await configure(a.url, ws, roundTheClock);
  return ws;
}

test('exactly the cap of pending requests per address passes, the next is 429; another address and another workspace still book', async () => {
  const ws = await freshWorkspace();
  const statuses = [];
  for (let i = 0; i < MAX; i += 1) statuses.push((await bookFrom(a, '127.0.10.1', ws, 10 + i)).status);
  expect(statuses).toEqual(Array(MAX).fill(201));
  // Pending requests do not block a slot: the refusal is the address's, whichever slot it asks for.
  const refused = await bookFrom(a, '127.0.10.1', ws, 20);
  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('rate_limited');
  expect(refused.body.message).toMatch(/pending requests/);
  expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  // The other node counts the same holds.
  expect((await bookFrom(b, '127.0.10.1', ws, 21)).status).toBe(429);

  expect((await bookFrom(a, '127.0.10.2', ws, 20)).status).toBe(201);
  const other = await freshWorkspace();
  expect((await bookFrom(a, '127.0.10.1', other, 20)).status).toBe(201);
});

test('a cancelled or answered request no longer counts: the address books again', async () => {
  const ws = await freshWorkspace();
  const made = [];
  for (let i = 0; i < MAX; i += 1) made.push((await bookFrom(a, '127.0.11.1', ws, 30 + i)).body);
  expect((await bookFrom(a, '127.0.11.1', ws, 40)).status).toBe(429);

  const cancelled = await request(b.url, `/external/appointments/requests/${made[0].cancellationToken}/cancel`, { body: {} });
  expect(cancelled.status).toBe(200);
  expect((await bookFrom(b, '127.0.11.1', ws, 40)).status).toBe(201);
  expect((await bookFrom(a, '127.0.11.1', ws, 41)).status).toBe(429);

  expect((await staff(a.url, ws, `/${made[1].id}/decline`, { reason: 'Full' })).status).toBe(200);
  expect((await bookFrom(a, '127.0.11.1', ws, 41)).status).toBe(201);
  expect((await bookFrom(a, '127.0.11.1', ws, 42)).status).toBe(429);
});

test('requests racing on two nodes from one address: exactly the cap is stored', async () => {
  const ws = await freshWorkspace();
  const answers = await Promise.all(Array.from({ length: 4 * MAX }, (_, i) => bookFrom(i % 2 ? a : b, '127.0.12.1', ws, 50 + i)));
  const statuses = answers.map((answer) => answer.status).sort();
  expect(statuses).toEqual([...Array(MAX).fill(201), ...Array(3 * MAX).fill(429)]);
  const stored = await request(a.url, `/admin/workspaces/${ws.id}/appointments?status=PENDING`, { token: ws.token });
  expect(stored.body.items).toHaveLength(MAX);
});
