import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, loginOperator, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { addTo, createUser, memberWith } from './support.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

const admin = (ws: { id: string }, path: string, token: string, options: { method?: string; body?: unknown } = {}) =>
  request(node.url, `/admin/workspaces/${ws.id}${path}`, { token, ...options });

describe('the role matrix: agent < editor < owner', () => {
  test('content writes need an editor, settings and team writes an owner; every role reads and works chats and submissions', async () => {
    const ws = await createWorkspace(node.url);
    const agent = await memberWith(node.url, ws, 'agent');
    const editor = await memberWith(node.url, ws, 'editor');
    const owner = await memberWith(node.url, ws, 'owner');
    const expected = { agent: [403, 403, 403, 403], editor: [201, 403, 403, 403], owner: [201, 200, 200, 201] };
    for (const [role, user] of [['agent', agent], ['editor', editor], ['owner', owner]] as const) {
      const content = await admin(ws, '/categories', user.token, { body: { slug: `c-${role}`, name: role } });
      const settings = await admin(ws, '', user.token, { method: 'PATCH', body: { name: `Renamed by ${role}` } });
      const team = await admin(ws, `/members/${agent.id}`, user.token, { method: 'PATCH', body: { role: 'agent' } });
      const invite = await admin(ws, '/invitations', user.token, { body: { email: `new-${role}@test.local`, role: 'agent' } });
      expect({ role, statuses: [content.status, settings.status, team.status, invite.status] }).toEqual({ role, statuses: expected[role] });
      for (const refused of [content, settings, team, invite].filter((res) => res.status === 403)) expect(refused.body.code).toBe('forbidden');
      // Every role reads the workspace and the team, and does an agent's work.
      for (const path of ['', '/members', '/conversations', '/submissions', '/appointments', '/posts']) {
        expect({ role, path, status: (await admin(ws, path, user.token)).status }).toEqual({ role, path, status: 200 });
      }
    }
    // A post is content too: an editor writes, publishes and deletes one; an agent may not.
    const post = { locale: 'en', slug: 'hello', title: 'Hello', contentMarkdown: 'Hi' };
    expect((await admin(ws, '/posts', agent.token, { body: post })).status).toBe(403);
    const created = await admin(ws, '/posts', editor.token, { body: post });
    expect(created.status).toBe(201);
    expect((await admin(ws, `/posts/${created.body.id}/publish`, editor.token, { body: {} })).status).toBe(200);
    expect((await admin(ws, `/posts/${created.body.id}`, editor.token, { method: 'DELETE' })).status).toBe(204);
    // Plugins and keys stay with owners.
    expect((await admin(ws, '/api-key', editor.token)).status).toBe(403);
    expect((await admin(ws, '/plugins/live-chat', editor.token, { method: 'PUT', body: { enabled: true, greeting: 'Hi' } })).status).toBe(403);
  });

  test('an editor sees webhookUrl with its secret masked, as an agent does', async () => {
    const ws = await createWorkspace(node.url);
    const editor = await memberWith(node.url, ws, 'editor');
    const webhookUrl = 'https://hooks.example.com/in?secret=s3cr3t-value';
    expect((await admin(ws, '', ws.token, { method: 'PATCH', body: { webhookUrl } })).status).toBe(200);
    expect((await admin(ws, '', editor.token)).body.webhookUrl).toBe('https://hooks.example.com/in?secret=***');
  });

  test('a role outside agent, editor and owner is a 400 on role', async () => {
    const ws = await createWorkspace(node.url);
    const user = await createUser(node.url);
    const res = await admin(ws, '/members', ws.token, { body: { userId: user.id, role: 'admin' } });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['role']);
  });
});

