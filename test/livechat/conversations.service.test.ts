import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { signIdentity } from '../../src/identity/identity.service.js';
import { startConversation } from '../../src/livechat/conversations.service.js';
import { closeConversation, getConversation } from '../../src/livechat/inbox.service.js';
import { postVisitorMessage } from '../../src/livechat/messages.service.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { capturingLogger, identityFor } from './support.js';
import { activateChatService, startChatService } from './service-support.js';

// Resume rules (token, verified identity) and identity verification of a chat start.
const captured = capturingLogger('info');
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices({ logger: captured.logger });
});
afterAll(async () => {
  await services.close();
});

async function chatWorkspace(overrides: Parameters<typeof activateChatService>[2] = {}): Promise<{ ws: Workspace; apiKey: string }> {
  const { workspace, apiKey } = await newWorkspace(services.deps);
  await activateChatService(services.deps, workspace, overrides);
  return { ws: workspace, apiKey };
}
const start = (ws: Workspace, body: Parameters<typeof startChatService>[2] = {}) => startChatService(services.deps, ws, body);
const visitorOf = async (ws: Workspace, cid: string) => (await getConversation(services.deps, ws.id, cid)).visitor;

test('creates, resumes an open conversation by its token, greeting in the locale; stores the page facts', async () => {
  const { ws } = await chatWorkspace();
  const created = await start(ws, { locale: 'de-AT', pageUrl: 'https://shop.test/p', referrer: 'https://search.test' });
  expect(created).toEqual({ enabled: true, conversationId: expect.any(String), conversationToken: expect.any(String), greeting: 'Hallo!', resumed: false });
  const resumed = await start(ws, { conversationToken: created.conversationToken });
  expect(resumed).toMatchObject({ conversationId: created.conversationId, conversationToken: created.conversationToken, resumed: true, greeting: 'Hello!' });
  expect(await getConversation(services.deps, ws.id, created.conversationId)).toMatchObject({
    status: 'OPEN',
    locale: 'de-AT',
    pageUrl: 'https://shop.test/p',
    referrer: 'https://search.test',
    visitor: { verified: false, sessionId: 'sess-1' },
  });
});

test("a token of another workspace, an unknown token or a closed conversation's token is ignored: a new conversation", async () => {
  const { ws: a } = await chatWorkspace();
  const { ws: b } = await chatWorkspace();
  const inA = await start(a);
  const crossTenant = await start(b, { conversationToken: inA.conversationToken });
  expect(crossTenant.resumed).toBe(false);
  expect(crossTenant.conversationId).not.toBe(inA.conversationId);
  expect((await start(a, { conversationToken: 'ct_nope' })).resumed).toBe(false);
  await closeConversation(services.deps, a.id, inA.conversationId);
  const afterClose = await start(a, { conversationToken: inA.conversationToken });
  expect(afterClose.resumed).toBe(false);
  expect(afterClose.conversationId).not.toBe(inA.conversationId);
});

test('verified identity marks the conversation and carries the name; the newest open one is resumed without a token', async () => {
  const { ws, apiKey } = await chatWorkspace();
  const visitor = identityFor(apiKey, 'user-42', { name: 'Ada Lovelace', email: 'ada@example.com', attributes: { plan: 'gold' } });
  const first = await start(ws, { visitor });
  expect(first.resumed).toBe(false);
  expect(await visitorOf(ws, first.conversationId)).toMatchObject({ verified: true, externalId: 'user-42', name: 'Ada Lovelace', email: 'ada@example.com', attributes: { plan: 'gold' } });

  // A second conversation of the same person (after the first was closed), then resume without a token.
  await closeConversation(services.deps, ws.id, first.conversationId);
  const second = await start(ws, { visitor });
  expect(second.resumed).toBe(false);
  const third = await start(ws, { visitor, visitorSessionId: 'other-device' });
  expect(third).toMatchObject({ resumed: true, conversationId: second.conversationId, conversationToken: second.conversationToken });

  // The e-mail beside the signature is used only when it is one address: the identity still verifies.
  for (const email of ['ada@example.com, victim@example.org', 'not an address', 'ada@example.com\r\nBcc: victim@example.org']) {
    const other = identityFor(apiKey, `user-mail-${email.length}`, { name: 'Ada', email });
    const started = await start(ws, { visitor: other });
    expect(await visitorOf(ws, started.conversationId)).toMatchObject({ verified: true, name: 'Ada', email: null });
  }

  // Upper-case hex signatures verify too; another person never resumes it.
  expect((await start(ws, { visitor: { ...visitor, identityToken: visitor.identityToken.toUpperCase() } })).conversationId).toBe(second.conversationId);
  expect((await start(ws, { visitor: identityFor(apiKey, 'user-43') })).resumed).toBe(false);

  // Without identity, no resume by externalId (anonymous starts are always new without a token).
  const anonymous = await start(ws, { visitor: { externalId: 'user-42' } });
  expect(anonymous.resumed).toBe(false);
  expect(await visitorOf(ws, anonymous.conversationId)).toMatchObject({ verified: false, externalId: null, name: null });

  // Another verified person presenting this person's token does not get into it.
  const hijack = await start(ws, { visitor: identityFor(apiKey, 'user-43'), conversationToken: second.conversationToken });
  expect(hijack.resumed).toBe(false);
  expect(hijack.conversationId).not.toBe(second.conversationId);
});

