import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { activateChat, identityFor, PUT_DEFAULTS, startChat } from './support.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

describe('POST /external/live-chat/conversations', () => {
  // Resume rules and identity verification are service tests (conversations.service.test.ts); the
  // edge maps a new conversation to 201 and a resumed one to 200, and never answers 400 for a bad identity.
  test('a new conversation is 201, a resumed one 200; a malformed identity is still 201', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const created = await startChat(node.url, key, { locale: 'de-AT' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ enabled: true, conversationId: expect.any(String), conversationToken: expect.any(String), greeting: 'Hallo!', resumed: false });
    const resumed = await startChat(node.url, key, { conversationToken: created.body.conversationToken });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ conversationId: created.body.conversationId, resumed: true });
    const conv = (await request(node.url, `/admin/workspaces/${ws.id}/conversations/${created.body.conversationId}`, { token: ws.token })).body;
    expect(conv).toMatchObject({ status: 'OPEN', locale: 'de-AT', visitor: { verified: false, sessionId: 'sess-1' } });
    for (const visitor of ['just a string', { ...identityFor(ws.apiKey, 'x'.repeat(129)) }]) {
      const res = await startChat(node.url, key, { visitor });
      expect(res.status).toBe(201);
      expect(res.body.resumed).toBe(false);
    }
    // A token that matches no open conversation is ignored, however long, odd or null: a new conversation.
    for (const conversationToken of ['ct_unknown', `ct_${'x'.repeat(500)}`, null, '']) {
      const res = await startChat(node.url, key, { conversationToken });
      expect(res.status).toBe(201);
      expect(res.body.resumed).toBe(false);
    }
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
