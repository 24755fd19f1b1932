import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { agentSocket, createAgent, type AgentSocket } from './support.js';

// Two nodes on one database and the run's private Redis, sharing one clock the tests move.
const clock = new ManualClock(new Date());
let a: HearthNode;
let b: HearthNode;
beforeAll(async () => {
  const dbName = uniqueDbName('revoke');
  const env = { RATE_LIMIT_PER_MINUTE: '10000', SESSION_TTL_HOURS: '1' };
  a = await startTestNode({ redis: true, dbName, clock, env });
  b = await startTestNode({ redis: true, dbName, clock, env });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

/** When (performance.now()) and why the server ended the socket; undefined while it is connected. */
function watchDisconnect(socket: AgentSocket): () => { at: number; reason: string } | undefined {
  let seen: { at: number; reason: string } | undefined;
  socket.on('disconnect', (reason) => (seen = { at: performance.now(), reason }));
  return () => seen;
}

const refusal = (url: string, token: string, workspaceId: string) =>
  agentSocket(url, token, workspaceId).then(
    (socket) => {
      socket.close();
      return 'connected';
    },
    (error: Error) => error.message,
  );

describe('agent sockets end with their session, on every node', () => {
  test('a logout on node A disconnects the console held by node B within a second; the old token is refused', async () => {
    const ws = await createWorkspace(a.url);
    const token = await createAgent(a.url, ws);
    const held = await agentSocket(b.url, token, ws.id);
    const ended = watchDisconnect(held);
    // The owner's console, another session, stays.
    const owner = await agentSocket(b.url, ws.token, ws.id);
    const ownerEnded = watchDisconnect(owner);
    try {
      const started = performance.now();
      expect((await request(a.url, '/admin/auth/logout', { token, method: 'POST' })).status).toBe(204);
      const seen = await eventually(ended, 3_000, 5);
      expect(seen.reason).toBe('io server disconnect');
      expect(seen.at - started).toBeLessThan(1_000);

      expect(await refusal(b.url, token, ws.id)).toBe('unauthorized');
      expect(await refusal(a.url, token, ws.id)).toBe('unauthorized');
      expect(ownerEnded()).toBeUndefined();
      expect(owner.connected).toBe(true);
    } finally {
      held.close();
      owner.close();
    }
  });

  test("a logout ends only that session's sockets: the same user's other session keeps its console", async () => {
    const ws = await createWorkspace(a.url);
    const first = await createAgent(a.url, ws);
    const me = await request(a.url, '/admin/me', { token: first });
    const email = me.body.email as string;
    const second = (await request(a.url, '/admin/auth/login', { body: { email, password: 'agent-password' } })).body.token as string;
    const firstConsole = await agentSocket(b.url, first, ws.id);
    const secondConsole = await agentSocket(b.url, second, ws.id);
    const firstEnded = watchDisconnect(firstConsole);
    const secondEnded = watchDisconnect(secondConsole);
    try {
      await request(a.url, '/admin/auth/logout', { token: first, method: 'POST' });
      await eventually(firstEnded, 3_000, 5);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(secondEnded()).toBeUndefined();
      expect(secondConsole.connected).toBe(true);
    } finally {
      firstConsole.close();
      secondConsole.close();
    }
  });

  test('a console is disconnected within a second of its session expiring, and the token is then refused', async () => {
    const ws = await createWorkspace(a.url);
    const token = await createAgent(a.url, ws);
    const onB = await agentSocket(b.url, token, ws.id);
    const onA = await agentSocket(a.url, token, ws.id);
    const endedB = watchDisconnect(onB);
    const endedA = watchDisconnect(onA);
    try {
      // One minute before expiry (SESSION_TTL_HOURS=1) the consoles stay.
      clock.advance(59 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect([endedA(), endedB()]).toEqual([undefined, undefined]);

      clock.advance(60_000);
      const started = performance.now();
      const [seenA, seenB] = await Promise.all([eventually(endedA, 3_000, 5), eventually(endedB, 3_000, 5)]);
      for (const seen of [seenA, seenB]) {
        expect(seen.reason).toBe('io server disconnect');
        expect(seen.at - started).toBeLessThan(1_000);
      }
      expect(await refusal(b.url, token, ws.id)).toBe('unauthorized');
    } finally {
      onA.close();
      onB.close();
    }
  });
});
