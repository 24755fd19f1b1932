import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { createAgent, startChat } from '../livechat/support.js';
import { book, staff } from '../appointments/helpers.js';
import { visitorWorkspace, type VisitorWorkspace } from './support.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';

// GET /admin/workspaces/:wid/inbox: chats, submissions and booking requests in one list, newest first.

const NOW = new Date('2025-06-02T06:00:00Z');
const clock = new ManualClock(NOW);
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

type Fixture = VisitorWorkspace;

const workspace = () => visitorWorkspace(node.url);

/** Each sent one second after the one before, so their order is their time. */
async function chat(ws: Fixture, name: string) {
  clock.advance(1000);
  const started = await startChat(node.url, ws.publishableKey, { visitorSessionId: `s-${name}` });
  expect(started.status).toBe(201);
  const sent = await request(node.url, `/external/live-chat/conversations/${started.body.conversationToken}/messages`, { body: { body: 'Hello', visitorName: name } });
  expect(sent.status).toBe(201);
  return started.body.conversationId as string;
}
async function submission(ws: Fixture, name: string) {
  clock.advance(1000);
  const res = await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name, email: `${name.toLowerCase()}@example.com`, message: 'Call me.' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function booking(ws: Fixture, name: string, hour: number) {
  clock.advance(1000);
  return (await book(node.url, ws, `2025-06-03T${String(hour).padStart(2, '0')}:00:00Z`, { visitorName: name, visitorEmail: `${name.toLowerCase()}@example.com` })).id;
}

const inbox = (ws: WorkspaceFixture, query: Record<string, string> = {}, token = ws.token) =>
  request(node.url, `/admin/workspaces/${ws.id}/inbox?${new URLSearchParams(query).toString()}`, { token });
const entries = (body: { items: { kind: string; conversation?: { id: string }; submission?: { id: string }; appointment?: { id: string } }[] }) =>
  body.items.map((item) => [item.kind, (item.conversation ?? item.submission ?? item.appointment)!.id]);

test('one list of every kind, newest first; limit keeps the newest and says whether there is more', async () => {
  const ws = await workspace();
  const other = await workspace();
  const c1 = await chat(ws, 'Ada');
  const s1 = await submission(ws, 'Bob');
  const b1 = await booking(ws, 'Cy', 10);
  const c2 = await chat(ws, 'Dee');
  const b2 = await booking(ws, 'Eve', 11);
  const s2 = await submission(ws, 'Fay');
  await chat(other, 'Stranger');
  await submission(other, 'Stranger');

  const all = await inbox(ws);
  expect(all.status).toBe(200);
  expect(entries(all.body)).toEqual([
    ['submission', s2],
    ['booking', b2],
    ['chat', c2],
    ['booking', b1],
    ['submission', s1],
    ['chat', c1],
  ]);
  expect(all.body.more).toBe(false);
  expect(all.body.items[0]).toMatchObject({ at: new Date(NOW.getTime() + 6000).toISOString(), submission: { name: 'Fay', handledAt: null } });
  expect(all.body.items[2].conversation).toMatchObject({ status: 'OPEN', visitor: { name: 'Dee' } });
  expect(all.body.items[1].appointment).toMatchObject({ status: 'PENDING', visitorName: 'Eve' });

  // The newest three of all, though each kind alone has two.
  const newest = await inbox(ws, { limit: '3' });
  expect(entries(newest.body)).toEqual([['submission', s2], ['booking', b2], ['chat', c2]]);
  expect(newest.body.more).toBe(true);
  // Exactly as many as there are: nothing more, though each kind was read one further.
  expect((await inbox(ws, { limit: '6' })).body.more).toBe(false);
  expect((await inbox(ws, { limit: '5' })).body.more).toBe(true);
});

test('kind, state and search filter; the state follows each kind\'s own status', async () => {
  const ws = await workspace();
  const c1 = await chat(ws, 'Ada');
  const c2 = await chat(ws, 'Bea');
  const s1 = await submission(ws, 'Ada');
  const s2 = await submission(ws, 'Cleo');
  const b1 = await booking(ws, 'Ada', 10);
  const b2 = await booking(ws, 'Dora', 12);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations/${c2}/close`, { token: ws.token, body: {} })).status).toBe(200);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/submissions/${s2}`, { method: 'PATCH', token: ws.token, body: { handled: true } })).status).toBe(200);
  expect((await staff(node.url, ws, `/${b2}/confirm`)).status).toBe(200);

  expect(entries((await inbox(ws, { kind: 'booking' })).body)).toEqual([['booking', b2], ['booking', b1]]);
  expect(entries((await inbox(ws, { state: 'waiting' })).body)).toEqual([['booking', b1], ['submission', s1], ['chat', c1]]);
  const handled = await inbox(ws, { state: 'handled' });
  // Closing is a chat's latest activity; answering a request or a submission does not move it.
  expect(entries(handled.body)).toEqual([['chat', c2], ['booking', b2], ['submission', s2]]);
  expect(handled.body.more).toBe(false);
  expect((await inbox(ws, { state: 'handled', limit: '2' })).body.more).toBe(true);
  expect(entries((await inbox(ws, { q: 'ada' })).body)).toEqual([['booking', b1], ['submission', s1], ['chat', c1]]);
  expect(entries((await inbox(ws, { q: 'ADA', kind: 'chat', state: 'waiting' })).body)).toEqual([['chat', c1]]);
  // A search is literal: regular-expression characters match themselves.
  expect((await inbox(ws, { q: '.*' })).body.items).toEqual([]);
});

test('bounds are 400 with field issues; another workspace is 404; every role may read it', async () => {
  const ws = await workspace();
  const other = await workspace();
  const issue = async (query: Record<string, string>) => {
    const res = await inbox(ws, query);
    expect(res.status).toBe(400);
    return res.body.issues.map((i: { path: string }) => i.path);
  };
  expect(await issue({ kind: 'email' })).toEqual(['kind']);
  expect(await issue({ state: 'open' })).toEqual(['state']);
  expect(await issue({ limit: '0' })).toEqual(['limit']);
  expect(await issue({ limit: '101' })).toEqual(['limit']);
  expect(await issue({ q: 'x'.repeat(201) })).toEqual(['q']);
  expect(await issue({ q: '  ' })).toEqual(['q']);
  expect((await inbox(ws, { limit: '100', q: 'x'.repeat(200) })).status).toBe(200);
  expect((await inbox(ws, {}, await createAgent(node.url, other))).status).toBe(404);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/inbox`, {})).status).toBe(401);

  const email = `editor-${ws.id}@example.com`;
  const user = await request(node.url, '/admin/users', { token: ws.token, body: { email, name: 'Ed', password: 'editor-password-1' } });
  expect((await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.body.id, role: 'editor' } })).status).toBe(201);
  const login = await request(node.url, '/admin/auth/login', { body: { email, password: 'editor-password-1' } });
  expect((await inbox(ws, {}, login.body.token)).status).toBe(200);
});
