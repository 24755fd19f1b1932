import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, loginOperator, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { agentSocket, type AgentSocket } from '../livechat/support.js';
import { addTo, memberWith } from './support.js';

// Two nodes on one database and the run's private Redis: a change made through node A holds on node B.
let a: HearthNode;
let b: HearthNode;
beforeAll(async () => {
  const dbName = uniqueDbName('team');
  const env = { RATE_LIMIT_PER_MINUTE: '10000' };
  a = await startTestNode({ redis: true, dbName, env });
  b = await startTestNode({ redis: true, dbName, env });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

function watchDisconnect(socket: AgentSocket): () => string | undefined {
  let reason: string | undefined;
  socket.on('disconnect', (why) => (reason = why));
  return () => reason;
}

const get = (node: HearthNode, path: string, token: string) => request(node.url, path, { token });

describe('removing a member takes effect at once on every node', () => {
  test("the removed member's requests answer 404 and their console of that workspace ends; their other workspace stays", async () => {
    const ws = await createWorkspace(a.url);
    const other = await createWorkspace(a.url);
    const agent = await memberWith(a.url, ws, 'agent');
    await addTo(a.url, other, agent, 'agent');
    // Both nodes remember the membership before the removal.
    for (const node of [a, b]) expect((await get(node, `/admin/workspaces/${ws.id}`, agent.token)).status).toBe(200);
    const held = await agentSocket(b.url, agent.token, ws.id);
    const kept = await agentSocket(b.url, agent.token, other.id);
    const ended = watchDisconnect(held);
    const keptEnded = watchDisconnect(kept);
    try {
      expect((await request(a.url, `/admin/workspaces/${ws.id}/members/${agent.id}`, { token: ws.token, method: 'DELETE' })).status).toBe(204);
      for (const node of [b, a]) {
        const res = await get(node, `/admin/workspaces/${ws.id}/conversations`, agent.token);
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'workspace_not_found' });
      }
      expect(await eventually(ended, 3_000, 5)).toBe('io server disconnect');
      const refused = await agentSocket(b.url, agent.token, ws.id).then(
        (socket) => {
          socket.close();
          return 'connected';
        },
        (error: Error) => error.message,
      );
      expect(refused).toBe('workspace_not_found');
      // Still a member elsewhere: signed in, that console kept.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(keptEnded()).toBeUndefined();
      expect(kept.connected).toBe(true);
      for (const node of [a, b]) expect((await get(node, `/admin/workspaces/${other.id}`, agent.token)).status).toBe(200);
    } finally {
      held.close();
      kept.close();
    }
  });

  test('a member removed from their only workspace gets 401 on /admin/me on every node and every console of theirs ends', async () => {
    const ws = await createWorkspace(a.url);
    const agent = await memberWith(a.url, ws, 'agent');
    for (const node of [a, b]) expect((await get(node, '/admin/me', agent.token)).status).toBe(200);
    const consoles = [await agentSocket(a.url, agent.token, ws.id), await agentSocket(b.url, agent.token, ws.id)];
    const ended = consoles.map(watchDisconnect);
    try {
      expect((await request(b.url, `/admin/workspaces/${ws.id}/members/${agent.id}`, { token: ws.token, method: 'DELETE' })).status).toBe(204);
      for (const node of [a, b]) expect((await get(node, '/admin/me', agent.token)).status).toBe(401);
      for (const seen of ended) expect(await eventually(seen, 3_000, 5)).toBe('io server disconnect');
    } finally {
      for (const socket of consoles) socket.close();
    }
  });

  test('a role change made on node A holds on node B at once', async () => {
    const ws = await createWorkspace(a.url);
    const editor = await memberWith(a.url, ws, 'editor');
    const write = (slug: string) => request(b.url, `/admin/workspaces/${ws.id}/categories`, { token: editor.token, body: { slug, name: slug } });
    expect((await write('before')).status).toBe(201);
    expect((await request(a.url, `/admin/workspaces/${ws.id}/members/${editor.id}`, { token: ws.token, method: 'PATCH', body: { role: 'agent' } })).status).toBe(200);
    expect((await write('after')).status).toBe(403);
  });
});

describe('the last owner, under concurrency', () => {
  test('two owners demoting each other at once (through two nodes) leave exactly one owner', async () => {
    for (let round = 0; round < 4; round += 1) {
      const ws = await createWorkspace(a.url);
      const operatorId = (await get(a, '/admin/me', ws.token)).body.id as string;
      const other = await memberWith(a.url, ws, 'owner');
      const [first, second] = await Promise.all([
        request(a.url, `/admin/workspaces/${ws.id}/members/${other.id}`, { token: ws.token, method: 'PATCH', body: { role: 'agent' } }),
        request(b.url, `/admin/workspaces/${ws.id}/members/${operatorId}`, { token: other.token, method: 'PATCH', body: { role: 'agent' } }),
      ]);
      // One demotion lands. The other is refused: 409 `last_owner` when both were under way at once, 403 when
      // the first had landed before the second was authenticated (its sender is no owner any more).
      const refused = [first, second].filter((res) => res.status !== 200);
      expect([first, second].filter((res) => res.status === 200)).toHaveLength(1);
      expect(refused.map((res) => res.body.code)).toEqual([expect.stringMatching(/^(last_owner|forbidden)$/)]);
      const members = (await get(b, `/admin/workspaces/${ws.id}/members`, await loginOperator(b.url))).body.items as { role: string }[];
      expect(members.filter((member) => member.role === 'owner')).toHaveLength(1);
    }
  });

  test('two owners leaving at once leave exactly one owner', async () => {
    const ws = await createWorkspace(a.url);
    const one = await memberWith(a.url, ws, 'owner');
    const two = await memberWith(a.url, ws, 'owner');
    const operatorId = (await get(a, '/admin/me', ws.token)).body.id as string;
    expect((await request(a.url, `/admin/workspaces/${ws.id}/members/${operatorId}`, { token: ws.token, method: 'PATCH', body: { role: 'agent' } })).status).toBe(200);
    const answers = await Promise.all([
      request(a.url, `/admin/workspaces/${ws.id}/members/${one.id}`, { token: one.token, method: 'DELETE' }),
      request(b.url, `/admin/workspaces/${ws.id}/members/${two.id}`, { token: two.token, method: 'DELETE' }),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([204, 409]);
    expect(answers.find((res) => res.status === 409)!.body.code).toBe('last_owner');
    const members = (await get(a, `/admin/workspaces/${ws.id}/members`, ws.token)).body.items as { role: string }[];
    expect(members.filter((member) => member.role === 'owner')).toHaveLength(1);
  });
});
