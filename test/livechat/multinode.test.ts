import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import type { ChatMessage, MessageCreated } from '../../src/realtime/events.js';
import { activateChat, agentSocket, createAgent, record, startChat, widgetSocket } from './support.js';

// Two nodes on one database and the run's private Redis: a cluster as in production.
let a: HearthNode;
let b: HearthNode;
beforeAll(async () => {
  const dbName = uniqueDbName('chat2');
  a = await startTestNode({ redis: true, dbName, env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  b = await startTestNode({ redis: true, dbName, env: { RATE_LIMIT_PER_MINUTE: '10000' } });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

describe('two nodes sharing Redis', () => {
  test('a visitor on node A gets the reply of an agent posting through node B', async () => {
    const ws = await createWorkspace(a.url);
    const key = await activateChat(a.url, ws);
    const start = await startChat(a.url, key);
    const visitor = await widgetSocket(a.url, start.body.conversationToken);
    const seen = record<MessageCreated>(visitor, 'message.created');
    const agentOnA = await agentSocket(a.url, ws.token, ws.id);
    const agentSeen = record<MessageCreated>(agentOnA, 'message.created');
    try {
      const reply = await request(b.url, `/admin/workspaces/${ws.id}/conversations/${start.body.conversationId}/messages`, { token: ws.token, body: { body: 'from B' } });
      expect(reply.status).toBe(201);
      await eventually(() => seen.length === 1, 3_000, 5);
      expect(seen[0]).toEqual({ conversationId: start.body.conversationId, message: reply.body, agentName: expect.any(String) });
      // A visitor message posted on B reaches the console held by A.
      await request(b.url, `/external/live-chat/conversations/${start.body.conversationToken}/messages`, { body: { body: 'thanks' } });
      await eventually(() => agentSeen.some((event) => event.message.body === 'thanks'), 3_000, 5);
    } finally {
      visitor.close();
      agentOnA.close();
    }
  });

  test("presence on B makes A's config online, and offline again when the console leaves", async () => {
    const ws = await createWorkspace(a.url);
    const key = await activateChat(a.url, ws);
    const configOnA = async () => (await request(a.url, '/external/live-chat/config', { publishableKey: key })).body.online as boolean;
    expect(await configOnA()).toBe(false);
    const agent = await agentSocket(b.url, await createAgent(b.url, ws), ws.id);
    try {
      // B says so in Redis as the console joins, which may land just after the client sees its connect.
      await eventually(async () => (await configOnA()) === true);
    } finally {
      agent.close();
    }
    await eventually(async () => (await configOnA()) === false);
  });

  test('the 21st message in a minute is 409 whichever node takes it', async () => {
    const ws = await createWorkspace(a.url);
    const key = await activateChat(a.url, ws);
    const { conversationToken: token } = (await startChat(a.url, key)).body;
    const send = (node: HearthNode, i: number) => request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: `m${i}` } });
    // Concurrent, spread over both nodes: the count is atomic and shared.
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i % 2 ? b : a, i)));
    expect(results.map((res) => res.status)).toEqual(Array(20).fill(201));
    for (const node of [a, b]) {
      const res = await send(node, 21);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('flood_limited');
    }
  });

  test('a polling client that reconnects with `after` misses nothing and duplicates nothing in a 200-message burst', async () => {
    const ws = await createWorkspace(a.url);
    const key = await activateChat(a.url, ws);
    const { conversationToken: token, conversationId: cid } = (await startChat(a.url, key)).body;
    const total = 200;

    // The burst: 190 team replies and 10 visitor messages, 10 in flight at a time, through both nodes.
    const burst = (async () => {
      const sent: ChatMessage[] = [];
      for (let i = 0; i < total; i += 10) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, (_, j) => {
            const n = i + j;
            const node = n % 2 ? b : a;
            return n % 20 === 0
              ? request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: `v${n}` } })
              : request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body: `a${n}` } });
          }),
        );
        for (const res of batch) {
          if (res.status !== 201) throw new Error(`send failed: ${res.status} ${res.text}`);
          sent.push(res.body);
        }
      }
      return sent;
    })();

    // The poller runs during the burst, alternating nodes; every few polls it "reconnects": a fresh
    // client that only remembers the last createdAt it saw.
    const received: ChatMessage[] = [];
    let polls = 0;
    let done = false;
    void burst.finally(() => (done = true));
    while (received.length < total) {
      const after = received.at(-1)?.createdAt;
      const node = polls % 2 ? b : a;
      // Read before the request: an empty answer only ends the loop if the burst was over when it was asked.
      const burstOver = done;
      const res = await request(node.url, `/external/live-chat/conversations/${token}/messages${after ? `?after=${encodeURIComponent(after)}` : ''}`);
      expect(res.status).toBe(200);
      received.push(...res.body.messages);
      polls += 1;
      if (burstOver && res.body.messages.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const sent = await burst;

    const ids = received.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length); // no duplicates
    expect(ids.length).toBe(total); // nothing missed
    expect(new Set(ids)).toEqual(new Set(sent.map((message) => message.id)));
    const stamps = received.map((message) => message.createdAt);
    expect([...stamps].sort()).toEqual(stamps); // oldest first, strictly increasing
    expect(new Set(stamps).size).toBe(total);
    expect(polls).toBeGreaterThan(2);
  }, 90_000);
});
