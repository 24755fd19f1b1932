import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { io as connectClient } from 'socket.io-client';
import { rooms, type MessageCreated, type TypingChanged } from '../../src/realtime/events.js';
import { activateChat, agentSocket, PUT_DEFAULTS, putChatSettings, record, startChat, widgetSocket, type WidgetSocket } from './support.js';

// The chat hot path (issue 13, "Chat path"): two nodes on one database and the run's Redis. A reply or a
// visitor message resolves its credentials and conversation from memory, and the message insert is the
// only engine command before the push; the conversation's summary is written after it, before the answer.
let a: HearthNode;
let b: HearthNode;
beforeAll(async () => {
  const dbName = uniqueDbName('chathot');
  a = await startTestNode({ redis: true, dbName, env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  b = await startTestNode({ redis: true, dbName, env: { RATE_LIMIT_PER_MINUTE: '10000' } });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

interface Traced {
  /** `command collection` of every driver command the node sent (the job queue's polling left out). */
  commands: string[];
  /** How many of them were sent before the node pushed `message.created` to the visitor's room. */
  beforePush: number | null;
}

/** Records the driver commands `node` sends while `work` runs, and where the widget push fell among them. */
async function traced<T>(node: HearthNode, work: () => Promise<T>): Promise<Traced & { result: T }> {
  const trace: Traced = { commands: [], beforePush: null };
  const listener = (event: { commandName: string; command: Record<string, unknown> }) => {
    const collection = String(event.command[event.commandName]);
    if (collection !== 'jobs') trace.commands.push(`${event.commandName} ${collection}`);
  };
  const adapter = node.deps.realtime.io.of('/widget').adapter;
  const broadcast = adapter.broadcast;
  adapter.broadcast = function (this: typeof adapter, ...args: Parameters<typeof broadcast>) {
    trace.beforePush ??= trace.commands.length;
    return broadcast.apply(this, args);
  };
  const client = node.deps.db.getClient();
  client.on('commandStarted', listener);
  try {
    const result = await work();
    return { ...trace, result };
  } finally {
    client.off('commandStarted', listener);
    adapter.broadcast = broadcast;
  }
}

async function chat(): Promise<{ ws: WorkspaceFixture; token: string; cid: string }> {
  const ws = await createWorkspace(a.url);
  const key = await activateChat(a.url, ws);
  const start = await startChat(a.url, key);
  return { ws, token: start.body.conversationToken, cid: start.body.conversationId };
}

const reply = (node: HearthNode, ws: WorkspaceFixture, cid: string, body: string) =>
  request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body } });
const visitorPost = (node: HearthNode, token: string, body: Record<string, unknown>) => request(node.url, `/external/live-chat/conversations/${token}/messages`, { body });
const close = (node: HearthNode, ws: WorkspaceFixture, cid: string) => request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/close`, { token: ws.token, body: {} });
const adminConversation = async (node: HearthNode, ws: WorkspaceFixture, cid: string) => (await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}`, { token: ws.token })).body;

/** The summary's read and the sequence run side by side (either may be sent first); its write comes last. */
const SUMMARY = [['find livechat_conversations', 'findAndModify sequences'], 'update livechat_conversations'];
const summaryCommands = (commands: string[]) => [commands.slice(0, 2).sort(), ...commands.slice(2)];

