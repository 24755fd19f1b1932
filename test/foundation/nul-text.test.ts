import { afterAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { startEngine, type RunningService } from '../support/services.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { activateChat, identityFor, startChat } from '../livechat/support.js';
import { configure, visitorBody } from '../appointments/helpers.js';

/*
 * U+0000 in the text of a request (src/shared/text.ts, `inputText`): PostgreSQL cannot hold it, so on
 * FerretDB's PostgreSQL handler each of these was a 500 (and stored on SQLite). Now every entry point
 * answers a field-level 400 on every engine and stores nothing; an identity holding one is unreadable
 * (anonymous, never an error: the spec); free-form JSON keeps it byte for byte.
 */
const NUL = 'a\u0000b';
const NOW = new Date('2025-06-02T06:00:00Z');
const SLOT = '2025-06-03T10:00:00.000Z';

const started: RunningService[] = [];
const globalKind = process.env.MONGODB_URI ? 'mongodb' : (process.env.TEST_ENGINE_KIND ?? 'ferretdb-postgresql');
/** The other FerretDB handler, started here; null when it cannot be (no PostgreSQL). */
const other = globalKind === 'mongodb' ? null : await startEngine(globalKind === 'ferretdb-sqlite' ? 'postgresql' : 'sqlite');
if (other) started.push(other);
const engines: [string, string | undefined][] = [[globalKind, undefined]];
if (other) engines.push([other.kind!, other.url]);

afterAll(async () => {
  await Promise.all(started.map((engine) => engine.stop()));
});

/** The answer a NUL gets: 400 in the spec's error shape, one issue on the field. */
const refusedAt = (path: string) => ({
  status: 400,
  body: { code: 'validation_failed', message: expect.any(String), issues: [{ path, message: expect.stringContaining('U+0000') }] },
});
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

describe.each(engines)('U+0000 in request text on %s', (_kind, engineUrl) => {
  let node: HearthNode;
  let ws: WorkspaceFixture;
  let publishableKey: string;
  const admin = (path: string) => `/admin/workspaces/${ws.id}${path}`;
  const clock = new ManualClock(NOW);

  test('set-up', async () => {
    node = await startTestNode({ clock, env: engineUrl ? { MONGODB_URI: engineUrl } : {} });
    ws = await createWorkspace(node.url);
    publishableKey = await activateChat(node.url, ws);
    await configure(node.url, ws, { leadTimeHours: 2, bookingWindowDays: 7 });
  });
  afterAll(async () => {
    await node?.stop();
  });

  test('chat start: the session id and page fields are 400; an identity holding it starts anonymously; nothing stored', async () => {
    expect(answer(await startChat(node.url, publishableKey, { visitorSessionId: NUL }))).toEqual(refusedAt('visitorSessionId'));
    expect(answer(await startChat(node.url, publishableKey, { pageUrl: NUL }))).toEqual(refusedAt('pageUrl'));
    expect(answer(await startChat(node.url, publishableKey, { referrer: NUL }))).toEqual(refusedAt('referrer'));
    expect((await request(node.url, admin('/conversations'), { token: ws.token })).body.pageInfo.total).toBe(0);

    for (const visitor of [identityFor(ws.apiKey, NUL), identityFor(ws.apiKey, 'ada', { name: NUL }), identityFor(ws.apiKey, 'ada', { attributes: { [NUL]: 'x' } })]) {
      const started = await startChat(node.url, publishableKey, { visitor });
      expect([started.status, started.body.resumed]).toEqual([201, false]);
      const stored = await request(node.url, admin(`/conversations/${started.body.conversationId}`), { token: ws.token });
      expect(stored.body.visitor).toMatchObject({ verified: false, externalId: null, name: null, attributes: null });
    }
  });

  test('chat messages: a body or a visitor name holding it is 400 and nothing is stored', async () => {
    const { conversationToken } = (await startChat(node.url, publishableKey)).body;
    const messages = `/external/live-chat/conversations/${conversationToken}/messages`;
    expect(answer(await request(node.url, messages, { body: { body: NUL } }))).toEqual(refusedAt('body'));
    expect(answer(await request(node.url, messages, { body: { body: 'hi', visitorName: NUL } }))).toEqual(refusedAt('visitorName'));
    expect((await request(node.url, messages)).body.messages).toEqual([]);
    expect((await request(node.url, messages, { body: { body: 'hi', visitorName: 'Ada' } })).status).toBe(201);
  });

  test('submissions: each text field is 400 and the inbox stays empty; free-form metadata keeps it byte for byte', async () => {
    const fixture = await createWorkspace(node.url);
    const good = { name: 'Ada', email: 'ada@example.com', message: 'Hello' };
    for (const field of ['name', 'message', 'subject', 'phone', 'source']) {
      const sent = await request(node.url, '/external/submissions', { apiKey: fixture.apiKey, body: { ...good, [field]: NUL } });
      expect(answer(sent)).toEqual(refusedAt(field));
    }
    const inbox = () => request(node.url, `/admin/workspaces/${fixture.id}/submissions`, { token: fixture.token });
    expect((await inbox()).body.pageInfo.total).toBe(0);

    const metadata = '{"a\\u0000b":["\\u0000",{"\\u0000":"x\\u0000"}]}';
    const created = await request(node.url, '/external/submissions', { apiKey: fixture.apiKey, rawBody: `{"name":"Ada","email":"ada@example.com","message":"m","metadata":${metadata}}` });
    expect(created.status).toBe(201);
    expect((await inbox()).text).toContain(`"metadata":${metadata}`);
  });

  test('appointment requests: the visitor texts are 400 and nothing is booked; an identity holding it books anonymously', async () => {
    clock.set(NOW);
    for (const field of ['visitorName', 'visitorPhone', 'visitorMessage', 'visitorSessionId']) {
      const sent = await request(node.url, '/external/appointments/requests', { apiKey: ws.apiKey, body: visitorBody(SLOT, { [field]: NUL }) });
      expect(answer(sent)).toEqual(refusedAt(field));
    }
    expect((await request(node.url, admin('/appointments'), { token: ws.token })).body.items).toEqual([]);
    const anonymous = await request(node.url, '/external/appointments/requests', { apiKey: ws.apiKey, body: visitorBody(SLOT, { visitor: identityFor(ws.apiKey, NUL) }) });
    expect([anonymous.status, anonymous.body.identityVerified]).toEqual([201, false]);
  });

  test('the admin API: a post title, a workspace name and a login e-mail are 400; nothing changes', async () => {
    const post = await request(node.url, admin('/posts'), { token: ws.token, body: { locale: 'en', slug: 'nul', title: NUL } });
    expect(answer(post)).toEqual(refusedAt('title'));
    expect((await request(node.url, admin('/posts'), { token: ws.token })).body.items).toEqual([]);
    const renamed = await request(node.url, admin(''), { method: 'PATCH', token: ws.token, body: { name: NUL } });
    expect(answer(renamed)).toEqual(refusedAt('name'));
    expect((await request(node.url, '/external/workspace', { apiKey: ws.apiKey })).body.name).not.toContain('\u0000');
    expect(answer(await request(node.url, '/admin/auth/login', { body: { email: NUL, password: 'whatever' } }))).toEqual(refusedAt('email'));
  });
});
