import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, loginOperator, OPERATOR, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ensureKey } from '../../src/credentials/credentials.service.js';
import { route } from '../../src/http/route.js';
import { allRoutes } from '../../src/app/routes.js';

// A publishable-only route, so the wrong-kind rule is tested independently of the live-chat domain.
const publishableProbe = route({
  method: 'get',
  path: '/external/test/publishable-only',
  summary: 'test probe',
  tags: ['test'],
  auth: 'publishableKey',
  responses: { 200: { description: 'ok' } },
  handle: async ({ workspace }) => ({ body: { workspaceId: workspace.id } }),
});

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ app: { routes: [...allRoutes, publishableProbe] } });
});
afterAll(async () => {
  await node.stop();
});

describe('workspace credentials on /external', () => {
  test('a missing key is 401 in the error shape', async () => {
    const res = await request(node.url, '/external/workspace');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'missing_credential', message: expect.any(String) });
  });

  test('an unknown key is 401', async () => {
    const res = await request(node.url, '/external/workspace', { apiKey: 'sk_' + 'x'.repeat(43) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_credential');
  });

  test('a key without a known prefix is 401', async () => {
    const res = await request(node.url, '/external/workspace', { apiKey: 'nonsense' });
    expect(res.status).toBe(401);
  });

  test('keys are sk_ plus at least 32 URL-safe characters and resolve to their own workspace', async () => {
    const a = await createWorkspace(node.url);
    const b = await createWorkspace(node.url);
    expect(a.apiKey).toMatch(/^sk_[A-Za-z0-9_-]{32,}$/);
    expect((await request(node.url, '/external/workspace', { apiKey: a.apiKey })).body.id).toBe(a.id);
    expect((await request(node.url, '/external/workspace', { apiKey: b.apiKey })).body.id).toBe(b.id);
  });

  test('rotation revokes the old key at once and Reveal shows the key that authenticates', async () => {
    const ws = await createWorkspace(node.url);
    const revealed = await request(node.url, `/admin/workspaces/${ws.id}/api-key`, { token: ws.token });
    expect(revealed.body.apiKey).toBe(ws.apiKey);

    const rotated = await request(node.url, `/admin/workspaces/${ws.id}/api-key/rotate`, { token: ws.token, method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.apiKey).not.toBe(ws.apiKey);

    const old = await request(node.url, '/external/workspace', { apiKey: ws.apiKey });
    expect(old.status).toBe(401);
    expect((await request(node.url, '/external/workspace', { apiKey: rotated.body.apiKey })).status).toBe(200);
    expect((await request(node.url, `/admin/workspaces/${ws.id}/api-key`, { token: ws.token })).body.apiKey).toBe(rotated.body.apiKey);
  });

  test('a publishable key on a broad route is 401 wrong_credential_kind, in either header', async () => {
    const ws = await createWorkspace(node.url);
    const pk = await ensureKey(node.deps, ws.id, 'publishable');
    expect(pk).toMatch(/^pk_[A-Za-z0-9_-]{32,}$/);
    for (const headers of [{ 'X-Api-Key': pk }, { 'X-Publishable-Key': pk }] as Record<string, string>[]) {
      const res = await request(node.url, '/external/workspace', { headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('wrong_credential_kind');
    }
  });

  test('a workspace key on a publishable-only route is 401 wrong_credential_kind, in either header', async () => {
    const ws = await createWorkspace(node.url);
    const pk = await ensureKey(node.deps, ws.id, 'publishable');
    expect((await request(node.url, '/external/test/publishable-only', { publishableKey: pk })).body.workspaceId).toBe(ws.id);
    expect((await request(node.url, `/external/test/publishable-only?publishableKey=${pk}`)).status).toBe(200);
    for (const headers of [{ 'X-Api-Key': ws.apiKey }, { 'X-Publishable-Key': ws.apiKey }] as Record<string, string>[]) {
      const res = await request(node.url, '/external/test/publishable-only', { headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('wrong_credential_kind');
    }
  });
  test('a workspace key is never taken from the URL: in the publishableKey query it is 401 wrong_credential_kind, on every route', async () => {
    const ws = await createWorkspace(node.url);
    await ensureKey(node.deps, ws.id, 'publishable');
    // Warm first: a remembered key must not let the query through on the fast path either.
    expect((await request(node.url, '/external/posts', { apiKey: ws.apiKey })).status).toBe(200);
    expect((await request(node.url, '/external/posts', { apiKey: ws.apiKey })).status).toBe(200);
    for (const path of ['/external/posts', '/external/workspace', '/external/live-chat/bootstrap', '/external/test/publishable-only']) {
      const res = await request(node.url, `${path}?publishableKey=${ws.apiKey}`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('wrong_credential_kind');
      expect(res.body.message).toMatch(/X-Api-Key/);
    }
    // The same key in its header still works.
    expect((await request(node.url, '/external/live-chat/bootstrap', { apiKey: ws.apiKey })).status).toBe(200);
  });
});

describe('admin sessions and membership', () => {
  test('login answers the same 401 for an unknown e-mail and a wrong password', async () => {
    const unknown = await request(node.url, '/admin/auth/login', { body: { email: 'nobody@test.local', password: 'whatever-pass' } });
    const wrong = await request(node.url, '/admin/auth/login', { body: { email: OPERATOR.email, password: 'wrong-password' } });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  test('login is case-insensitive on the e-mail; me answers the user; logout revokes the session', async () => {
    const login = await request(node.url, '/admin/auth/login', { body: { email: OPERATOR.email.toUpperCase(), password: OPERATOR.password } });
    expect(login.status).toBe(200);
    expect(login.body.user).toEqual({ id: expect.any(String), email: OPERATOR.email, name: 'Operator', isOperator: true });
    const token = login.body.token;
    expect((await request(node.url, '/admin/me', { token })).body.email).toBe(OPERATOR.email);
    expect((await request(node.url, '/admin/auth/logout', { token, method: 'POST' })).status).toBe(204);
    expect((await request(node.url, '/admin/me', { token })).status).toBe(401);
  });

  test('admin routes without a session are 401', async () => {
    expect((await request(node.url, '/admin/me')).status).toBe(401);
    expect((await request(node.url, '/admin/me', { token: 'hs_unknown' })).status).toBe(401);
    expect((await request(node.url, '/admin/workspaces')).status).toBe(401);
  });

  test('a non-member sees another workspace as 404; an agent may read but not change settings', async () => {
    const ws = await createWorkspace(node.url);
    const operator = await loginOperator(node.url);
    const email = `agent-${Date.now()}@test.local`;
    const created = await request(node.url, '/admin/users', { token: operator, body: { email, name: 'Agent', password: 'agent-password' } });
    expect(created.status).toBe(201);
    const agent = (await request(node.url, '/admin/auth/login', { body: { email, password: 'agent-password' } })).body.token;

    expect((await request(node.url, `/admin/workspaces/${ws.id}`, { token: agent })).status).toBe(404);
    expect((await request(node.url, `/admin/workspaces/${'0'.repeat(24)}`, { token: agent })).status).toBe(404);
    expect((await request(node.url, '/admin/workspaces', { token: agent })).body.items).toEqual([]);
    // Only operators create workspaces and users.
    expect((await request(node.url, '/admin/users', { token: agent, body: { email: 'x@test.local', name: 'X', password: 'password1' } })).status).toBe(403);

    expect((await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: created.body.id, role: 'agent' } })).status).toBe(201);
    expect((await request(node.url, `/admin/workspaces/${ws.id}`, { token: agent })).status).toBe(200);
    const patch = await request(node.url, `/admin/workspaces/${ws.id}`, { token: agent, method: 'PATCH', body: { name: 'Hijacked' } });
    expect(patch.status).toBe(403);
    expect((await request(node.url, `/admin/workspaces/${ws.id}/api-key`, { token: agent })).status).toBe(403);
  });

  test('workspace creation validates its body with field-level issues', async () => {
    const token = await loginOperator(node.url);
    const res = await request(node.url, '/admin/workspaces', { token, body: { slug: 'Bad Slug', name: '', locales: ['en'], defaultLocale: 'fr' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.issues.map((issue: { path: string }) => issue.path)).toEqual(expect.arrayContaining(['slug', 'name']));
    const dup = await createWorkspace(node.url);
    const slug = (await request(node.url, `/admin/workspaces/${dup.id}`, { token })).body.slug;
    expect((await request(node.url, '/admin/workspaces', { token, body: { slug, name: 'Again', locales: ['en'], defaultLocale: 'en' } })).status).toBe(409);
  });

  test('PATCH stores customConfig and schemaOrg byte-for-byte, whatever their keys', async () => {
    const ws = await createWorkspace(node.url);
    const customConfig = { 'a.b': 1, $weird: { 'x.y': [[1, 2], [3]] }, nested: { deep: [{ $k: null }] }, unicode: 'ü✓' };
    const schemaOrg = { Organization: { '@context': 'https://schema.org', '@type': 'Organization', name: 'X' } };
    const patch = await request(node.url, `/admin/workspaces/${ws.id}`, { token: ws.token, method: 'PATCH', body: { customConfig, schemaOrg } });
    expect(patch.status).toBe(200);
    const res = await request(node.url, '/external/workspace', { apiKey: ws.apiKey });
    expect(res.status).toBe(200);
    expect(res.text).toContain(JSON.stringify(customConfig));
    expect(res.body).toEqual({
      id: ws.id,
      slug: expect.any(String),
      name: expect.any(String),
      locales: ['en', 'de'],
      defaultLocale: 'en',
      customConfig,
      schemaOrg,
    });
  });

  test('defaultLocale must stay one of locales', async () => {
    const ws = await createWorkspace(node.url);
    const res = await request(node.url, `/admin/workspaces/${ws.id}`, { token: ws.token, method: 'PATCH', body: { locales: ['fr'] } });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('defaultLocale');
  });
});

describe('two nodes on one database', () => {
  // Nodes remember resolved keys for a few seconds; they hear each other's rotations through Redis,
  // which a deployment of several nodes has (without REDIS_URL a node is alone). The rotation is answered
  // only once the other node has dropped the old key: Redis acknowledges a publish before subscribers read it.
  test('a rotation on one node revokes the old key on the other at once', async () => {
    const dbName = uniqueDbName();
    const a = await startTestNode({ dbName, redis: true });
    const b = await startTestNode({ dbName, redis: true });
    try {
      const ws = await createWorkspace(a.url);
      expect((await request(b.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(200);
      await request(a.url, `/admin/workspaces/${ws.id}/api-key/rotate`, { token: ws.token, method: 'POST' });
      expect((await request(b.url, '/external/workspace', { apiKey: ws.apiKey })).status).toBe(401);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
