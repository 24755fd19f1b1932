import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, watchingCommands, type DriverCommand, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { activateChat, startChat } from '../livechat/support.js';
import { book, configure } from '../appointments/helpers.js';

// The team app's lists ask `total=false`: on FerretDB a count scans everything its filter matches, and a
// list's first paint only needs to know whether there is more.

const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
let node: HearthNode;
let ws: WorkspaceFixture;
/** Each list and the collection it reads. */
const LISTS: [string, string][] = [
  ['/conversations', 'livechat_conversations'],
  ['/submissions', 'submissions'],
  ['/appointments', 'appointments'],
];

beforeAll(async () => {
  node = await startTestNode({ clock });
  ws = await createWorkspace(node.url);
  const publishableKey = await activateChat(node.url, ws);
  await configure(node.url, ws);
  for (let i = 0; i < 4; i += 1) {
    clock.advance(1_000);
    expect((await startChat(node.url, publishableKey, { visitorSessionId: `visitor-${i}` })).status).toBe(201);
    expect((await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Ada', email: 'ada@example.com', message: `#${i}` } })).status).toBe(201);
    await book(node.url, ws, `2025-06-03T1${i}:00:00Z`);
  }
});
afterAll(async () => {
  await node.stop();
});

const list = (path: string, qs: string) => request(node.url, `/admin/workspaces/${ws.id}${path}${qs}`, { token: ws.token });

test.each(LISTS)('%s?total=false counts nothing and still says exactly whether there is more', async (path, collection) => {
  const commands: string[] = [];
  const seen = (event: DriverCommand) => commands.push(`${event.commandName} ${String(event.command[event.commandName])}`);
  const first = await watchingCommands(node, seen, () => list(path, '?limit=2&total=false'));
  expect(first.status).toBe(200);
  expect(first.body.items).toHaveLength(2);
  // Reads of the list only (of one more than the page; chats and submissions a bucket at a time, see
  // src/db/newest-first.ts, here the newest and the one below, read together), no count.
  const reads = commands.filter((command) => command.endsWith(` ${collection}`));
  expect(new Set(reads)).toEqual(new Set([`find ${collection}`]));
  expect(reads.length).toBeLessThanOrEqual(2);
  expect(first.body.pageInfo).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasNext: true, hasPrev: false });

  // The last page: exactly full, nothing after it.
  const last = await list(path, '?limit=2&page=2&total=false');
  expect(last.body.items).toHaveLength(2);
  expect(last.body.pageInfo).toMatchObject({ total: 4, hasNext: false, hasPrev: true });
  expect((await list(path, '?limit=4&total=false')).body.pageInfo).toMatchObject({ total: 4, hasNext: false });
  expect((await list(path, '?limit=3&total=false')).body.pageInfo).toMatchObject({ total: 4, hasNext: true });

  // Counted as before without it, or with `total=true`.
  const counted = await list(path, '?limit=2&page=2');
  expect(counted.body.pageInfo).toEqual({ page: 2, limit: 2, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
  expect((await list(path, '?limit=1&total=true')).body.pageInfo).toMatchObject({ total: 4, totalPages: 4 });
});

test.each(LISTS)('%s?total= other than true or false is a 400 naming the field', async (path) => {
  const res = await list(path, '?total=no');
  expect(res.status).toBe(400);
  expect(res.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['total']);
});
