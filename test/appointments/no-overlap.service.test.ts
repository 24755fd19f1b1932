import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { failure, newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName } from '../support/harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { confirm, listForStaff, reschedule } from '../../src/appointments/staff.service.js';
import type { ErrorName } from '../../src/shared/errors.js';
import { bookService, configureService } from './service-helpers.js';

// The services of two nodes on one database: the no-overlap rule must hold whichever node takes each
// confirm. The rule lives in the cell reservation (a unique index), not in HTTP, so no server is needed.
const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
let nodes: ServiceHarness[];
beforeAll(async () => {
  const dbName = uniqueDbName('appt');
  nodes = [await startServices({ clock, dbName })];
  nodes.push(await startServices({ clock, dbName }));
});
afterAll(async () => {
  await Promise.all(nodes.map((node) => node.close()));
});

/** Settles every call: `ok` for a success, the error name for a refusal (anything else fails the test). */
async function outcomes(calls: Promise<unknown>[]): Promise<('ok' | ErrorName)[]> {
  return Promise.all(calls.map((call) => call.then(() => 'ok' as const, (error) => failure(Promise.reject(error as Error)).then((e) => e.errorName))));
}

test('20 concurrent confirms of overlapping requests on two nodes leave exactly one CONFIRMED', async () => {
  const [a, b] = nodes;
  const { workspace: ws } = await newWorkspace(a.deps);
  await configureService(a.deps, ws, { bookingWindowDays: 7 });
  // Twenty requests for 10:00; ten are confirmed at 10:00 and ten moved to 10:30 (60 minutes each): every pair overlaps.
  const requests = [];
  for (let i = 0; i < 20; i++) requests.push(await bookService((i % 2 ? b : a).deps, ws, '2025-06-03T10:00:00Z'));
  const answers = await outcomes(
    requests.map((r, i) => confirm((i % 2 ? a : b).deps, ws, r.id, i >= 10 ? new Date('2025-06-03T10:30:00Z') : undefined)),
  );
  expect(answers.filter((answer) => answer === 'ok')).toHaveLength(1);
  expect(answers.filter((answer) => answer === 'appointment_overlap')).toHaveLength(19);
  const confirmed = await listForStaff(a.deps, ws.id, { status: 'CONFIRMED', page: 1, limit: 50 });
  expect(confirmed.pageInfo.total).toBe(1);

  // The losers left no reserved time behind: a non-overlapping confirm right next to the winner succeeds.
  const winner = confirmed.items[0];
  const end = new Date(new Date(winner.scheduledAt!).getTime() + 60 * 60_000);
  const neighbour = await bookService(a.deps, ws, '2025-06-03T14:00:00Z');
  expect((await confirm(b.deps, ws, neighbour.id, end)).status).toBe('CONFIRMED');
});

test('concurrent reschedules and confirms onto one time: at most one wins, no overlap remains', async () => {
  const [a, b] = nodes;
  const { workspace: ws } = await newWorkspace(a.deps);
  await configureService(a.deps, ws, { bookingWindowDays: 7 });
  const confirmedIds: string[] = [];
  for (const hour of ['09', '11', '13', '15']) {
    const r = await bookService(a.deps, ws, `2025-06-03T${hour}:00:00Z`);
    await confirm(a.deps, ws, r.id);
    confirmedIds.push(r.id);
  }
  const pendingIds = [];
  for (let i = 0; i < 4; i++) pendingIds.push((await bookService(b.deps, ws, '2025-06-03T16:00:00Z')).id);
  const answers = await outcomes([
    ...confirmedIds.map((id, i) => reschedule((i % 2 ? a : b).deps, ws, id, new Date('2025-06-04T10:00:00Z'))),
    ...pendingIds.map((id, i) => confirm((i % 2 ? b : a).deps, ws, id, new Date('2025-06-04T10:15:00Z'))),
  ]);
  expect(answers.filter((answer) => answer === 'ok')).toHaveLength(1);
  const list = (await listForStaff(a.deps, ws.id, { status: 'CONFIRMED', page: 1, limit: 50 })).items;
  const ranges = list.map((item) => [Date.parse(item.scheduledAt!), Date.parse(item.scheduledAt!) + item.durationMinutes * 60_000]).sort((x, y) => x[0] - y[0]);
  for (let i = 1; i < ranges.length; i++) expect(ranges[i][0]).toBeGreaterThanOrEqual(ranges[i - 1][1]);
});