describe('driver commands of one chat message', () => {
  test('an agent reply: once the session is remembered, the insert is the only command before the push', async () => {
    const { ws, token, cid } = await chat();
    const visitor = await widgetSocket(b.url, token);
    const seen = record<MessageCreated>(visitor, 'message.created');
    try {
      // The first reply on B loads the session and membership (the conversation came with its creation); the next ones are warm.
      expect((await reply(b, ws, cid, 'warm-up')).status).toBe(201);
      const warm = await traced(b, () => reply(b, ws, cid, 'second'));
      expect(warm.result.status).toBe(201);
      expect(warm.beforePush).not.toBeNull();
      expect(warm.commands.slice(0, warm.beforePush!)).toEqual(['insert livechat_messages']);
      // The summary after the push: one read and one write of the conversation by _id, and the inbox bucket's
      // number taken alongside the read (newest-first.ts), nothing else.
      expect(summaryCommands(warm.commands.slice(warm.beforePush!))).toEqual(SUMMARY);
      await eventually(() => seen.length === 2, 3_000, 5);
    } finally {
      visitor.close();
    }
  });

  test('an agent reply on the other node than the one that created the conversation: the insert is the only command before the push', async () => {
    const { ws, cid } = await chat();
    // B remembers the agent's session and membership (an inbox read); the conversation was created on A,
    // which handed it to B's memory before answering.
    expect((await request(b.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token })).status).toBe(200);
    const warm = await traced(b, () => reply(b, ws, cid, 'first on B'));
    expect(warm.result.status).toBe(201);
    expect(warm.commands.slice(0, warm.beforePush!)).toEqual(['insert livechat_messages']);
  });

  test('an agent reply on a node that does not remember the conversation: one read by _id, then the insert', async () => {
    const { ws, cid } = await chat();
    // What a node holds once the remembered conversation expired (or when it missed the creation's share).
    await b.deps.cache.invalidateConversation(cid);
    // Right before the reply: the agent's session and membership are remembered for 5 s only.
    expect((await request(b.url, `/admin/workspaces/${ws.id}/conversations`, { token: ws.token })).status).toBe(200);
    const cold = await traced(b, () => reply(b, ws, cid, 'cold'));
    expect(cold.result.status).toBe(201);
    expect(cold.commands.slice(0, cold.beforePush!)).toEqual(['find livechat_conversations', 'insert livechat_messages']);
  });

  test('a visitor message: the insert is the only command before the push once the conversation is known', async () => {
    const { ws, token, cid } = await chat();
    const agentSeen: MessageCreated[] = [];
    // Visitor messages go to the consoles only: trace the agent namespace's push instead.
    const agentNs = b.deps.realtime.io.of('/agent');
    const broadcast = agentNs.adapter.broadcast;
    let beforePush: number | null = null;
    const commands: string[] = [];
    // An agent is online (the usual case), so no away digest is scheduled in the background.
    const agentConsole = await agentSocket(b.url, ws.token, ws.id);
    expect((await visitorPost(b, token, { body: 'warm-up' })).status).toBe(201);
    agentNs.adapter.broadcast = function (this: typeof agentNs.adapter, ...args: Parameters<typeof broadcast>) {
      beforePush ??= commands.length;
      agentSeen.push(args[0]);
      return broadcast.apply(this, args);
    };
    const listener = (event: { commandName: string; command: Record<string, unknown> }) => {
      const collection = String(event.command[event.commandName]);
      if (collection !== 'jobs') commands.push(`${event.commandName} ${collection}`);
    };
    b.deps.db.getClient().on('commandStarted', listener);
    try {
      const res = await visitorPost(b, token, { body: 'second', visitorName: 'Ada' });
      expect(res.status).toBe(201);
    } finally {
      b.deps.db.getClient().off('commandStarted', listener);
      agentNs.adapter.broadcast = broadcast;
      agentConsole.close();
    }
    expect(beforePush).not.toBeNull();
    expect(commands.slice(0, beforePush!)).toEqual(['insert livechat_messages']);
    // Summary and the fill-only visitor name go in one write after the push.
    expect(summaryCommands(commands.slice(beforePush!))).toEqual(SUMMARY);
    const summary = await adminConversation(a, ws, cid);
    expect(summary.visitor.name).toBe('Ada');
  });
});

