import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { createAgent } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { allRoutes, allWebhookEvents } from '../../src/app/routes.js';
import { EVENT_NAMES } from '../../src/events/events.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

// The admin side of registered webhook endpoints: CRUD, validation, the secret shown once, the SSRF
// guard at registration (private targets off, as in production), roles and tenancy, the OpenAPI events.

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
});
afterAll(async () => {
  await node.stop();
});

const PUBLIC_URL = 'http://93.184.216.34/hooks/hearth';
const base = (ws: WorkspaceFixture) => `/admin/workspaces/${ws.id}/webhook-endpoints`;
const create = (ws: WorkspaceFixture, body: unknown, token = ws.token) => request(node.url, base(ws), { token, body });

test('POST registers an endpoint and shows its whsec_ secret once; list and GET never show it; storage keeps it sealed', async () => {
  const ws = await createWorkspace(node.url);
  const res = await create(ws, { url: PUBLIC_URL, events: ['post.published', 'appointment.requested'], description: 'Site rebuild' });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ url: PUBLIC_URL, events: ['post.published', 'appointment.requested'], description: 'Site rebuild', enabled: true, failingSince: null, disabledAt: null });
  const secret: string = res.body.secret;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);

  const list = await request(node.url, base(ws), { token: ws.token });
  expect(list.status).toBe(200);
  expect(list.body.items).toEqual([expect.objectContaining({ id: res.body.id, url: PUBLIC_URL })]);
  const one = await request(node.url, `${base(ws)}/${res.body.id}`, { token: ws.token });
  expect(one.status).toBe(200);
  for (const text of [list.text, one.text]) {
    expect(text).not.toContain(secret.slice(6));
    expect(text).not.toContain('secret');
  }
  const stored = await node.deps.db.collection('webhook_endpoints').findOne({ url: PUBLIC_URL, description: 'Site rebuild' });
  expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
  expect(node.deps.secretBox.open(stored!.sealedSecret as string)).toBe(secret);

  // Two endpoints never share a secret.
  const other = await create(ws, { url: PUBLIC_URL, events: ['*'] });
  expect(other.status).toBe(201);
  expect(other.body.secret).not.toBe(secret);
  expect(other.body.description).toBeNull();
});

test('bad input is 400 with issues: URL, empty or unknown events, "*" with others, duplicates, credentials, long description', async () => {
  const ws = await createWorkspace(node.url);
  const cases: [unknown, string][] = [
    [{ events: ['*'] }, 'url'],
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: 'ftp://93.184.216.34/x', events: ['*'] }, 'url'],
    [{ url: 'http://user:pw@93.184.216.34/x', events: ['*'] }, 'url'],
    [{ url: PUBLIC_URL }, 'events'],
    [{ url: PUBLIC_URL, events: [] }, 'events'],
    [{ url: PUBLIC_URL, events: ['post.exploded'] }, 'events.0'],
    [{ url: PUBLIC_URL, events: ['post.published', 'message.deleted'] }, 'events.1'],
    [{ url: PUBLIC_URL, events: ['*', 'post.published'] }, 'events'],
    [{ url: PUBLIC_URL, events: ['post.published', 'post.published'] }, 'events'],
    [{ url: PUBLIC_URL, events: ['*'], description: 'x'.repeat(501) }, 'description'],
  ];
  for (const [body, path] of cases) {
    const res = await create(ws, body);
    expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
    expect(res.body.issues.map((issue: { path: string }) => issue.path)).toContain(path);
  }
  // The limits themselves pass: every known event name at once, a 500-character description.
  const all = await create(ws, { url: PUBLIC_URL, events: [...EVENT_NAMES], description: 'x'.repeat(500) });
  expect(all.status).toBe(201);
  const made = await create(ws, { url: PUBLIC_URL, events: ['*'] });
  const patched = await request(node.url, `${base(ws)}/${made.body.id}`, { method: 'PATCH', token: ws.token, body: { events: ['conversation.opened'] } });
  expect(patched.status).toBe(400);
  expect(patched.body.issues[0].path).toBe('events.0');
  expect((await request(node.url, `${base(ws)}/${made.body.id}`, { method: 'PATCH', token: ws.token, body: { enabled: 'no' } })).status).toBe(400);
  expect(await (await request(node.url, base(ws), { token: ws.token })).body.items).toHaveLength(2);
});

test('the SSRF guard refuses loopback, private, link-local and metadata targets at registration and on PATCH', async () => {
  const ws = await createWorkspace(node.url);
  for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://[::1]/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/x', 'http://192.168.0.10/x']) {
    const res = await create(ws, { url, events: ['*'] });
    expect([url, res.status]).toEqual([url, 400]);
    expect(res.body.issues).toEqual([expect.objectContaining({ path: 'url', message: expect.stringMatching(/^target refused/) })]);
  }
  const made = await create(ws, { url: PUBLIC_URL, events: ['*'] });
  expect(made.status).toBe(201);
  const moved = await request(node.url, `${base(ws)}/${made.body.id}`, { method: 'PATCH', token: ws.token, body: { url: 'http://127.0.0.1/x' } });
  expect(moved.status).toBe(400);
  expect((await request(node.url, `${base(ws)}/${made.body.id}`, { token: ws.token })).body.url).toBe(PUBLIC_URL);
});

