import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { request, startTestNode, watchingCommands, type WorkspaceFixture } from '../support/harness.js';
import { createAgent, identityFor, startChat } from '../livechat/support.js';
import { book } from '../appointments/helpers.js';
import { visitorWorkspace, type VisitorWorkspace } from '../inbox/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { sha256Hex } from '../../src/shared/crypto.js';
import { conversationStore, newConversationId } from '../../src/livechat/conversations.model.js';
import { appointmentStore, newAppointmentId } from '../../src/appointments/appointments.model.js';
import { submissionStore } from '../../src/submissions/submissions.model.js';
import { engineTraits } from '../../src/db/engine-traits.js';

// GET /admin/workspaces/:wid/people: a person's conversations, appointments and submissions, linked by a
// verified externalId, an e-mail (any case) or the widget session, each in its admin list's shape.

const NOW = new Date('2025-06-02T06:00:00Z');
const SLOT = '2025-06-03T10:00:00.000Z';
const clock = new ManualClock(NOW);
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ clock });
});
afterAll(async () => {
  await node.stop();
});

type Fixture = VisitorWorkspace;

/** A workspace with live chat and appointments (every day 09:00-17:00 UTC) switched on. */
const workspace = () => visitorWorkspace(node.url);

const people = (ws: WorkspaceFixture, query: Record<string, string>, token = ws.token) =>
  request(node.url, `/admin/workspaces/${ws.id}/people?${new URLSearchParams(query).toString()}`, { token });

/** Starts a conversation (a verified one with `identity`); optionally the visitor then types an e-mail in a message. */
async function chat(ws: Fixture, visitorSessionId: string, options: { identity?: Record<string, unknown>; typedEmail?: string } = {}) {
  clock.advance(1000);
  const started = await startChat(node.url, ws.publishableKey, { visitorSessionId, ...(options.identity && { visitor: options.identity }) });
  expect(started.status).toBe(201);
  if (options.typedEmail) {
    const sent = await request(node.url, `/external/live-chat/conversations/${started.body.conversationToken}/messages`, {
      body: { body: 'Hello', visitorEmail: options.typedEmail },
    });
    expect(sent.status).toBe(201);
  }
  return started.body.conversationId as string;
}

async function booking(ws: Fixture, extra: Record<string, unknown>) {
  clock.advance(1000);
  return (await book(node.url, ws, SLOT, extra)).id;
}

