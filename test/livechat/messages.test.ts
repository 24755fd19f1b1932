import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { activateChat, identityFor, startChat } from './support.js';

// A frozen clock: every message is "sent in the same millisecond" unless the test advances it.
const clock = new ManualClock(new Date());
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

async function chat(options: { visitor?: unknown } = {}): Promise<{ ws: WorkspaceFixture; token: string; cid: string }> {
  const ws = await createWorkspace(node.url);
  const key = await activateChat(node.url, ws);
  const start = await startChat(node.url, key, options.visitor ? { visitor: options.visitor } : {});
  return { ws, token: start.body.conversationToken, cid: start.body.conversationId };
}

const post = (token: string, body: unknown) => request(node.url, `/external/live-chat/conversations/${encodeURIComponent(token)}/messages`, { body });
const poll = (token: string, after?: string) =>
  request(node.url, `/external/live-chat/conversations/${encodeURIComponent(token)}/messages${after ? `?after=${encodeURIComponent(after)}` : ''}`);
const reply = (ws: WorkspaceFixture, cid: string, body: unknown) => request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body } });
const conversation = async (ws: WorkspaceFixture, cid: string) => (await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}`, { token: ws.token })).body;

describe('POST /external/live-chat/conversations/:token/messages', () => {
  test('stores a VISITOR message (201); body bounds 1..2000; unknown token 404', async () => {
    const { token } = await chat();
    const ok = await post(token, { body: 'x'.repeat(2000) });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ id: expect.any(String), sender: 'VISITOR', body: 'x'.repeat(2000), createdAt: expect.any(String) });
    expect(new Date(ok.body.createdAt).toISOString()).toBe(ok.body.createdAt);

    for (const body of [{ body: 'x'.repeat(2001) }, { body: '' }, { body: '   ' }, { body: 42 }, {}]) {
      const res = await post(token, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.issues[0].path).toBe('body');
    }
    const unknown = await post('ct_unknown', { body: 'hi' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('conversation_not_found');
    expect((await poll('ct_unknown')).status).toBe(404);
  });

  test('visitorName and visitorEmail only fill unknown values and are bounded', async () => {
    const { ws, token, cid } = await chat();
    expect((await post(token, { body: 'a', visitorName: 'n'.repeat(121) })).status).toBe(400);
    expect((await post(token, { body: 'a', visitorEmail: 'not-an-email' })).status).toBe(400);
    expect((await post(token, { body: 'a', visitorEmail: `${'e'.repeat(196)}@x.io` })).status).toBe(400);

    expect((await post(token, { body: 'a', visitorName: 'n'.repeat(120) })).status).toBe(201);
    expect((await post(token, { body: 'b', visitorName: 'Other', visitorEmail: `${'e'.repeat(195)}@x.io` })).status).toBe(201);
    expect((await post(token, { body: 'c', visitorEmail: 'second@x.io' })).status).toBe(201);
    expect((await conversation(ws, cid)).visitor).toMatchObject({ name: 'n'.repeat(120), email: `${'e'.repeat(195)}@x.io` });

    // A verified identity's name is never overwritten.
    const verified = await chat();
    const start = await startChat(node.url, await activateChat(node.url, verified.ws), { visitor: identityFor(verified.ws.apiKey, 'p-1', { name: 'Verified Vera' }) });
    await post(start.body.conversationToken, { body: 'hi', visitorName: 'Mallory', visitorEmail: 'vera@x.io' });
    expect((await conversation(verified.ws, start.body.conversationId)).visitor).toMatchObject({ name: 'Verified Vera', email: 'vera@x.io' });
  });

  test('flood guard: the 21st message within a minute is 409 flood_limited; the next window accepts again', async () => {
    const { token } = await chat();
    for (let i = 1; i <= 20; i += 1) expect((await post(token, { body: `m${i}` })).status).toBe(201);
    const flooded = await post(token, { body: 'm21' });
    expect(flooded.status).toBe(409);
    expect(flooded.body.code).toBe('flood_limited');
    clock.advance(60_000);
    expect((await post(token, { body: 'later' })).status).toBe(201);
    // Another conversation has its own budget.
    const other = await chat();
    expect((await post(other.token, { body: 'hi' })).status).toBe(201);
  });

  test('closed by the team: visitor posts are 409 conversation_closed, team replies too; the poll shows CLOSED', async () => {
    const { ws, token, cid } = await chat();
    expect((await post(token, { body: 'before' })).status).toBe(201);
    const close = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/close`, { method: 'POST', token: ws.token });
    expect(close.status).toBe(200);
    expect(close.body.status).toBe('CLOSED');
    const res = await post(token, { body: 'after' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conversation_closed');
    const agent = await reply(ws, cid, 'too late');
    expect(agent.status).toBe(409);
    expect(agent.body.code).toBe('conversation_closed');
    const polled = await poll(token);
    expect(polled.body.status).toBe('CLOSED');
    expect(polled.body.messages.map((m: { body: string }) => m.body)).toEqual(['before']);
  });
});

