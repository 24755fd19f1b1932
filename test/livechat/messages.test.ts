import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { activateChat, createAgent, startChat } from './support.js';

// A frozen clock keeps the flood window from turning over mid-test.
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

// The message rules (fill-only fields, flood window, closing, after-cursor, plain text, read marks, the
// inbox order) are service tests (messages.service.test.ts); here the statuses, wire codes and bounds.
describe('POST /external/live-chat/conversations/:token/messages', () => {
  test('201 with the message; body bounds 1..2000 are 400 body; unknown token 404 conversation_not_found', async () => {
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

  test('visitorName and visitorEmail are bounded: 120 and 200 characters pass, one more or a non-address is 400', async () => {
    const { ws, token, cid } = await chat();
    expect((await post(token, { body: 'a', visitorName: 'n'.repeat(121) })).status).toBe(400);
    expect((await post(token, { body: 'a', visitorEmail: 'not-an-email' })).status).toBe(400);
    expect((await post(token, { body: 'a', visitorEmail: `${'e'.repeat(196)}@x.io` })).status).toBe(400);
    expect((await post(token, { body: 'a', visitorName: 'n'.repeat(120) })).status).toBe(201);
    expect((await post(token, { body: 'b', visitorEmail: `${'e'.repeat(195)}@x.io` })).status).toBe(201);
    expect((await conversation(ws, cid)).visitor).toMatchObject({ name: 'n'.repeat(120), email: `${'e'.repeat(195)}@x.io` });
  });

  test('flood guard is 409 flood_limited on the wire', async () => {
    const { token } = await chat();
    for (let i = 1; i <= 20; i += 1) expect((await post(token, { body: `m${i}` })).status).toBe(201);
    const flooded = await post(token, { body: 'm21' });
    expect(flooded.status).toBe(409);
    expect(flooded.body.code).toBe('flood_limited');
    // The frozen clock: the first message leaves the minute in exactly 60 seconds.
    expect(flooded.headers.get('retry-after')).toBe('60');
  });

  test('closed by the team: visitor posts and team replies are 409 conversation_closed; the poll is 200 CLOSED', async () => {
    const { ws, token, cid } = await chat();
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
    expect(polled.status).toBe(200);
    expect(polled.body.status).toBe('CLOSED');
  });
});

test('GET messages: 200 with both senders, after in any offset; a malformed after is 400', async () => {
  const { ws, token, cid } = await chat();
  const v1 = await post(token, { body: 'v1' });
  const a1 = await reply(ws, cid, 'a1');
  expect(a1.status).toBe(201);
  expect(a1.body.sender).toBe('AGENT');
  const all = await poll(token);
  expect(all.status).toBe(200);
  expect(all.body).toEqual({ status: 'OPEN', messages: [v1.body, a1.body] });
  expect((await poll(token, v1.body.createdAt.replace('Z', '+00:00'))).body.messages.map((m: { body: string }) => m.body)).toEqual(['a1']);
  expect((await poll(token, 'yesterday')).status).toBe(400);
  const teamRead = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token });
  expect(teamRead.status).toBe(200);
  expect(teamRead.body.messages).toHaveLength(2);
});

test('GET messages with include=agentName: AGENT messages name their author; without it exactly the four spec fields; an unknown include is 400', async () => {
  const { ws, token, cid } = await chat();
  const agent = await createAgent(node.url, ws);
  const v1 = await post(token, { body: 'v1' });
  const a1 = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: agent, body: { body: 'a1' } });
  expect(a1.status).toBe(201);
  const named = await request(node.url, `/external/live-chat/conversations/${encodeURIComponent(token)}/messages?include=agentName`);
  expect(named.status).toBe(200);
  expect(named.body).toEqual({ status: 'OPEN', messages: [v1.body, { ...a1.body, agentName: 'Agent Smith' }] });
  // With `after`, only the newer message, still named.
  const after = await request(node.url, `/external/live-chat/conversations/${encodeURIComponent(token)}/messages?after=${encodeURIComponent(v1.body.createdAt)}&include=agentName`);
  expect(after.body.messages).toEqual([{ ...a1.body, agentName: 'Agent Smith' }]);

  const plain = await poll(token);
  for (const message of plain.body.messages) expect(Object.keys(message).sort()).toEqual(['body', 'createdAt', 'id', 'sender']);
  for (const include of ['agentNames', 'agentName,bogus', '']) {
    const bad = await request(node.url, `/external/live-chat/conversations/${encodeURIComponent(token)}/messages?include=${include}`);
    expect({ include, status: bad.status, code: bad.body.code }).toEqual({ include, status: 400, code: 'validation_failed' });
  }
});

test('agent routes: 404 across workspaces and for malformed ids; reply bounds 2000 pass, 2001 is 400', async () => {
  const { ws, cid } = await chat();
  const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations?status=OPEN`, { token: ws.token });
  expect(list.status).toBe(200);
  expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([cid]);
  const other = await createWorkspace(node.url);
  expect((await request(node.url, `/admin/workspaces/${other.id}/conversations/${cid}`, { token: other.token })).status).toBe(404);
  expect((await reply(other, cid, 'x')).status).toBe(404);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations/not-an-id`, { token: ws.token })).status).toBe(404);
  expect((await reply(ws, cid, 'y'.repeat(2001))).status).toBe(400);
  expect((await reply(ws, cid, 'y'.repeat(2000))).status).toBe(201);
});