describe('the widget config (read on every page view)', () => {
  const config = (node: HearthNode, key: string) => request(node.url, '/external/live-chat/config', { publishableKey: key });

  test('a warm read sends no engine command, on the node that saved the settings and on the other', async () => {
    const ws = await createWorkspace(a.url);
    const key = await activateChat(a.url, ws);
    for (const node of [a, b]) {
      expect((await config(node, key)).status).toBe(200);
      const warm = await traced(node, () => config(node, key));
      expect(warm.result.body).toMatchObject({ enabled: true, online: false });
      expect(warm.commands).toEqual([]);
    }
  });

  test('settings saved on A: B, which remembers the old ones, answers with the new on its very next read', async () => {
    const ws = await createWorkspace(a.url);
    const key = await activateChat(a.url, ws, { greeting: 'Hello' });
    expect((await config(b, key)).body.greeting).toBe('Hello');
    await putChatSettings(a.url, ws, { ...PUT_DEFAULTS, greeting: 'Welcome back' });
    expect((await config(b, key)).body.greeting).toBe('Welcome back');
    await putChatSettings(a.url, ws, { ...PUT_DEFAULTS, enabled: false });
    expect((await config(b, key)).body).toEqual({ enabled: false });
  });
});

describe('bookkeeping after the push is durable', () => {
  test('when the reply is answered, the conversation carries it as lastMessage and the inbox counts the unread', async () => {
    const { ws, token, cid } = await chat();
    const sent = await visitorPost(b, token, { body: 'question' });
    expect(sent.status).toBe(201);
    // Read at once on the other node, straight after the answer: nothing is left to happen later.
    let summary = await adminConversation(a, ws, cid);
    expect(summary.lastMessage).toEqual(sent.body);
    expect(summary.lastActivityAt).toBe(sent.body.createdAt);
    expect(summary.unreadCount).toBe(1);
    const answer = await reply(b, ws, cid, 'answer');
    summary = await adminConversation(a, ws, cid);
    expect(summary.lastMessage).toEqual(answer.body);
    expect(summary.lastActivityAt).toBe(answer.body.createdAt);
  });
});