describe('GET /admin/workspaces/:wid/members', () => {
  test('lists every member with e-mail, name, role and join time, oldest first, to any member', async () => {
    const ws = await createWorkspace(node.url);
    const agent = await memberWith(node.url, ws, 'agent', 'Ada Agent');
    const editor = await memberWith(node.url, ws, 'editor', 'Ed Editor');
    const res = await admin(ws, '/members', agent.token);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { userId: expect.any(String), email: 'operator@test.local', name: 'Operator', role: 'owner', joinedAt: expect.any(String) },
      { userId: agent.id, email: agent.email, name: 'Ada Agent', role: 'agent', joinedAt: expect.any(String) },
      { userId: editor.id, email: editor.email, name: 'Ed Editor', role: 'editor', joinedAt: expect.any(String) },
    ]);
    const times = (res.body.items as { joinedAt: string }[]).map((item) => Date.parse(item.joinedAt));
    expect(times.every((time) => Number.isFinite(time))).toBe(true);
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  test('a workspace the caller is not a member of answers 404 on every team route', async () => {
    const mine = await createWorkspace(node.url);
    const theirs = await createWorkspace(node.url);
    const owner = await memberWith(node.url, mine, 'owner');
    const stranger = await memberWith(node.url, theirs, 'agent');
    for (const [method, path, body] of [
      ['GET', '/members', undefined],
      ['POST', '/members', { userId: stranger.id, role: 'agent' }],
      ['PATCH', `/members/${stranger.id}`, { role: 'owner' }],
      ['DELETE', `/members/${stranger.id}`, undefined],
      ['GET', '/invitations', undefined],
      ['POST', '/invitations', { email: 'x@test.local', role: 'agent' }],
    ] as const) {
      const res = await admin(theirs, path, owner.token, { method, body });
      expect({ method, path, status: res.status, code: res.body.code }).toEqual({ method, path, status: 404, code: 'workspace_not_found' });
    }
    // In my own workspace, a user of another tenant is no member of mine.
    for (const method of ['PATCH', 'DELETE']) {
      const res = await admin(mine, `/members/${stranger.id}`, owner.token, { method, body: method === 'PATCH' ? { role: 'agent' } : undefined });
      expect({ method, status: res.status, code: res.body.code }).toEqual({ method, status: 404, code: 'member_not_found' });
    }
    expect((await admin(mine, '/members/not-an-id', owner.token, { method: 'PATCH', body: { role: 'agent' } })).body.code).toBe('member_not_found');
    expect((await admin(mine, `/members/${'0'.repeat(24)}`, owner.token, { method: 'DELETE' })).body.code).toBe('member_not_found');
  });
});

describe('POST /admin/workspaces/:wid/members', () => {
  test("an owner may add only users who share a workspace with them; another tenant's user answers as an unknown id", async () => {
    const mine = await createWorkspace(node.url);
    const shared = await createWorkspace(node.url);
    const theirs = await createWorkspace(node.url);
    const owner = await memberWith(node.url, mine, 'owner');
    await addTo(node.url, shared, owner, 'agent');
    const colleague = await memberWith(node.url, shared, 'agent');
    const stranger = await memberWith(node.url, theirs, 'agent');
    const loner = await createUser(node.url);

    const unknown = await admin(mine, '/members', owner.token, { body: { userId: 'f'.repeat(24), role: 'agent' } });
    expect(unknown.status).toBe(404);
    for (const user of [stranger, loner]) {
      const res = await admin(mine, '/members', owner.token, { body: { userId: user.id, role: 'agent' } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: unknown.body });
    }
    expect(unknown.body.code).toBe('user_not_found');
    expect((await admin(mine, '/members', owner.token)).body.items.map((m: { userId: string }) => m.userId)).not.toContain(stranger.id);

    const added = await admin(mine, '/members', owner.token, { body: { userId: colleague.id, role: 'editor' } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ userId: colleague.id, role: 'editor' });
    // Operators keep adding anyone.
    expect((await admin(mine, '/members', mine.token, { body: { userId: stranger.id, role: 'agent' } })).status).toBe(201);
    expect((await admin(mine, '/members', mine.token, { body: { userId: 'f'.repeat(24), role: 'agent' } })).body.code).toBe('user_not_found');
  });
});

