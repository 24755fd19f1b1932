import http from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { activateChat } from './support.js';

/**
 * New conversations per visitor (src/livechat/conversation-limits.service.ts): one session, and one client
 * address, start at most so many per workspace per hour, counted across nodes (two nodes on one Redis here);
 * resuming is never refused. Clients are loopback addresses of their own.
 */
const PER_SESSION = 3;
const PER_ADDRESS = 5;

let a: HearthNode;
let b: HearthNode;
beforeAll(async () => {
  const dbName = uniqueDbName('chatcap');
  const env = { MAX_CONVERSATIONS_PER_SESSION: String(PER_SESSION), MAX_CONVERSATIONS_PER_ADDRESS: String(PER_ADDRESS) };
  a = await startTestNode({ redis: true, dbName, env });
  b = await startTestNode({ redis: true, dbName, env });
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

interface Started {
  status: number;
  retryAfter?: string;
  body: { code?: string; conversationToken?: string; resumed?: boolean };
}

/** POST a chat start to `node` from the source address `from`. */
function start(node: HearthNode, from: string, publishableKey: string, body: Record<string, unknown>): Promise<Started> {
  const { port } = new URL(node.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/external/live-chat/conversations',
        localAddress: from,
        agent: false,
        headers: { 'Content-Type': 'application/json', 'X-Publishable-Key': publishableKey },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: JSON.parse(text) as Started['body'] }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

let ws: WorkspaceFixture;
let key: string;
beforeAll(async () => {
  ws = await createWorkspace(a.url);
  key = await activateChat(a.url, ws);
});

test(`one visitor session starts ${PER_SESSION} conversations across the nodes, one more is 429; another session still starts and resuming still works`, async () => {
  const from = '127.0.10.1';
  const made: Started[] = [];
  for (let i = 0; i < PER_SESSION; i += 1) made.push(await start(i % 2 ? b : a, from, key, { visitorSessionId: 'sess-cap' }));
  expect(made.map((answer) => answer.status)).toEqual(Array(PER_SESSION).fill(201));

  for (const node of [a, b]) {
    const refused = await start(node, from, key, { visitorSessionId: 'sess-cap' });
    expect([refused.status, refused.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(refused.retryAfter)).toBeGreaterThan(3000);
  }
  // Resuming holds nothing new: never refused.
  const resumed = await start(b, from, key, { visitorSessionId: 'sess-cap', conversationToken: made[0].body.conversationToken });
  expect([resumed.status, resumed.body.resumed, resumed.body.conversationToken]).toEqual([200, true, made[0].body.conversationToken]);
  // Another session of the same address, and the same session in another workspace, start.
  expect((await start(a, from, key, { visitorSessionId: 'sess-other' })).status).toBe(201);
  const elsewhere = await createWorkspace(a.url);
  expect((await start(b, from, await activateChat(a.url, elsewhere), { visitorSessionId: 'sess-cap' })).status).toBe(201);
});

test(`one client address starts ${PER_ADDRESS} conversations whatever session ids it invents, one more is 429; another address still starts`, async () => {
  const from = '127.0.11.1';
  const statuses = [];
  for (let i = 0; i <= PER_ADDRESS; i += 1) statuses.push((await start(i % 2 ? b : a, from, key, { visitorSessionId: `invented-${i}` })).status);
  expect(statuses).toEqual([...Array(PER_ADDRESS).fill(201), 429]);
  expect((await start(a, '127.0.11.2', key, { visitorSessionId: 'invented-0' })).status).toBe(201);
});
