import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import { startRedis, type RunningService } from '../support/services.js';
import { startNodeProcess } from '../support/node-process.js';
import type { HearthNode } from '../../src/app/node.js';
import { activateChat, agentSocket, createAgent } from './support.js';

// Team presence across nodes is kept in Redis, each node's word on a lease. A private Redis (this file
// restarts it) and a short lease: renewed every second, run out three seconds after the last renewal.
const LEASE = { CHAT_PRESENCE_LEASE_SECONDS: '3' };
const dbName = uniqueDbName('presence');
let redis: RunningService;
let a: HearthNode;

beforeAll(async () => {
  redis = await startRedis();
  a = await startTestNode({ redis: redis.url, dbName, env: LEASE });
});
afterAll(async () => {
  await a?.stop();
  await redis?.stop();
});

/** A workspace with the chat on, and how node A's widget config sees its team. */
async function chatWorkspace(): Promise<{ ws: WorkspaceFixture; onlineOnA: () => Promise<boolean> }> {
  const ws = await createWorkspace(a.url);
  const key = await activateChat(a.url, ws);
  return { ws, onlineOnA: async () => (await request(a.url, '/external/live-chat/config', { publishableKey: key })).body.online as boolean };
}

test("a console on a node that answers nothing (paused) still makes the other node's config online", async () => {
  const { ws, onlineOnA } = await chatWorkspace();
  const b = await startNodeProcess({ redis: redis.url, dbName, env: LEASE });
  try {
    const agent = await agentSocket(b.url, await createAgent(b.url, ws), ws.id);
    await eventually(onlineOnA);
    b.pause();
    try {
      // Asking the nodes themselves, a node stuck for over a second made its agents look away to every visitor.
      expect(await onlineOnA()).toBe(true);
    } finally {
      b.resume();
    }
    agent.close();
    await eventually(async () => !(await onlineOnA()));
  } finally {
    await b.kill();
  }
});

test('a node killed with a console open: its team counts offline once its lease runs out', async () => {
  const { ws, onlineOnA } = await chatWorkspace();
  const b = await startNodeProcess({ redis: redis.url, dbName, env: LEASE });
  const agent = await agentSocket(b.url, await createAgent(b.url, ws), ws.id);
  await eventually(onlineOnA);
  await b.kill();
  agent.close();
  // Nobody withdrew its word: it runs out (3 s after its last renewal).
  await eventually(async () => !(await onlineOnA()), 8_000, 100);
});

test('a node stopping withdraws its word at once, long before its lease would run out', async () => {
  const { ws, onlineOnA } = await chatWorkspace();
  const b = await startTestNode({ redis: redis.url, dbName, env: { CHAT_PRESENCE_LEASE_SECONDS: '300' } });
  const agent = await agentSocket(b.url, await createAgent(b.url, ws), ws.id);
  try {
    await eventually(onlineOnA);
    await b.stop();
    expect(await onlineOnA()).toBe(false);
  } finally {
    agent.close();
  }
});

test('Redis restarted empty: the nodes say again which teams they hold within a renewal', async () => {
  const { ws, onlineOnA } = await chatWorkspace();
  const b = await startTestNode({ redis: redis.url, dbName, env: LEASE });
  const agent = await agentSocket(b.url, await createAgent(b.url, ws), ws.id);
  try {
    await eventually(onlineOnA);
    await redis.stop();
    redis = await startRedis(redis.port);
    await eventually(onlineOnA, 10_000, 100);
  } finally {
    agent.close();
    await b.stop();
  }
});