test('PATCH changes url, events, description and enabled; rotate-secret answers a new secret once; DELETE removes', async () => {
  const ws = await createWorkspace(node.url);
  const made = await create(ws, { url: PUBLIC_URL, events: ['*'] });
  const path = `${base(ws)}/${made.body.id}`;
  const patched = await request(node.url, path, { method: 'PATCH', token: ws.token, body: { url: 'https://93.184.216.34/v2', events: ['submission.created'], description: 'Forms', enabled: false } });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ url: 'https://93.184.216.34/v2', events: ['submission.created'], description: 'Forms', enabled: false, disabledReason: null });
  expect(patched.body.disabledAt).not.toBeNull();
  expect(patched.body).not.toHaveProperty('secret');
  const enabled = await request(node.url, path, { method: 'PATCH', token: ws.token, body: { enabled: true, description: null } });
  expect(enabled.body).toMatchObject({ enabled: true, disabledAt: null, description: null, events: ['submission.created'] });

  const rotated = await request(node.url, `${path}/rotate-secret`, { method: 'POST', token: ws.token });
  expect(rotated.status).toBe(200);
  expect(rotated.body.secret).toMatch(/^whsec_/);
  expect(rotated.body.secret).not.toBe(made.body.secret);
  expect((await request(node.url, path, { token: ws.token })).text).not.toContain(rotated.body.secret.slice(6));

  expect((await request(node.url, path, { method: 'DELETE', token: ws.token })).status).toBe(204);
  expect((await request(node.url, path, { token: ws.token })).status).toBe(404);
  expect((await request(node.url, path, { method: 'DELETE', token: ws.token })).body.code).toBe('webhook_endpoint_not_found');
  expect((await request(node.url, `${path}/rotate-secret`, { method: 'POST', token: ws.token })).status).toBe(404);
  expect((await request(node.url, `${path}/deliveries`, { token: ws.token })).status).toBe(404);
  expect((await request(node.url, base(ws), { token: ws.token })).body.items).toEqual([]);
});

test("another workspace's endpoint is 404 everywhere; agents get 403; no session 401", async () => {
  const a = await createWorkspace(node.url);
  const b = await createWorkspace(node.url);
  const made = await create(a, { url: PUBLIC_URL, events: ['*'] });
  const foreign = `${base(b)}/${made.body.id}`;
  expect((await request(node.url, foreign, { token: b.token })).status).toBe(404);
  expect((await request(node.url, foreign, { method: 'PATCH', token: b.token, body: { enabled: false } })).status).toBe(404);
  expect((await request(node.url, `${foreign}/rotate-secret`, { method: 'POST', token: b.token })).status).toBe(404);
  expect((await request(node.url, `${foreign}/deliveries`, { token: b.token })).status).toBe(404);
  expect((await request(node.url, `${foreign}/deliveries/${made.body.id}/redeliver`, { method: 'POST', token: b.token })).status).toBe(404);
  expect((await request(node.url, foreign, { method: 'DELETE', token: b.token })).status).toBe(404);
  expect((await request(node.url, base(b), { token: b.token })).body.items).toEqual([]);
  expect((await request(node.url, `${base(a)}/not-an-id`, { token: a.token })).status).toBe(404);
  // Still there, unchanged, for its own workspace.
  expect((await request(node.url, `${base(a)}/${made.body.id}`, { token: a.token })).body.enabled).toBe(true);

  const agent = await createAgent(node.url, a);
  expect((await create(a, { url: PUBLIC_URL, events: ['*'] }, agent)).status).toBe(403);
  expect((await request(node.url, base(a), { token: agent })).status).toBe(403);
  expect((await request(node.url, `${base(a)}/${made.body.id}/rotate-secret`, { method: 'POST', token: agent })).status).toBe(403);
  expect((await request(node.url, base(a))).status).toBe(401);
});

test('at most 20 endpoints per workspace: the 21st is 409', async () => {
  const ws = await createWorkspace(node.url);
  for (let n = 0; n < 20; n += 1) expect((await create(ws, { url: `${PUBLIC_URL}/${n}`, events: ['*'] })).status).toBe(201);
  const over = await create(ws, { url: PUBLIC_URL, events: ['*'] });
  expect(over.status).toBe(409);
  expect(over.body.code).toBe('too_many_webhook_endpoints');
});

test('the OpenAPI document lists every event in its webhooks section, each with its payload schema', async () => {
  const built = buildOpenApiDocument(allRoutes, { webhooks: allWebhookEvents });
  expect(built.problems).toEqual([]);
  const served = (await request(node.url, '/openapi.json')).body;
  expect(Object.keys(served.webhooks).sort()).toEqual([...EVENT_NAMES].sort());
  for (const name of EVENT_NAMES) {
    const schema = served.webhooks[name].post.requestBody.content['application/json'].schema;
    const resolved = schema.$ref ? served.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect([name, resolved.required]).toEqual([name, ['type', 'id', 'timestamp', 'workspaceId', 'data']]);
    expect(resolved.properties.type.const).toBe(name);
    expect(resolved.properties.data.type).toBe('object');
  }
  const message = served.components.schemas[served.webhooks['message.created'].post.requestBody.content['application/json'].schema.$ref.split('/').pop()];
  expect(Object.keys(message.properties.data.properties)).toEqual(['conversationId', 'messageId', 'sender', 'body', 'createdAt', 'attachments']);
  // Files only on a message that has them: every other payload keeps its five fields.
  expect(message.properties.data.required).not.toContain('attachments');
  expect(served.paths['/admin/workspaces/{wid}/webhook-endpoints'].post.responses['201'].content['application/json'].schema).toBeDefined();
});