test('resumed by its token with a verified identity, an anonymous chat keeps the name and e-mail the visitor typed unless the identity gives its own', async () => {
  const { ws, apiKey } = await chatWorkspace();
  const typed = async () => {
    const started = await start(ws);
    await postVisitorMessage(services.deps, started.conversationToken, { body: 'hi', visitorName: 'Bob', visitorEmail: 'bob@example.com' });
    return started;
  };
  const nameless = await typed();
  await start(ws, { conversationToken: nameless.conversationToken, visitor: identityFor(apiKey, 'user-7') });
  expect(await visitorOf(ws, nameless.conversationId)).toMatchObject({ verified: true, externalId: 'user-7', name: 'Bob', email: 'bob@example.com' });

  const named = await typed();
  await start(ws, { conversationToken: named.conversationToken, visitor: identityFor(apiKey, 'user-8', { name: 'Robert', email: 'robert@example.com' }) });
  expect(await visitorOf(ws, named.conversationId)).toMatchObject({ verified: true, name: 'Robert', email: 'robert@example.com' });
});

test('the explicit identity secret verifies in addition to the derived one', async () => {
  const secret = 'explicit-identity-secret-xyz';
  const { ws, apiKey } = await chatWorkspace({ identitySecret: secret });
  const explicit = await start(ws, { visitor: { externalId: 'x-1', name: 'Bo', identityToken: signIdentity(secret, 'x-1') } });
  expect(await visitorOf(ws, explicit.conversationId)).toMatchObject({ verified: true, name: 'Bo' });
  const derived = await start(ws, { visitor: identityFor(apiKey, 'x-2') });
  expect((await visitorOf(ws, derived.conversationId)).verified).toBe(true);
});

test('a bad identity starts anonymously, never an error, and is logged with the workspace id; exactly at the bounds it verifies', async () => {
  const { ws, apiKey } = await chatWorkspace();
  const bad = [
    { externalId: 'u-1', name: 'Eve', identityToken: 'ab'.repeat(32) }, // wrong signature
    { externalId: 'u-1', name: 'Eve' }, // unsigned
    { externalId: 'u-1', identityToken: 'not-hex' }, // malformed token
    'just a string', // malformed payload
    { ...identityFor(apiKey, 'x'.repeat(129)) }, // over the 128 bound
    { ...identityFor(apiKey, 'u-2'), name: 'n'.repeat(121) },
    { ...identityFor(apiKey, 'u-2'), email: `${'e'.repeat(196)}@x.io` }, // 201 chars
    { ...identityFor(apiKey, 'u-2'), attributes: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) },
  ];
  for (const visitor of bad) {
    const started = await start(ws, { visitor });
    expect(started.resumed).toBe(false);
    expect(await visitorOf(ws, started.conversationId)).toMatchObject({ verified: false, externalId: null, name: null });
  }
  const logged = captured.lines().filter((line) => line.workspaceId === ws.id && /identity not verified/.test(String(line.msg)));
  expect(logged).toHaveLength(bad.length);

  const atBounds = identityFor(apiKey, 'x'.repeat(128), {
    name: 'n'.repeat(120),
    email: `${'e'.repeat(195)}@x.io`,
    attributes: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`${i}`.padEnd(40, 'k'), 'v'.repeat(100)])),
  });
  const ok = await start(ws, { visitor: atBounds });
  expect(await visitorOf(ws, ok.conversationId)).toMatchObject({ verified: true, name: 'n'.repeat(120) });
});

test('plugin never activated or switched off: enabled false, no conversation', async () => {
  const { workspace } = await newWorkspace(services.deps);
  expect(await startConversation(services.deps, workspace, { visitorSessionId: 's' })).toEqual({ enabled: false });
  await activateChatService(services.deps, workspace, { enabled: false });
  expect(await startConversation(services.deps, workspace, { visitorSessionId: 's' })).toEqual({ enabled: false });
});
