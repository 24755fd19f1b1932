import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { request, startTestNode, uniqueDbName, watchingCommands, type DriverCommand, type WorkspaceFixture } from '../support/harness.js';
import { identityFor, startChat } from '../livechat/support.js';
import { book } from '../appointments/helpers.js';
import { visitorWorkspace, type VisitorWorkspace } from './support.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';

// The inbox's `q` reads chats, submissions and booking requests by a piece of it (`shared/search-grams.ts`),
// never every record of the workspace; every way a name or e-mail reaches a record makes it findable.

const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
const SEARCHED = ['livechat_conversations', 'submissions', 'appointments'];
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

type Fixture = VisitorWorkspace;

const workspace = (on = node) => visitorWorkspace(on.url);

async function chat(on: HearthNode, ws: Fixture, start: Record<string, unknown>, message: Record<string, unknown> = {}) {
  clock.advance(1000);
  const started = await startChat(on.url, ws.publishableKey, { visitorSessionId: `s-${clock.now().getTime()}`, ...start });
  expect(started.status).toBe(201);
  const sent = await request(on.url, `/external/live-chat/conversations/${started.body.conversationToken}/messages`, { body: { body: 'Hello', ...message } });
  expect(sent.status).toBe(201);
  return { id: started.body.conversationId as string, token: started.body.conversationToken as string };
}
async function submission(on: HearthNode, ws: Fixture, body: Record<string, unknown>) {
  clock.advance(1000);
  const res = await request(on.url, '/external/submissions', { apiKey: ws.apiKey, body: { message: 'Call me.', ...body } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function booking(on: HearthNode, ws: Fixture, name: string, email: string, hour: number) {
  clock.advance(1000);
  return (await book(on.url, ws, `2025-06-03T${String(hour).padStart(2, '0')}:00:00Z`, { visitorName: name, visitorEmail: email })).id;
}

const found = async (on: HearthNode, ws: WorkspaceFixture, q: string) => {
  const res = await request(on.url, `/admin/workspaces/${ws.id}/inbox?${new URLSearchParams({ q }).toString()}`, { token: ws.token });
  expect(res.status).toBe(200);
  return (res.body.items as { kind: string; conversation?: { id: string }; submission?: { id: string }; appointment?: { id: string } }[]).map((item) => [
    item.kind,
    (item.conversation ?? item.submission ?? item.appointment)!.id,
  ]);
};

test('a search reads each kind by a piece of q and finds names and e-mails however they arrived, and subjects', async () => {
  const ws = await workspace();
  // Others the search must not read: 30 of each kind.
  for (let i = 0; i < 30; i += 1) {
    await Promise.all([
      chat(node, ws, {}, { visitorName: `Guest ${i}`, visitorEmail: `guest${i}@example.org` }),
      submission(node, ws, { name: `Guest ${i}`, email: `guest${i}@example.org` }),
    ]);
  }
  const typed = await chat(node, ws, {}, { visitorName: 'Grace Hopper', visitorEmail: 'grace@navy.example' });
  const verified = await chat(node, ws, { visitor: identityFor(ws.apiKey, 'user-ada', { name: 'Ada Lovelace', email: 'ada@engine.example' }) });
  // Anonymous first, then resumed with a verified identity: the identity's e-mail, the typed name kept.
  const attached = await chat(node, ws, {}, { visitorName: 'Mary Somerville' });
  clock.advance(1000);
  const resumed = await startChat(node.url, ws.publishableKey, { conversationToken: attached.token, visitor: identityFor(ws.apiKey, 'user-mary', { email: 'mary@tides.example' }) });
  expect(resumed.body.resumed).toBe(true);
  const mailed = await submission(node, ws, { name: 'Émilie du Châtelet', email: 'emilie@physics.example', subject: 'Vis viva question' });
  const booked = await booking(node, ws, 'Grace Hopper', 'GRACE@NAVY.EXAMPLE', 10);

  const finds: DriverCommand['command'][] = [];
  const watched = (event: DriverCommand) => {
    const collection = event.command[event.commandName];
    if ((event.commandName === 'find' || event.commandName === 'count') && SEARCHED.includes(collection as string)) finds.push(event.command);
  };
  expect(await watchingCommands(node, watched, () => found(node, ws, 'grace@NAVY'))).toEqual([
    ['booking', booked],
    ['chat', typed.id],
  ]);
  // Every read of the three kinds carried the piece of q they are stored under, the page itself and its walk.
  expect(finds.length).toBeGreaterThanOrEqual(3);
  expect(finds.map((command) => (command.filter ?? command.query) as Record<string, unknown>).map((filter) => filter.searchGrams)).toEqual(finds.map(() => expect.any(String)));

  expect(await found(node, ws, 'lovelace')).toEqual([['chat', verified.id]]);
  expect(await found(node, ws, 'ENGINE.ex')).toEqual([['chat', verified.id]]);
  expect(await found(node, ws, 'somerville')).toEqual([['chat', attached.id]]);
  expect(await found(node, ws, 'mary@tides')).toEqual([['chat', attached.id]]);
  expect(await found(node, ws, 'CHÂTELET')).toEqual([['submission', mailed]]);
  expect(await found(node, ws, 'viva q')).toEqual([['submission', mailed]]);
  // Under three characters there is no piece to read by: the pattern alone still finds it.
  expect((await found(node, ws, 'Ém')).map(([kind]) => kind)).toEqual(['submission']);
  // Literal, across the kinds' own lists.
  expect(await found(node, ws, 'guest2@')).toHaveLength(2);
  expect(await found(node, ws, 'guest.*')).toEqual([]);
}, 60_000);

test('records stored before search grams are found by q once the upgrade at the next start filed theirs', async () => {
  const dbName = uniqueDbName('inbox-grams');
  const first = await startTestNode({ dbName, clock });
  let ws: Fixture;
  let ids: string[][];
  try {
    ws = await workspace(first);
    const talked = await chat(first, ws, {}, { visitorName: 'Old Chat', visitorEmail: 'chat@old.example' });
    const sent = await submission(first, ws, { name: 'Old Form', email: 'form@old.example' });
    const booked = await booking(first, ws, 'Old Booking', 'booking@old.example', 11);
    ids = [['booking', booked], ['submission', sent], ['chat', talked.id]];
    // As an earlier version stored them, in a database that has not run today's upgrades.
    for (const collection of SEARCHED) await first.deps.db.collection(collection).updateMany({}, { $unset: { searchGrams: '' } });
    await first.deps.db.collection<{ _id: string }>('once_claims').deleteMany({ _id: 'upgrade:inbox-search-grams' });
    expect(await found(first, ws, '@old.')).toEqual([]);
  } finally {
    await first.stop();
  }
  const second = await startTestNode({ dbName, clock });
  try {
    expect(await found(second, ws, '@old.')).toEqual(ids);
    expect(await found(second, ws, 'old chat')).toEqual([ids[2]]);
  } finally {
    await second.stop();
  }
}, 60_000);
