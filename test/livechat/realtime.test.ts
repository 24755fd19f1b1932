import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import type { ConversationUpdated, MessageCreated } from '../../src/realtime/events.js';
import { activateChat, agentSocket, createAgent, record, startChat, widgetSocket } from './support.js';
import { MAX_SOCKETS_PER_CONVERSATION } from '../../src/livechat/socket-limits.service.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

describe('Socket.IO /widget and /agent', () => {
  test('a visitor socket gets the agent reply and the close the moment they happen; agents see the whole workspace', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const agentToken = await createAgent(node.url, ws);
    const agent = await agentSocket(node.url, agentToken, ws.id);
    const agentCreated = record<{ conversationId: string }>(agent, 'conversation.created');
    const agentMessages = record<MessageCreated>(agent, 'message.created');
    const agentUpdates = record<ConversationUpdated>(agent, 'conversation.updated');

    const start = await startChat(node.url, key);
    const { conversationToken: token, conversationId: cid } = start.body;
    const visitor = await widgetSocket(node.url, token);
    const visitorMessages = record<MessageCreated>(visitor, 'message.created');
    const visitorUpdates = record<ConversationUpdated>(visitor, 'conversation.updated');
    try {
      await eventually(() => agentCreated.some((event) => event.conversationId === cid));

      const sent = await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: 'hello?' } });
      await eventually(() => agentMessages.length === 1);
      expect(agentMessages[0]).toEqual({ conversationId: cid, message: sent.body });

      const replied = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: agentToken, body: { body: 'Hi, how can I help?' } });
      expect(replied.status).toBe(201);
      // Pushed before the HTTP answer was written: no polling needed.
      await eventually(() => visitorMessages.length === 2, 2_000, 5);
      // The visitor's own message comes back too (their other tabs need it; the sender drops it by id).
      expect(visitorMessages[0]).toEqual({ conversationId: cid, message: sent.body });
      expect(visitorMessages[1]).toEqual({ conversationId: cid, message: replied.body, agentName: 'Agent Smith' });

      await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/close`, { method: 'POST', token: agentToken });
      await eventually(() => visitorUpdates.length === 1 && agentUpdates.length === 1, 2_000, 5);
      expect(visitorUpdates[0]).toEqual({ conversationId: cid, status: 'CLOSED' });
      expect(agentUpdates[0]).toEqual({ conversationId: cid, status: 'CLOSED' });
    } finally {
      visitor.close();
      agent.close();
    }
  });

  test('rooms are per conversation and per workspace', async () => {
    const a = await createWorkspace(node.url);
    const b = await createWorkspace(node.url);
    const keyA = await activateChat(node.url, a);
    await activateChat(node.url, b);
    const one = (await startChat(node.url, keyA)).body;
    const two = (await startChat(node.url, keyA)).body;
    const visitorTwo = await widgetSocket(node.url, two.conversationToken);
    const agentB = await agentSocket(node.url, b.token, b.id);
    const seenByTwo = record<MessageCreated>(visitorTwo, 'message.created');
    const seenByB = record<MessageCreated>(agentB, 'message.created');
    const visitorOne = await widgetSocket(node.url, one.conversationToken);
    const seenByOne = record<MessageCreated>(visitorOne, 'message.created');
    try {
      await request(node.url, `/admin/workspaces/${a.id}/conversations/${one.conversationId}/messages`, { token: a.token, body: { body: 'for one' } });
      await eventually(() => seenByOne.length === 1);
      // A later event to conversation two proves the earlier one was not delivered there.
      await request(node.url, `/admin/workspaces/${a.id}/conversations/${two.conversationId}/messages`, { token: a.token, body: { body: 'for two' } });
      await eventually(() => seenByTwo.length === 1);
      expect(seenByTwo[0].message.body).toBe('for two');
      expect(seenByB).toEqual([]);
    } finally {
      visitorOne.close();
      visitorTwo.close();
      agentB.close();
    }
  });

  test('handshakes are authenticated', async () => {
    const ws = await createWorkspace(node.url);
    const other = await createWorkspace(node.url);
    const agentToken = await createAgent(node.url, ws);
    await expect(widgetSocket(node.url, 'ct_unknown')).rejects.toThrow('conversation_not_found');
    await expect(widgetSocket(node.url, '')).rejects.toThrow('conversation_not_found');
    await expect(agentSocket(node.url, 'hs_bad', ws.id)).rejects.toThrow('unauthorized');
    // An agent of one workspace cannot listen to another.
    await expect(agentSocket(node.url, agentToken, other.id)).rejects.toThrow('workspace_not_found');
    const ok = await agentSocket(node.url, agentToken, ws.id);
    ok.close();
  });

  test(`one conversation holds at most ${MAX_SOCKETS_PER_CONVERSATION} widget sockets on a node; a closed one frees its place`, async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const { conversationToken } = (await startChat(node.url, key)).body as { conversationToken: string };
    const held = [];
    for (let i = 0; i < MAX_SOCKETS_PER_CONVERSATION; i += 1) held.push(await widgetSocket(node.url, conversationToken));
    try {
      await expect(widgetSocket(node.url, conversationToken)).rejects.toThrow('too_many_sockets');
      // Another conversation is not affected.
      (await widgetSocket(node.url, ((await startChat(node.url, key)).body as { conversationToken: string }).conversationToken)).close();
      held.shift()!.close();
      await eventually(async () => {
        const again = await widgetSocket(node.url, conversationToken).catch(() => undefined);
        if (again) held.push(again);
        return again !== undefined;
      });
    } finally {
      for (const socket of held) socket.close();
    }
  });
});