async function submission(ws: Fixture, email: string) {
  clock.advance(1000);
  const res = await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Ada', email, message: 'Please call me.' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const ids = (items: { id: string }[]) => items.map((item) => item.id);
const matches = (items: { id: string; matchedBy: string[] }[]) => items.map((item) => [item.id, item.matchedBy]);

describe('one person across chat, bookings and submissions', () => {
  test('every record carrying any given key, newest first, in its admin list shape, with the keys that linked it; nobody else\'s', async () => {
    const ws = await workspace();
    const other = await workspace();
    const ada = (apiKey: string, extra: Record<string, unknown> = {}) => identityFor(apiKey, 'person-ada', extra);

    // Ada: a verified chat, a chat where she only typed her e-mail, an anonymous booking from her session,
    // a verified booking with her work address, a contact form.
    const verifiedChat = await chat(ws, 'sess-ada', { identity: ada(ws.apiKey, { email: 'ada@example.com', name: 'Ada' }) });
    const typedChat = await chat(ws, 'sess-ada-phone', { typedEmail: 'ADA@example.com' });
    const sessionBooking = await booking(ws, { visitorEmail: 'Ada@Example.COM', visitorSessionId: 'sess-ada' });
    const verifiedBooking = await booking(ws, { visitorEmail: 'ada.work@example.com', visitor: ada(ws.apiKey) });
    const form = await submission(ws, 'ada@EXAMPLE.com');

    // Someone else in the same workspace, one who claims Ada's externalId without a valid signature, and
    // Ada herself in another workspace: none of it may show.
    await chat(ws, 'sess-bob', { identity: identityFor(ws.apiKey, 'person-bob', { email: 'bob@example.com' }) });
    await chat(ws, 'sess-mallory', { identity: { externalId: 'person-ada', identityToken: 'f'.repeat(64) } });
    await booking(ws, { visitorEmail: 'bob@example.com', visitorSessionId: 'sess-bob', visitor: { externalId: 'person-ada', identityToken: 'f'.repeat(64) } });
    await submission(ws, 'bob@example.com');
    await submission(ws, 'ada@example.com.evil.test');
    await chat(other, 'sess-ada', { identity: ada(other.apiKey, { email: 'ada@example.com' }), typedEmail: 'ada@example.com' });
    await booking(other, { visitorEmail: 'ada@example.com', visitorSessionId: 'sess-ada', visitor: ada(other.apiKey) });
    await submission(other, 'ada@example.com');

    const all = await people(ws, { externalId: 'person-ada', email: 'ada@example.com', visitorSessionId: 'sess-ada' });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(['appointments', 'conversations', 'submissions']);
    expect(matches(all.body.conversations)).toEqual([
      [typedChat, ['email']],
      [verifiedChat, ['externalId', 'email', 'visitorSessionId']],
    ]);
    expect(matches(all.body.appointments)).toEqual([
      [verifiedBooking, ['externalId']],
      [sessionBooking, ['email', 'visitorSessionId']],
    ]);
    expect(matches(all.body.submissions)).toEqual([[form, ['email']]]);

    // Each item is exactly what its admin list answers, plus matchedBy.
    const listed = async (path: string) => (await request(node.url, `/admin/workspaces/${ws.id}/${path}`, { token: ws.token })).body.items as { id: string }[];
    const [conversations, appointments, submissions] = await Promise.all([listed('conversations'), listed('appointments'), listed('submissions')]);
    for (const [items, list] of [
      [all.body.conversations, conversations],
      [all.body.appointments, appointments],
      [all.body.submissions, submissions],
    ] as const) {
      for (const { matchedBy: _matchedBy, ...item } of items as { id: string; matchedBy: string[] }[]) expect(item).toEqual(list.find((entry) => entry.id === item.id));
    }
    // The UI tells a verified identity from a typed e-mail by the fields the conversation already carries.
    const [typed, verified] = all.body.conversations;
    expect(typed.visitor).toMatchObject({ verified: false, externalId: null, email: 'ADA@example.com', sessionId: 'sess-ada-phone' });
    expect(verified.visitor).toMatchObject({ verified: true, externalId: 'person-ada', email: 'ada@example.com', sessionId: 'sess-ada' });

    // One key at a time.
    const byEmail = await people(ws, { email: 'ADA@EXAMPLE.COM' });
    expect(matches(byEmail.body.conversations)).toEqual([
      [typedChat, ['email']],
      [verifiedChat, ['email']],
    ]);
    expect(matches(byEmail.body.appointments)).toEqual([[sessionBooking, ['email']]]);
    expect(matches(byEmail.body.submissions)).toEqual([[form, ['email']]]);

    const byExternalId = await people(ws, { externalId: 'person-ada' });
    expect(matches(byExternalId.body.conversations)).toEqual([[verifiedChat, ['externalId']]]);
    expect(matches(byExternalId.body.appointments)).toEqual([[verifiedBooking, ['externalId']]]);
    expect(byExternalId.body.submissions).toEqual([]);

    const bySession = await people(ws, { visitorSessionId: 'sess-ada' });
    expect(matches(bySession.body.conversations)).toEqual([[verifiedChat, ['visitorSessionId']]]);
    expect(matches(bySession.body.appointments)).toEqual([[sessionBooking, ['visitorSessionId']]]);
    expect(bySession.body.submissions).toEqual([]);

    // The e-mail is taken literally, not as a pattern; a key nobody carries finds nothing.
    expect(await people(ws, { email: 'ada@example.co' }).then((res) => res.body)).toEqual({ conversations: [], appointments: [], submissions: [] });
    expect(ids((await people(ws, { email: 'ada@example.com.evil.test' })).body.submissions)).toHaveLength(1);
    expect((await people(ws, { externalId: 'person-nobody' })).body).toEqual({ conversations: [], appointments: [], submissions: [] });

    // The other workspace sees only its own Ada.
    const there = await people(other, { email: 'ada@example.com' });
    expect(there.body.conversations).toHaveLength(1);
    expect(there.body.appointments).toHaveLength(1);
    expect(there.body.submissions).toHaveLength(1);
    expect([...ids(there.body.conversations), ...ids(there.body.appointments), ...ids(there.body.submissions)]).not.toContain(verifiedChat);
  });
});

describe('who may ask, and what', () => {
  test('any member may read it; a workspace the caller is not a member of answers 404', async () => {
    const ws = await workspace();
    const other = await workspace();
    const agent = await createAgent(node.url, ws);
    expect((await people(ws, { email: 'ada@example.com' }, agent)).status).toBe(200);
    const outside = await people(other, { email: 'ada@example.com' }, agent);
    expect(outside.status).toBe(404);
    expect(outside.body.code).toBe('workspace_not_found');
    expect((await request(node.url, `/admin/workspaces/${ws.id}/people?email=ada@example.com`)).status).toBe(401);
  });

  test('no key is a 400 with an issue; each key up to its bound passes and one character more is a 400 on that field', async () => {
    const ws = await workspace();
    const none = await people(ws, {});
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('validation_failed');
    expect(none.body.issues).toEqual([{ path: '', message: expect.stringMatching(/at least one of externalId, email and visitorSessionId/) }]);

    // The widest e-mail a submission keeps (320) is found by itself.
    const local = 'a'.repeat(64);
    const domain = `${'d'.repeat(60)}.`.repeat(4);
    const longest = `${local}@${domain}${'c'.repeat(320 - local.length - 1 - domain.length)}`;
    expect(longest).toHaveLength(320);
    const form = await submission(ws, longest);
    const found = await people(ws, { email: longest.toUpperCase() });
    expect(found.status).toBe(200);
    expect(ids(found.body.submissions)).toEqual([form]);

    const bounds: [string, string, string][] = [
      ['externalId', 'x'.repeat(128), 'x'.repeat(129)],
      ['visitorSessionId', 's'.repeat(120), 's'.repeat(121)],
      ['email', longest, `a${longest}`],
    ];
    for (const [key, atBound, over] of bounds) {
      expect({ key, status: (await people(ws, { [key]: atBound })).status }).toEqual({ key, status: 200 });
      const refused = await people(ws, { [key]: over });
      expect({ key, status: refused.status, paths: refused.body.issues.map((issue: { path: string }) => issue.path) }).toEqual({ key, status: 400, paths: [key] });
    }
    for (const [key, value] of [['externalId', ''], ['visitorSessionId', ''], ['email', 'not-an-address']]) {
      const refused = await people(ws, { [key]: value });
      expect({ key, status: refused.status, paths: refused.body.issues.map((issue: { path: string }) => issue.path) }).toEqual({ key, status: 400, paths: [key] });
    }
  });
});

describe('a busy workspace', () => {
  /** Driver commands (`command collection`) the node sends while `work` runs. */
  async function traced<T>(work: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
    const commands: string[] = [];
    const result = await watchingCommands(node, (event) => commands.push(`${event.commandName} ${String(event.command[event.commandName])}`), work);
    return { result, commands };
  }

  test('500 conversations, 200 appointments, 500 submissions: the newest 50 of each, one query per key at most', async () => {
    const ws = await workspace();
    const wid = ws.id;
    const { db } = node.deps;
    const at = (n: number) => new Date(NOW.getTime() + n * 60_000);
    // Seeded through the stores (the HTTP paths are tested above); every 8th record is Ada's.
    const isAda = (n: number) => n % 8 === 0;
    const email = (n: number) => (isAda(n) ? (n % 16 === 0 ? 'ADA@example.com' : 'ada@example.com') : `visitor-${n}@example.com`);
    const batches = async (count: number, create: (n: number) => Promise<unknown>) => {
      for (let start = 0; start < count; start += 25) await Promise.all(Array.from({ length: Math.min(25, count - start) }, (_, i) => create(start + i)));
    };
    await batches(500, (n) => {
      const id = newConversationId();
      const identity = { externalId: isAda(n) ? 'person-ada' : `person-${n}`, name: null, email: email(n), attributes: null };
      const input = { id, tokenHash: sha256Hex(randomBytes(16).toString('hex')), sealedToken: 'sealed', visitorSessionId: `sess-${n}`, pageUrl: null, referrer: null, locale: null, identity };
      return conversationStore(db).create(wid, input, at(n));
    });
    await batches(200, (n) =>
      appointmentStore(db).create(
        wid,
        newAppointmentId(),
        {
          requestedAt: new Date(SLOT),
          durationMinutes: 60,
          timezone: 'UTC',
          visitorName: 'Visitor',
          visitorEmail: email(n),
          visitorPhone: null,
          visitorMessage: null,
          visitorSessionId: `sess-${n}`,
          externalId: null,
          identityVerified: false,
          visitorAttributes: null,
          createdAt: at(n),
        },
        sha256Hex(randomBytes(16).toString('hex')),
      ),
    );
    await batches(500, (n) => submissionStore(db).create(wid, { name: 'Visitor', email: email(n), message: 'Hello', createdAt: at(n) }));

    const started = performance.now();
    const { result: res, commands } = await traced(() => people(ws, { email: 'ada@example.com', externalId: 'person-ada', visitorSessionId: 'sess-3' }));
    const took = performance.now() - started;
    expect(res.status).toBe(200);
    // 63 conversations are Ada's and 1 has her session: the newest 50, newest first.
    const newestFirst = (items: { createdAt: string }[]) => items.map((item) => item.createdAt);
    expect(res.body.conversations).toHaveLength(50);
    expect(newestFirst(res.body.conversations)).toEqual([...newestFirst(res.body.conversations)].sort().reverse());
    expect(res.body.conversations[0]).toMatchObject({ createdAt: at(496).toISOString(), matchedBy: ['externalId', 'email'] });
    // 25 appointments are Ada's and 1 has her session; 63 submissions are hers.
    expect(res.body.appointments).toHaveLength(26);
    expect(res.body.appointments.at(-1)).toMatchObject({ createdAt: at(0).toISOString(), matchedBy: ['email'] });
    expect(res.body.appointments.find((item: { visitorSessionId: string }) => item.visitorSessionId === 'sess-3')).toMatchObject({ matchedBy: ['visitorSessionId'] });
    expect(res.body.submissions).toHaveLength(50);
    expect(res.body.submissions[0]).toMatchObject({ createdAt: at(496).toISOString(), email: 'ADA@example.com', matchedBy: ['email'] });
    expect(res.body.submissions[1]).toMatchObject({ createdAt: at(488).toISOString(), email: 'ada@example.com', matchedBy: ['email'] });

    const reads = (collection: string) => commands.filter((command) => command.endsWith(` ${collection}`));
    // One query per key where the engine hands equalities to its storage (FerretDB hands it no `$or`), else one.
    const perKey = engineTraits(node.deps.db).equalityPushdown ? 3 : 1;
    expect(reads('livechat_conversations')).toEqual(Array(perKey).fill('find livechat_conversations'));
    expect(reads('appointments')).toEqual(Array(perKey).fill('find appointments'));
    expect(reads('submissions')).toEqual(['find submissions']);
    // The conversations' unread counts are read off the conversations, as in the inbox: no query of the messages.
    expect(reads('livechat_messages')).toEqual([]);
    // Generous for a loaded two-core machine; it answers in tens of milliseconds when idle.
    expect(took).toBeLessThan(3_000);
  });
});
