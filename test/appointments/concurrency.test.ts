import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { book, configure, staff } from './helpers.js';

// Two nodes on one database: the no-overlap rule must hold whichever node takes each confirm.
const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
let nodes: HearthNode[];
beforeAll(async () => {
  const dbName = uniqueDbName('appt');
  nodes = [await startTestNode({ clock, dbName })];
  nodes.push(await startTestNode({ clock, dbName }));
});
afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
});

test('20 concurrent confirms of overlapping requests on two nodes leave exactly one CONFIRMED', async () => {
  const [a, b] = nodes;
  const ws = await createWorkspace(a.url);
  await configure(a.url, ws, { bookingWindowDays: 7 });
  // Twenty requests for 10:00; ten are confirmed at 10:00 and ten moved to 10:30 (60 minutes each): every pair overlaps.
  const requests = [];
  for (let i = 0; i < 20; i++) requests.push(await book(i % 2 ? b.url : a.url, ws, '2025-06-03T10:00:00Z'));
  const answers = await Promise.all(
    requests.map((r, i) => staff(i % 2 ? a.url : b.url, ws, `/${r.id}/confirm`, i >= 10 ? { scheduledAt: '2025-06-03T10:30:00Z' } : {})),
  );
  expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
  expect(answers.filter((res) => res.status === 409)).toHaveLength(19);
  const confirmed = await request(a.url, `/admin/workspaces/${ws.id}/appointments?status=CONFIRMED`, { token: ws.token });
  expect(confirmed.body.pageInfo.total).toBe(1);

  // The losers left no reserved time behind: a non-overlapping confirm right next to the winner succeeds.
  const winner = confirmed.body.items[0];
  const end = new Date(new Date(winner.scheduledAt).getTime() + 60 * 60_000).toISOString();
  const neighbour = await book(a.url, ws, '2025-06-03T14:00:00Z');
  expect((await staff(b.url, ws, `/${neighbour.id}/confirm`, { scheduledAt: end })).status).toBe(200);
});

test('concurrent reschedules and confirms onto one time: at most one wins, no overlap remains', async () => {
  const [a, b] = nodes;
  const ws = await createWorkspace(a.url);
  await configure(a.url, ws, { bookingWindowDays: 7 });
  const confirmedIds: string[] = [];
  for (const hour of ['09', '11', '13', '15']) {
    const r = await book(a.url, ws, `2025-06-03T${hour}:00:00Z`);
    expect((await staff(a.url, ws, `/${r.id}/confirm`)).status).toBe(200);
    confirmedIds.push(r.id);
  }
  const pendingIds = [];
  for (let i = 0; i < 4; i++) pendingIds.push((await book(b.url, ws, '2025-06-03T16:00:00Z')).id);
  const calls = [
    ...confirmedIds.map((id, i) => staff(i % 2 ? a.url : b.url, ws, `/${id}/reschedule`, { scheduledAt: '2025-06-04T10:00:00Z' })),
    ...pendingIds.map((id, i) => staff(i % 2 ? b.url : a.url, ws, `/${id}/confirm`, { scheduledAt: '2025-06-04T10:15:00Z' })),
  ];
  const answers = await Promise.all(calls);
  expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
  const list = (await request(a.url, `/admin/workspaces/${ws.id}/appointments?status=CONFIRMED`, { token: ws.token })).body.items as { scheduledAt: string; durationMinutes: number }[];
  const ranges = list.map((item) => [Date.parse(item.scheduledAt), Date.parse(item.scheduledAt) + item.durationMinutes * 60_000]).sort((x, y) => x[0] - y[0]);
  for (let i = 1; i < ranges.length; i++) expect(ranges[i][0]).toBeGreaterThanOrEqual(ranges[i - 1][1]);
});
