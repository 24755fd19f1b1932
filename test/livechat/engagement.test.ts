import { io as connectClient } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import type { AssignmentChanged, MessageCreated, ReadChanged, TypingChanged } from '../../src/realtime/events.js';
import { TYPING_RELAY_MS, TYPING_RELAYS_PER_WINDOW } from '../../src/livechat/typing.service.js';
import { activateChat, agentSocket, createAgent, record, startChat, widgetSocket } from './support.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function chat(ws: WorkspaceFixture) {
  const key = await activateChat(node.url, ws);
  const start = await startChat(node.url, key);
  return { token: start.body.conversationToken as string, cid: start.body.conversationId as string };
}

const visitorSays = (token: string, body: string) => request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body } });
const agentSays = (ws: WorkspaceFixture, token: string, cid: string, body: string) =>
  request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token, body: { body } });

describe('the visitor\'s other tabs', () => {
  test("a visitor's own message is pushed to every socket of the conversation", async () => {
    const ws = await createWorkspace(node.url);
    const { token, cid } = await chat(ws);
    const tabA = await widgetSocket(node.url, token);
    const tabB = await widgetSocket(node.url, token);
    const seenByB = record<MessageCreated>(tabB, 'message.created');
    try {
      const sent = await visitorSays(token, 'sent from tab A');
      await eventually(() => seenByB.length === 1, 2_000, 5);
      expect(seenByB[0]).toEqual({ conversationId: cid, message: sent.body });
    } finally {
      tabA.close();
      tabB.close();
    }
  });
});

describe('typing indicators', () => {
  test('visitor typing reaches the agents, throttled; agent typing reaches the visitor with the name; nothing is stored', async () => {
    const ws = await createWorkspace(node.url);
    const { token, cid } = await chat(ws);
    const agentToken = await createAgent(node.url, ws);
    const agent = await agentSocket(node.url, agentToken, ws.id);
    const visitor = await widgetSocket(node.url, token);
    const agentSaw = record<TypingChanged>(agent, 'typing.changed');
    const visitorSaw = record<TypingChanged>(visitor, 'typing.changed');
    try {
      for (let i = 0; i < 5; i += 1) visitor.emit('typing', { typing: true });
      await eventually(() => agentSaw.length === 1, 2_000, 5);
      expect(agentSaw[0]).toEqual({ conversationId: cid, sender: 'VISITOR', typing: true });
      visitor.emit('typing', { typing: false });
      await eventually(() => agentSaw.length === 2, 2_000, 5);
      expect(agentSaw[1]).toEqual({ conversationId: cid, sender: 'VISITOR', typing: false });
      // A stop without a start is not relayed; malformed input is ignored.
      visitor.emit('typing', { typing: false });
      visitor.emit('typing', { typing: 'yes' } as never);
      await sleep(200);
      expect(agentSaw).toHaveLength(2);
      // After the throttle window a repeated start is relayed again.
      visitor.emit('typing', { typing: true });
      await eventually(() => agentSaw.length === 3, 2_000, 5);
      visitor.emit('typing', { typing: true });
      await sleep(TYPING_RELAY_MS + 100);
      visitor.emit('typing', { typing: true });
      await eventually(() => agentSaw.length === 4, 2_000, 5);

      agent.emit('typing', { typing: true, conversationId: cid });
      await eventually(() => visitorSaw.length === 1, 2_000, 5);
      expect(visitorSaw[0]).toMatchObject({ conversationId: cid, sender: 'AGENT', typing: true, agentName: 'Agent Smith' });
      // The visitor's socket never gets its own typing back.
      expect(visitorSaw.every((event) => event.sender === 'AGENT')).toBe(true);

      const messages = await request(node.url, `/external/live-chat/conversations/${token}/messages`);
      expect(messages.body.messages).toEqual([]);
    } finally {
      agent.close();
      visitor.close();
    }
  });

  test('alternating start and stop cannot pass the throttle: at most TYPING_RELAYS_PER_WINDOW changes per window reach the team', async () => {
    const ws = await createWorkspace(node.url);
    const { token } = await chat(ws);
    const agent = await agentSocket(node.url, ws.token, ws.id);
    const visitor = await widgetSocket(node.url, token);
    const agentSaw = record<TypingChanged>(agent, 'typing.changed');
    try {
      for (let i = 0; i < 200; i += 1) visitor.emit('typing', { typing: i % 2 === 0 });
      await eventually(() => agentSaw.length === TYPING_RELAYS_PER_WINDOW, 2_000, 5);
      await sleep(300);
      expect(agentSaw.map((event) => event.typing)).toEqual([true, false, true, false]);
      // The next window relays again.
      await sleep(TYPING_RELAY_MS);
      visitor.emit('typing', { typing: true });
      await eventually(() => agentSaw.length === TYPING_RELAYS_PER_WINDOW + 1, 2_000, 5);
    } finally {
      agent.close();
      visitor.close();
    }
  });

  test("an agent cannot type into another workspace's conversation", async () => {
    const ws = await createWorkspace(node.url);
    const other = await createWorkspace(node.url);
    const { token, cid } = await chat(ws);
    const visitor = await widgetSocket(node.url, token);
    const stranger = await agentSocket(node.url, other.token, other.id);
    const insider = await agentSocket(node.url, ws.token, ws.id);
    const visitorSaw = record<TypingChanged>(visitor, 'typing.changed');
    try {
      stranger.emit('typing', { typing: true, conversationId: cid });
      stranger.emit('typing', { typing: true, conversationId: 'not-an-id' });
      await sleep(300);
      insider.emit('typing', { typing: true, conversationId: cid });
      await eventually(() => visitorSaw.length >= 1, 2_000, 5);
      await sleep(100);
      expect(visitorSaw).toHaveLength(1);
    } finally {
      visitor.close();
      stranger.close();
      insider.close();
    }
  });
});

