import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { signIdentity } from '../../src/identity/identity.service.js';
import { activateChat, capturingLogger, identityFor, PUT_DEFAULTS, startChat } from './support.js';

const captured = capturingLogger('warn');
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ logger: captured.logger });
});
afterAll(async () => {
  await node.stop();
});

const adminConversation = async (wsId: string, token: string, cid: string) =>
  (await request(node.url, `/admin/workspaces/${wsId}/conversations/${cid}`, { token })).body;

describe('POST /external/live-chat/conversations', () => {
  test('creates (201), resumes an open conversation by token (200), greeting in the locale', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const created = await startChat(node.url, key, { locale: 'de-AT', pageUrl: 'https://shop.test/p', referrer: 'https://search.test' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ enabled: true, conversationId: expect.any(String), conversationToken: expect.any(String), greeting: 'Hallo!', resumed: false });

    const resumed = await startChat(node.url, key, { conversationToken: created.body.conversationToken });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ conversationId: created.body.conversationId, conversationToken: created.body.conversationToken, resumed: true, greeting: 'Hello!' });

    const conv = await adminConversation(ws.id, ws.token, created.body.conversationId);
    expect(conv).toMatchObject({ status: 'OPEN', locale: 'de-AT', pageUrl: 'https://shop.test/p', referrer: 'https://search.test', visitor: { verified: false, sessionId: 'sess-1' } });
  });

  test("a token of another workspace, an unknown token or a closed conversation's token is ignored: a new conversation", async () => {
    const a = await createWorkspace(node.url);
    const b = await createWorkspace(node.url);
    const keyA = await activateChat(node.url, a);
    const keyB = await activateChat(node.url, b);
    const inA = await startChat(node.url, keyA);

    const crossTenant = await startChat(node.url, keyB, { conversationToken: inA.body.conversationToken });
    expect(crossTenant.status).toBe(201);
    expect(crossTenant.body.resumed).toBe(false);
    expect(crossTenant.body.conversationId).not.toBe(inA.body.conversationId);

    const unknown = await startChat(node.url, keyA, { conversationToken: 'ct_nope' });
    expect(unknown.status).toBe(201);
    expect(unknown.body.resumed).toBe(false);

    await request(node.url, `/admin/workspaces/${a.id}/conversations/${inA.body.conversationId}/close`, { method: 'POST', token: a.token });
    const afterClose = await startChat(node.url, keyA, { conversationToken: inA.body.conversationToken });
    expect(afterClose.status).toBe(201);
    expect(afterClose.body.resumed).toBe(false);
    expect(afterClose.body.conversationId).not.toBe(inA.body.conversationId);
  });

  test('verified identity marks the conversation and carries the name; the newest open one is resumed without a token', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const visitor = identityFor(ws.apiKey, 'user-42', { name: 'Ada Lovelace', email: 'ada@example.com', attributes: { plan: 'gold' } });
    const first = await startChat(node.url, key, { visitor });
    expect(first.status).toBe(201);
    expect(await adminConversation(ws.id, ws.token, first.body.conversationId)).toMatchObject({
      visitor: { verified: true, externalId: 'user-42', name: 'Ada Lovelace', email: 'ada@example.com', attributes: { plan: 'gold' } },
    });

    // A second conversation of the same person (after the first was closed), then resume without a token.
    await request(node.url, `/admin/workspaces/${ws.id}/conversations/${first.body.conversationId}/close`, { method: 'POST', token: ws.token });
    const second = await startChat(node.url, key, { visitor });
    expect(second.status).toBe(201);
    const third = await startChat(node.url, key, { visitor, visitorSessionId: 'other-device' });
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ resumed: true, conversationId: second.body.conversationId, conversationToken: second.body.conversationToken });

    // Upper-case hex signatures verify too; another person never resumes it.
    const upper = await startChat(node.url, key, { visitor: { ...visitor, identityToken: visitor.identityToken.toUpperCase() } });
    expect(upper.body.conversationId).toBe(second.body.conversationId);
    const someoneElse = await startChat(node.url, key, { visitor: identityFor(ws.apiKey, 'user-43') });
    expect(someoneElse.status).toBe(201);

    // Without identity, no resume by externalId (anonymous starts are always new without a token).
    const anonymous = await startChat(node.url, key, { visitor: { externalId: 'user-42' } });
    expect(anonymous.status).toBe(201);
    expect((await adminConversation(ws.id, ws.token, anonymous.body.conversationId)).visitor).toMatchObject({ verified: false, externalId: null, name: null });

    // Another verified person presenting this person's token does not get into it.
    const hijack = await startChat(node.url, key, { visitor: identityFor(ws.apiKey, 'user-43'), conversationToken: second.body.conversationToken });
    expect(hijack.status).toBe(201);
    expect(hijack.body.conversationId).not.toBe(second.body.conversationId);
  });

  test('the explicit identity secret verifies in addition to the derived one', async () => {
    const ws = await createWorkspace(node.url);
    const secret = 'explicit-identity-secret-xyz';
    const key = await activateChat(node.url, ws, { identitySecret: secret });
    const res = await startChat(node.url, key, { visitor: { externalId: 'x-1', name: 'Bo', identityToken: signIdentity(secret, 'x-1') } });
    expect((await adminConversation(ws.id, ws.token, res.body.conversationId)).visitor).toMatchObject({ verified: true, name: 'Bo' });
    const derived = await startChat(node.url, key, { visitor: identityFor(ws.apiKey, 'x-2') });
    expect((await adminConversation(ws.id, ws.token, derived.body.conversationId)).visitor.verified).toBe(true);
  });

  test('a bad identity starts anonymously, never an error, and is logged with the workspace id', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const bad = [
      { externalId: 'u-1', name: 'Eve', identityToken: 'ab'.repeat(32) }, // wrong signature
      { externalId: 'u-1', name: 'Eve' }, // unsigned
      { externalId: 'u-1', identityToken: 'not-hex' }, // malformed token
      'just a string', // malformed payload
      { ...identityFor(ws.apiKey, 'x'.repeat(129)) }, // over the 128 bound
      { ...identityFor(ws.apiKey, 'u-2'), name: 'n'.repeat(121) },
      { ...identityFor(ws.apiKey, 'u-2'), email: `${'e'.repeat(196)}@x.io` }, // 201 chars
      { ...identityFor(ws.apiKey, 'u-2'), attributes: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) },
    ];
    for (const visitor of bad) {
      const res = await startChat(node.url, key, { visitor });
      expect(res.status).toBe(201);
      const conv = await adminConversation(ws.id, ws.token, res.body.conversationId);
      expect(conv.visitor).toMatchObject({ verified: false, externalId: null, name: null });
    }
    const logged = captured.lines().filter((line) => line.workspaceId === ws.id && /identity not verified/.test(String(line.msg)));
    expect(logged).toHaveLength(bad.length);

    // Exactly at the bounds the identity verifies.
    const atBounds = identityFor(ws.apiKey, 'x'.repeat(128), {
      name: 'n'.repeat(120),
      email: `${'e'.repeat(195)}@x.io`,
      attributes: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`${i}`.padEnd(40, 'k'), 'v'.repeat(100)])),
    });
    const ok = await startChat(node.url, key, { visitor: atBounds });
    expect((await adminConversation(ws.id, ws.token, ok.body.conversationId)).visitor).toMatchObject({ verified: true, name: 'n'.repeat(120) });
  });

  test('plugin not activated or disabled: 200 {enabled:false}; keys and body are checked', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { ...PUT_DEFAULTS, enabled: false } });
    const off = await startChat(node.url, key);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ enabled: false });
    await activateChat(node.url, ws);

    const withSk = await request(node.url, '/external/live-chat/conversations', { apiKey: ws.apiKey, body: { visitorSessionId: 's' } });
    expect(withSk.status).toBe(401);
    expect(withSk.body.code).toBe('wrong_credential_kind');
    expect((await request(node.url, '/external/live-chat/conversations', { body: { visitorSessionId: 's' } })).status).toBe(401);
    expect((await startChat(node.url, 'pk_unknownunknownunknownunknownunknown')).status).toBe(401);

    expect((await startChat(node.url, key, { visitorSessionId: 's'.repeat(120) })).status).toBe(201);
    const cases: [Record<string, unknown>, string][] = [
      [{ visitorSessionId: 's'.repeat(121) }, 'visitorSessionId'],
      [{ visitorSessionId: '' }, 'visitorSessionId'],
      [{ visitorSessionId: undefined }, 'visitorSessionId'],
      [{ pageUrl: 'u'.repeat(2001) }, 'pageUrl'],
      [{ referrer: 'r'.repeat(2001) }, 'referrer'],
      [{ locale: 'not a locale' }, 'locale'],
    ];
    for (const [body, path] of cases) {
      const res = await startChat(node.url, key, body);
      expect(res.status).toBe(400);
      expect(res.body.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    }
    expect((await startChat(node.url, key, { pageUrl: 'u'.repeat(2000), referrer: 'r'.repeat(2000), locale: 'zh-Hant-TW' })).status).toBe(201);
  });
});