describe('PATCH and DELETE /admin/workspaces/:wid/members/:uid', () => {
  test('a role change answers the member and takes effect on the next request', async () => {
    const ws = await createWorkspace(node.url);
    const editor = await memberWith(node.url, ws, 'editor', 'Eve');
    expect((await admin(ws, '/categories', editor.token, { body: { slug: 'one', name: 'One' } })).status).toBe(201);
    const changed = await admin(ws, `/members/${editor.id}`, ws.token, { method: 'PATCH', body: { role: 'agent' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ userId: editor.id, email: editor.email, name: 'Eve', role: 'agent', joinedAt: expect.any(String) });
    expect((await admin(ws, '/categories', editor.token, { body: { slug: 'two', name: 'Two' } })).status).toBe(403);
    const bad = await admin(ws, `/members/${editor.id}`, ws.token, { method: 'PATCH', body: { role: 'boss' } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['role']);
  });

  test('the last owner cannot be demoted, removed or leave (409 last_owner); with a second owner they can', async () => {
    const ws = await createWorkspace(node.url);
    const operator = await loginOperator(node.url);
    const operatorId = (await request(node.url, '/admin/me', { token: operator })).body.id as string;
    const second = await memberWith(node.url, ws, 'owner');
    // Two owners: the operator (the creator) may step down.
    expect((await admin(ws, `/members/${operatorId}`, ws.token, { method: 'PATCH', body: { role: 'editor' } })).status).toBe(200);
    for (const [method, body, token] of [
      ['PATCH', { role: 'agent' }, second.token],
      ['PATCH', { role: 'editor' }, ws.token],
      ['DELETE', undefined, second.token],
      ['DELETE', undefined, ws.token],
    ] as const) {
      const res = await admin(ws, `/members/${second.id}`, token, { method, body });
      expect({ method, status: res.status, code: res.body.code }).toEqual({ method, status: 409, code: 'last_owner' });
    }
    // Keeping the role is no demotion.
    expect((await admin(ws, `/members/${second.id}`, second.token, { method: 'PATCH', body: { role: 'owner' } })).status).toBe(200);
    // POST .../members is a role change too, and keeps the last owner as well.
    expect((await admin(ws, '/members', ws.token, { body: { userId: second.id, role: 'agent' } })).body.code).toBe('last_owner');
    const owners = (await admin(ws, '/members', second.token)).body.items.filter((m: { role: string }) => m.role === 'owner');
    expect(owners.map((m: { userId: string }) => m.userId)).toEqual([second.id]);
  });

  test('agents and editors may leave but not remove others; owners remove anyone', async () => {
    const ws = await createWorkspace(node.url);
    const agent = await memberWith(node.url, ws, 'agent');
    const editor = await memberWith(node.url, ws, 'editor');
    const other = await memberWith(node.url, ws, 'agent');
    await createWorkspace(node.url).then((kept) => addTo(node.url, kept, agent, 'agent'));
    for (const user of [agent, editor]) {
      const res = await admin(ws, `/members/${other.id}`, user.token, { method: 'DELETE' });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'forbidden' });
    }
    expect((await admin(ws, `/members/${agent.id}`, agent.token, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(ws, '', agent.token)).status).toBe(404);
    expect((await admin(ws, `/members/${other.id}`, ws.token, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(ws, `/members/${other.id}`, ws.token, { method: 'DELETE' })).body.code).toBe('member_not_found');
    const left = (await admin(ws, '/members', ws.token)).body.items.map((m: { userId: string }) => m.userId);
    expect(left).toEqual([expect.any(String), editor.id]);
    // The agent is still in their other workspace and signed in.
    expect((await request(node.url, '/admin/me', { token: agent.token })).status).toBe(200);
  });

  test('a user removed from their only workspace is signed out: every session answers 401', async () => {
    const ws = await createWorkspace(node.url);
    const agent = await memberWith(node.url, ws, 'agent');
    const second = (await request(node.url, '/admin/auth/login', { body: { email: agent.email, password: 'member-password' } })).body.token as string;
    expect((await request(node.url, '/admin/me', { token: second })).status).toBe(200);
    expect((await admin(ws, `/members/${agent.id}`, ws.token, { method: 'DELETE' })).status).toBe(204);
    for (const token of [agent.token, second]) expect((await request(node.url, '/admin/me', { token })).status).toBe(401);
    // An operator removed from a workspace stays signed in: operators reach every workspace.
    const opWs = await createWorkspace(node.url);
    const operatorId = (await request(node.url, '/admin/me', { token: opWs.token })).body.id as string;
    await memberWith(node.url, opWs, 'owner');
    expect((await admin(opWs, `/members/${operatorId}`, opWs.token, { method: 'DELETE' })).status).toBe(204);
    expect((await request(node.url, '/admin/me', { token: opWs.token })).status).toBe(200);
  });
});

test('random ids in the path never reach another tenant', async () => {
  const ws: WorkspaceFixture = await createWorkspace(node.url);
  const res = await admin(ws, `/invitations/${randomBytes(12).toString('hex')}`, ws.token, { method: 'DELETE' });
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'invitation_not_found' });
});