describe('the remembered conversation on two nodes', () => {
  test('closed on A: the next visitor post and agent reply on B are 409 conversation_closed at once', async () => {
    const { ws, token, cid } = await chat();
    // B remembers the conversation as OPEN (a post and a reply there).
    expect((await visitorPost(b, token, { body: 'hi' })).status).toBe(201);
    expect((await reply(b, ws, cid, 'hello')).status).toBe(201);
    expect((await close(a, ws, cid)).status).toBe(200);
    const refused = await visitorPost(b, token, { body: 'still there?' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conversation_closed');
    const agent = await reply(b, ws, cid, 'too late');
    expect(agent.status).toBe(409);
    expect(agent.body.code).toBe('conversation_closed');
    const poll = await request(b.url, `/external/live-chat/conversations/${token}/messages`);
    expect(poll.body.status).toBe('CLOSED');
  });

  test('many closes in a row, each checked on the other node straight away', async () => {
    for (let i = 0; i < 10; i += 1) {
      const [closer, other] = i % 2 ? [a, b] : [b, a];
      const { ws, token, cid } = await chat();
      expect((await visitorPost(other, token, { body: 'hi' })).status).toBe(201);
      expect((await close(closer, ws, cid)).status).toBe(200);
      expect((await visitorPost(other, token, { body: 'again' })).status).toBe(409);
    }
  });

  test('created and at once closed on A: B, which was handed the open conversation at creation, refuses straight away', async () => {
    for (let i = 0; i < 10; i += 1) {
      const { ws, token, cid } = await chat();
      expect((await close(a, ws, cid)).status).toBe(200);
      expect((await visitorPost(b, token, { body: 'late' })).status).toBe(409);
      expect((await reply(b, ws, cid, 'late')).status).toBe(409);
    }
  });

  test('a wrong token of a known conversation is still 404 on a warm node', async () => {
    const { token } = await chat();
    expect((await visitorPost(b, token, { body: 'hi' })).status).toBe(201);
    const forged = `${token.slice(0, -4)}AAAA` === token ? `${token.slice(0, -4)}BBBB` : `${token.slice(0, -4)}AAAA`;
    const res = await visitorPost(b, forged, { body: 'hi' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('conversation_not_found');
  });
});

describe('memory held per visitor socket', () => {
  type RawSocket = {
    request: unknown;
    transport: NodeJS.EventEmitter & { name: string; socket?: NodeJS.EventEmitter & { _socket?: NodeJS.EventEmitter } };
  };
  const engineClients = (node: HearthNode) => Object.values((node.deps.realtime.io.engine as unknown as { clients: Record<string, RawSocket> }).clients);

  test('an open socket keeps neither its upgrade request, nor the close relay that would hold it, nor the handshake-time listeners', async () => {
    const { ws, token, cid } = await chat();
    const visitor = await widgetSocket(b.url, token);
    const seen = record<MessageCreated>(visitor, 'message.created');
    try {
      const clients = engineClients(b);
      expect(clients.length).toBeGreaterThan(0);
      for (const client of clients) {
        expect(client.request).toBeNull();
        const relays = (client.transport.socket?._socket?.listeners('close') ?? []).map(String).filter((source) => source.includes('this.emit("close")'));
        expect(relays).toEqual([]);
        // The WebSocket's pre-transport error guard and the polling-only headers relay are gone; the transport still listens for errors.
        expect(client.transport.name).toBe('websocket');
        expect(client.transport.socket?.listeners('error').map((listener) => listener.name)).not.toContain('onUpgradeError');
        expect(client.transport.socket?.listenerCount('error')).toBe(1);
        expect(client.transport.listenerCount('headers')).toBe(0);
      }
      // Still a working socket.
      expect((await reply(a, ws, cid, 'reaches the visitor')).status).toBe(201);
      await eventually(() => seen.length === 1, 3_000, 5);
    } finally {
      visitor.close();
    }
  });

  test('a visitor socket keeps no token and no typing state of its own, and other nodes are not sent the token', async () => {
    const chats = [await chat(), await chat()];
    const visitors = await Promise.all(chats.map(({ token }) => widgetSocket(b.url, token)));
    try {
      const cids = chats.map(({ cid }) => cid);
      const held = [...b.deps.realtime.io.of('/widget').sockets.values()].filter((socket) => cids.includes(socket.data.conversationId));
      expect(held).toHaveLength(2);
      for (const socket of held) {
        expect(socket.handshake.auth).toEqual({});
        expect(socket.listeners('typing')).toHaveLength(1);
      }
      // One shared listener and one shared empty handshake part for every visitor socket.
      expect(held[0].listeners('typing')[0]).toBe(held[1].listeners('typing')[0]);
      expect(held[0].handshake.auth).toBe(held[1].handshake.auth);
      // A presence query from the other node gets the socket's handshake over Redis: without the token.
      // The query gives up after the adapter's 1 s when node B is slow to answer (a loaded CI machine, where
      // three tries in a row have timed out): asked again then, up to ten times.
      const query = () => a.deps.realtime.io.of('/widget').in(rooms.conversation(chats[0].cid)).fetchSockets();
      const remote = await (async () => {
        for (let tries = 1; ; tries += 1) {
          try {
            return await query();
          } catch (error) {
            if (tries === 10) throw error;
          }
        }
      })();
      expect(remote).toHaveLength(1);
      expect(JSON.stringify(remote[0].handshake)).not.toContain(chats[0].token);
    } finally {
      for (const visitor of visitors) visitor.close();
    }
  });

  test('a socket that starts polling and upgrades (the browser default) still gets pushes and relays typing', async () => {
    const { ws, token, cid } = await chat();
    const agent = await agentSocket(a.url, ws.token, ws.id);
    const typing = record<TypingChanged>(agent, 'typing.changed');
    const visitor = connectClient(`${b.url}/widget`, { auth: { conversationToken: token }, reconnection: false, forceNew: true }) as WidgetSocket;
    const seen = record<MessageCreated>(visitor, 'message.created');
    try {
      await eventually(() => visitor.connected && visitor.io.engine.transport.name === 'websocket', 5_000, 10);
      expect((await reply(a, ws, cid, 'after the upgrade')).status).toBe(201);
      await eventually(() => seen.length === 1, 3_000, 5);
      visitor.emit('typing', { typing: true });
      await eventually(() => typing.length === 1, 3_000, 5);
      expect(typing[0]).toEqual({ conversationId: cid, sender: 'VISITOR', typing: true });
    } finally {
      visitor.close();
      agent.close();
    }
  });
});