describe('GET /external/live-chat/conversations/:token/messages', () => {
  test('after returns only newer messages, oldest first, both senders; same-millisecond messages each exactly once', async () => {
    clock.advance(1_000);
    const { ws, token, cid } = await chat();
    // The clock does not move: all of these are sent "in the same millisecond".
    const v1 = await post(token, { body: 'v1' });
    const a1 = await reply(ws, cid, 'a1');
    const v2 = await post(token, { body: 'v2' });
    expect(a1.status).toBe(201);
    expect(a1.body.sender).toBe('AGENT');
    const stamps = [v1, a1, v2].map((res) => res.body.createdAt as string);
    expect(new Set(stamps).size).toBe(3);
    expect([...stamps].sort()).toEqual(stamps);

    const all = await poll(token);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ status: 'OPEN', messages: [v1.body, a1.body, v2.body] });
    expect((await poll(token, v1.body.createdAt)).body.messages.map((m: { body: string }) => m.body)).toEqual(['a1', 'v2']);
    expect((await poll(token, v2.body.createdAt)).body.messages).toEqual([]);
    // Offsets are accepted; a malformed `after` is 400.
    expect((await poll(token, v1.body.createdAt.replace('Z', '+00:00'))).body.messages).toHaveLength(2);
    expect((await poll(token, 'yesterday')).status).toBe(400);
  });

  test("fetching marks the team's messages read; the team's fetch clears the unread count", async () => {
    const { ws, token, cid } = await chat();
    await post(token, { body: 'one' });
    await post(token, { body: 'two' });
    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=OPEN`, { token: ws.token });
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toMatchObject({ id: cid, unreadCount: 2, lastMessage: { body: 'two', sender: 'VISITOR' } });

    const teamRead = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token });
    expect(teamRead.body.messages.map((m: { body: string }) => m.body)).toEqual(['one', 'two']);
    expect((await conversation(ws, cid)).unreadCount).toBe(0);

    await reply(ws, cid, 'answer');
    const messages = node.deps.db.collection('livechat_messages');
    const unreadAgent = () => messages.countDocuments({ conversationId: new Types.ObjectId(cid), sender: 'AGENT', readAt: null });
    expect(await unreadAgent()).toBe(1);
    await poll(token);
    expect(await unreadAgent()).toBe(0);
  });
});

describe('agent work', () => {
  test('inbox: newest activity first, status filter, identity, 404 across workspaces', async () => {
    const { ws, token: t1, cid: c1 } = await chat();
    const key = (await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { token: ws.token })).body.publishableKey;
    const second = await startChat(node.url, key, { visitor: identityFor(ws.apiKey, 'vip', { name: 'Vip' }) });
    clock.advance(10);
    await post(t1, { body: 'newer activity' });
    const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token });
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([c1, second.body.conversationId]);
    expect(list.body.items[1]).toMatchObject({ visitor: { verified: true, externalId: 'vip', name: 'Vip' }, unreadCount: 0, lastMessage: null });
    expect(list.body.pageInfo).toMatchObject({ page: 1, total: 2, hasNext: false });

    await request(node.url, `/admin/workspaces/${ws.id}/conversations/${c1}/close`, { method: 'POST', token: ws.token });
    const closed = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=CLOSED`, { token: ws.token });
    expect(closed.body.items.map((c: { id: string }) => c.id)).toEqual([c1]);

    const other = await createWorkspace(node.url);
    expect((await request(node.url, `/admin/workspaces/${other.id}/conversations/${c1}`, { token: other.token })).status).toBe(404);
    expect((await reply(other, c1, 'x')).status).toBe(404);
    expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations/not-an-id`, { token: ws.token })).status).toBe(404);
    expect((await reply(ws, second.body.conversationId, 'y'.repeat(2001))).status).toBe(400);
    expect((await reply(ws, second.body.conversationId, 'y'.repeat(2000))).status).toBe(201);
  });
});
