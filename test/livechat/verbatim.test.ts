import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import type { MessageCreated } from '../../src/realtime/events.js';
import { activateChat, agentSocket, record, startChat, widgetSocket } from './support.js';

/**
 * decisions.md, "Verified identity": chat bodies and visitor names are stored and returned exactly as
 * sent, character for character; nothing is stripped or rewritten on the way in.
 */

const TEXTS = [
  '<b>hi</b>',
  'a<b and c>d',
  '&amp; &lt;i&gt;no&lt;/i&gt; &#39;',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)><p></p>',
  'bread 🍞 & café — 👩‍🍳 2 < 3 > 1',
  '  indented\n\tand trailing  ',
];

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '10000' } });
});
afterAll(async () => {
  await node.stop();
});

async function chat(): Promise<{ ws: WorkspaceFixture; token: string; cid: string }> {
  const ws = await createWorkspace(node.url);
  const start = await startChat(node.url, await activateChat(node.url, ws));
  return { ws, token: start.body.conversationToken, cid: start.body.conversationId };
}

const post = (token: string, body: unknown) => request(node.url, `/external/live-chat/conversations/${encodeURIComponent(token)}/messages`, { body });
const reply = (ws: WorkspaceFixture, cid: string, body: unknown) => request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body } });
const bodies = (reply: { body: { messages: { body: string }[] } }) => reply.body.messages.map((message) => message.body);

test('visitor and agent bodies round-trip character for character: POST, both GETs and the socket push', async () => {
  const { ws, token, cid } = await chat();
  const visitor = await widgetSocket(node.url, token);
  const agent = await agentSocket(node.url, ws.token, ws.id);
  const toVisitor = record<MessageCreated>(visitor, 'message.created');
  const toAgent = record<MessageCreated>(agent, 'message.created');
  try {
    const sent: string[] = [];
    for (const text of TEXTS) {
      const mine = await post(token, { body: text });
      expect(mine.status).toBe(201);
      expect(mine.body.body).toBe(text);
      const theirs = await reply(ws, cid, text);
      expect(theirs.status).toBe(201);
      expect(theirs.body.body).toBe(text);
      sent.push(text, text);
    }

    expect(bodies(await request(node.url, `/external/live-chat/conversations/${token}/messages`))).toEqual(sent);
    expect(bodies(await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token }))).toEqual(sent);
    const inbox = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}`, { token: ws.token });
    expect(inbox.body.lastMessage.body).toBe(TEXTS.at(-1));

    // Both sockets are pushed every message (the visitor's own reach their other tabs).
    await eventually(() => toVisitor.length === sent.length && toAgent.length === sent.length);
    expect(toVisitor.map((event) => [event.message.sender, event.message.body])).toEqual(TEXTS.flatMap((text) => [['VISITOR', text], ['AGENT', text]]));
    expect(toAgent.map((event) => event.message.body)).toEqual(sent);
  } finally {
    visitor.close();
    agent.close();
  }
});

test('bounds stay: 1..2000 chars counted as sent, and a body or name of only whitespace is 400', async () => {
  const { ws, token, cid } = await chat();
  const longest = '<'.repeat(2000);
  expect((await post(token, { body: longest })).body.body).toBe(longest);
  expect((await reply(ws, cid, longest)).body.body).toBe(longest);
  for (const body of ['<'.repeat(2001), '', ' \n\t ']) {
    const visitor = await post(token, { body });
    expect(visitor.status).toBe(400);
    expect(visitor.body.issues[0].path).toBe('body');
    const team = await reply(ws, cid, body);
    expect(team.status).toBe(400);
    expect(team.body.issues[0].path).toBe('body');
  }
  const blankName = await post(token, { body: 'hi', visitorName: '   ' });
  expect(blankName.status).toBe(400);
  expect(blankName.body.issues[0].path).toBe('visitorName');
  expect((await post(token, { body: 'hi', visitorName: '<'.repeat(121) })).status).toBe(400);
});

test('visitor names are kept as sent and shown verbatim in the admin inbox', async () => {
  const names = ['<b>Ann</b> & "Co"', '  a<b and c>d 🍞  '];
  const ws = await createWorkspace(node.url);
  const key = await activateChat(node.url, ws);
  const ids: string[] = [];
  for (const [i, name] of names.entries()) {
    const start = await startChat(node.url, key, { visitorSessionId: `sess-${i}` });
    expect((await post(start.body.conversationToken, { body: `from ${i}`, visitorName: name })).status).toBe(201);
    ids.push(start.body.conversationId);
  }
  const list = await request(node.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token });
  const shown = new Map((list.body.items as { id: string; visitor: { name: string } }[]).map((item) => [item.id, item.visitor.name]));
  expect(ids.map((id) => shown.get(id))).toEqual(names);
  for (const [i, id] of ids.entries()) {
    expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations/${id}`, { token: ws.token })).body.visitor.name).toBe(names[i]);
  }
});