describe('assignment', () => {
  test('assign to a member, pushed to the other agents, filtered as "mine"; unassign; bad inputs are 4xx', async () => {
    const ws = await createWorkspace(node.url);
    const { cid } = await chat(ws);
    const agentToken = await createAgent(node.url, ws);
    const agentId = (await request(node.url, '/admin/me', { token: agentToken })).body.id as string;
    const watcher = await agentSocket(node.url, ws.token, ws.id);
    const pushes = record<AssignmentChanged>(watcher, 'conversation.assigned');
    try {
      const assigned = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/assign`, { token: agentToken, body: { userId: agentId } });
      expect(assigned.status).toBe(200);
      expect(assigned.body.assignee).toEqual({ userId: agentId, name: 'Agent Smith' });
      await eventually(() => pushes.length === 1, 2_000, 5);
      expect(pushes[0]).toEqual({ conversationId: cid, assignee: { userId: agentId, name: 'Agent Smith' } });

      const mine = await request(node.url, `/admin/workspaces/${ws.id}/conversations?assignee=me`, { token: agentToken });
      expect(mine.body.items.map((c: { id: string }) => c.id)).toEqual([cid]);
      expect(mine.body.items[0].assignee.userId).toBe(agentId);
      const ownersOwn = await request(node.url, `/admin/workspaces/${ws.id}/conversations?assignee=me`, { token: ws.token });
      expect(ownersOwn.body.items).toEqual([]);
      const unassigned = await request(node.url, `/admin/workspaces/${ws.id}/conversations?assignee=none`, { token: ws.token });
      expect(unassigned.body.items).toEqual([]);

      const cleared = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/assign`, { token: ws.token, body: { userId: null } });
      expect(cleared.body.assignee).toBeNull();
      await eventually(() => pushes.length === 2, 2_000, 5);
      expect(pushes[1]).toEqual({ conversationId: cid, assignee: null });
      expect((await request(node.url, `/admin/workspaces/${ws.id}/conversations?assignee=none`, { token: ws.token })).body.items).toHaveLength(1);

      const outsider = await createWorkspace(node.url);
      const strangerToken = await createAgent(node.url, outsider);
      const strangerId = (await request(node.url, '/admin/me', { token: strangerToken })).body.id as string;
      const refused = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/assign`, { token: ws.token, body: { userId: strangerId } });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'assignee_not_member', message: expect.any(String) });
      const malformed = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/assign`, { token: ws.token, body: { userId: 'bob' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'userId' })] });
      const missing = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/assign`, { token: ws.token, body: {} });
      expect(missing.status).toBe(400);
      const badFilter = await request(node.url, `/admin/workspaces/${ws.id}/conversations?assignee=someone`, { token: ws.token });
      expect(badFilter.status).toBe(400);
      const unknown = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${'0'.repeat(24)}/assign`, { token: ws.token, body: { userId: null } });
      expect(unknown.status).toBe(404);
    } finally {
      watcher.close();
    }
  });
});

describe('read status', () => {
  test('each side marks what it read; the other side is told; unread counts follow', async () => {
    const ws = await createWorkspace(node.url);
    const { token, cid } = await chat(ws);
    const agent = await agentSocket(node.url, ws.token, ws.id);
    const visitor = await widgetSocket(node.url, token);
    const agentSaw = record<ReadChanged>(agent, 'conversation.read');
    const visitorSaw = record<ReadChanged>(visitor, 'conversation.read');
    try {
      const first = (await visitorSays(token, 'one')).body;
      const second = (await visitorSays(token, 'two')).body;
      const conv = () => request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}`, { token: ws.token });
      expect((await conv()).body.unreadCount).toBe(2);

      const marked = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/read`, { token: ws.token, body: { messageId: first.id } });
      expect(marked.status).toBe(200);
      expect(marked.body).toEqual({ conversationId: cid, reader: 'AGENT', messageId: first.id, createdAt: first.createdAt });
      await eventually(() => visitorSaw.length === 1, 2_000, 5);
      expect(visitorSaw[0]).toEqual(marked.body);
      expect((await conv()).body).toMatchObject({ unreadCount: 1, readByTeam: { messageId: first.id, createdAt: first.createdAt }, readByVisitor: null });

      // Fetching the messages (the console showing the conversation) moves the team's cursor too.
      await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token });
      await eventually(() => visitorSaw.length === 2, 2_000, 5);
      expect(visitorSaw[1]).toMatchObject({ reader: 'AGENT', messageId: second.id });
      expect((await conv()).body.unreadCount).toBe(0);
      // Backwards is no move: nothing is pushed and the cursor stays.
      await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/read`, { token: ws.token, body: { messageId: first.id } });
      expect((await conv()).body.readByTeam.messageId).toBe(second.id);

      const reply = (await agentSays(ws, ws.token, cid, 'hello back')).body;
      const read = await request(node.url, `/external/live-chat/conversations/${token}/read`, { body: { messageId: reply.id } });
      expect(read.status).toBe(200);
      await eventually(() => agentSaw.some((event) => event.reader === 'VISITOR'), 2_000, 5);
      expect(agentSaw.find((event) => event.reader === 'VISITOR')).toEqual({ conversationId: cid, reader: 'VISITOR', messageId: reply.id, createdAt: reply.createdAt });
      expect((await conv()).body.readByVisitor).toEqual({ messageId: reply.id, createdAt: reply.createdAt });

      // A widget that connects later learns the team's cursor at once.
      const later = connectClient(`${node.url}/widget`, { auth: { conversationToken: token }, transports: ['websocket'], reconnection: false, forceNew: true });
      const laterSaw = record<ReadChanged>(later, 'conversation.read');
      await eventually(() => laterSaw.length === 1, 2_000, 5).finally(() => later.close());
      expect(laterSaw[0]).toMatchObject({ reader: 'AGENT', messageId: second.id });
    } finally {
      agent.close();
      visitor.close();
    }
  });

  test('bad read requests are 4xx in the error shape', async () => {
    const ws = await createWorkspace(node.url);
    const { token, cid } = await chat(ws);
    const other = await chat(ws);
    const foreign = (await visitorSays(other.token, 'elsewhere')).body;
    const malformed = await request(node.url, `/external/live-chat/conversations/${token}/read`, { body: { messageId: 'x' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'messageId' })] });
    const wrongConversation = await request(node.url, `/external/live-chat/conversations/${token}/read`, { body: { messageId: foreign.id } });
    expect(wrongConversation.status).toBe(404);
    expect(wrongConversation.body).toMatchObject({ code: 'message_not_found' });
    const unknownToken = await request(node.url, `/external/live-chat/conversations/ct_${'0'.repeat(24)}_nope/read`, { body: { messageId: foreign.id } });
    expect(unknownToken.status).toBe(404);
    const adminMissing = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/read`, { token: ws.token, body: {} });
    expect(adminMissing.status).toBe(400);
  });
});
