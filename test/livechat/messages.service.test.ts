import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { failure, newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { OPERATOR } from '../support/harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { findUserByEmail } from '../../src/auth/auth.service.js';
import { agentMessages, postAgentMessage, postVisitorMessage, visitorMessages } from '../../src/livechat/messages.service.js';
import { closeConversation, getConversation, listConversations } from '../../src/livechat/inbox.service.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { identityFor } from './support.js';
import { activateChatService, startChatService } from './service-support.js';

// Message rules: fill-only visitor fields, the flood guard window, closed conversations, the after-cursor,
// plain-text bodies and read marks. A frozen clock: every message is "sent in the same millisecond"
// unless the test advances it.
const clock = new ManualClock(new Date());
let services: ServiceHarness;
let agentId: string;
beforeAll(async () => {
  services = await startServices({ clock });
  agentId = (await findUserByEmail(services.deps, OPERATOR.email))!.id;
});
afterAll(async () => {
  await services.close();
});

async function chat(visitor?: unknown): Promise<{ ws: Workspace; apiKey: string; token: string; cid: string }> {
  const { workspace: ws, apiKey } = await newWorkspace(services.deps);
  await activateChatService(services.deps, ws);
  const started = await startChatService(services.deps, ws, visitor ? { visitor } : {});
  return { ws, apiKey, token: started.conversationToken, cid: started.conversationId };
}

const post = (token: string, body: string, fields: { visitorName?: string; visitorEmail?: string } = {}) => postVisitorMessage(services.deps, token, { body, ...fields });
const reply = (ws: Workspace, cid: string, body: string) => postAgentMessage(services.deps, ws.id, cid, agentId, body);
const poll = (token: string, after?: string) => visitorMessages(services.deps, token, after);
const visitorOf = async (ws: Workspace, cid: string) => (await getConversation(services.deps, ws.id, cid)).visitor;

describe('visitor messages', () => {
  test('stores a VISITOR message; an empty or blank body is a body issue; an unknown token is conversation_not_found', async () => {
    const { token } = await chat();
    const ok = await post(token, 'x'.repeat(2000));
    expect(ok).toMatchObject({ sender: 'VISITOR', body: 'x'.repeat(2000) });
    for (const body of ['', '   ']) {
      expect((await failure(post(token, body), 'validation_failed')).issues?.[0].path).toBe('body');
    }
    await failure(post('ct_unknown', 'hi'), 'conversation_not_found');
    await failure(poll('ct_unknown'), 'conversation_not_found');
  });

  test('visitorName and visitorEmail only fill unknown values', async () => {
    const { ws, token, cid } = await chat();
    await post(token, 'a', { visitorName: 'First Name' });
    await post(token, 'b', { visitorName: 'Other', visitorEmail: 'first@x.io' });
    await post(token, 'c', { visitorEmail: 'second@x.io' });
    expect(await visitorOf(ws, cid)).toMatchObject({ name: 'First Name', email: 'first@x.io' });

    // A verified identity's name is never overwritten; an unknown e-mail is still filled.
    const { workspace, apiKey } = await newWorkspace(services.deps);
    await activateChatService(services.deps, workspace);
    const verified = await startChatService(services.deps, workspace, { visitor: identityFor(apiKey, 'p-1', { name: 'Verified Vera' }) });
    await post(verified.conversationToken, 'hi', { visitorName: 'Mallory', visitorEmail: 'vera@x.io' });
    expect(await visitorOf(workspace, verified.conversationId)).toMatchObject({ name: 'Verified Vera', email: 'vera@x.io' });
  });

  test('flood guard: the 21st message within a minute is flood_limited; the next window accepts again', async () => {
    const { token } = await chat();
    for (let i = 1; i <= 20; i += 1) expect((await post(token, `m${i}`)).body).toBe(`m${i}`);
    await failure(post(token, 'm21'), 'flood_limited');
    clock.advance(60_000);
    expect((await post(token, 'later')).body).toBe('later');
    // Another conversation has its own budget.
    const other = await chat();
    expect((await post(other.token, 'hi')).body).toBe('hi');
  });

  test('flood guard: no sixty seconds ever hold more than 20, wherever a minute is cut; a refused post says when to retry', async () => {
    const { token } = await chat();
    // One message a second for 20 seconds (t = 0 .. 19 s), then more at once.
    for (let i = 1; i <= 20; i += 1) {
      expect((await post(token, `m${i}`)).body).toBe(`m${i}`);
      clock.advance(1_000);
    }
    clock.advance(39_999); // t = 59.999 s: the first message is still within the minute.
    const refused = await failure(post(token, 'too soon'), 'flood_limited');
    expect(refused.retryAfterSeconds).toBe(1);
    clock.advance(1); // t = 60 s: the first leaves the minute, and only it.
    expect((await post(token, 'one slot')).body).toBe('one slot');
    await failure(post(token, 'still full'), 'flood_limited');
    clock.advance(1_000); // t = 61 s: the second leaves too.
    expect((await post(token, 'another slot')).body).toBe('another slot');
    // A refused post is not recorded: it does not hold a slot.
    clock.advance(18_000);
    for (let i = 0; i < 18; i += 1) expect((await post(token, `late ${i}`)).body).toBe(`late ${i}`);
  });

  test('closed by the team: visitor posts and team replies are conversation_closed; the poll shows CLOSED', async () => {
    const { ws, token, cid } = await chat();
    await post(token, 'before');
    expect((await closeConversation(services.deps, ws.id, cid)).status).toBe('CLOSED');
    await failure(post(token, 'after'), 'conversation_closed');
    await failure(reply(ws, cid, 'too late'), 'conversation_closed');
    const polled = await poll(token);
    expect(polled.status).toBe('CLOSED');
    expect(polled.messages.map((m) => m.body)).toEqual(['before']);
  });

  test('three closes at once close it once: one conversation.closed event, all three answer CLOSED', async () => {
    const { ws, cid } = await chat();
    const closedEvents: string[] = [];
    const unsubscribe = services.deps.events.subscribe(async (event) => {
      if (event.event === 'conversation.closed' && (event as { data?: { conversationId?: string } }).data?.conversationId === cid) closedEvents.push(event.event);
    });
    try {
      const answers = await Promise.all([0, 1, 2].map(() => closeConversation(services.deps, ws.id, cid)));
      expect(answers.map((answer) => answer.status)).toEqual(['CLOSED', 'CLOSED', 'CLOSED']);
      expect(closedEvents).toEqual(['conversation.closed']);
    } finally {
      unsubscribe();
    }
  });
});

describe('reading', () => {
  test('after returns only newer messages, oldest first, both senders; same-millisecond messages each exactly once', async () => {
    clock.advance(1_000);
    const { ws, token, cid } = await chat();
    // The clock does not move: all of these are sent "in the same millisecond".
    const v1 = await post(token, 'v1');
    const a1 = await reply(ws, cid, 'a1');
    const v2 = await post(token, 'v2');
    expect(a1.sender).toBe('AGENT');
    const stamps = [v1, a1, v2].map((message) => message.createdAt);
    expect(new Set(stamps).size).toBe(3);
    expect([...stamps].sort()).toEqual(stamps);

    expect(await poll(token)).toEqual({ status: 'OPEN', messages: [v1, a1, v2] });
    expect((await poll(token, v1.createdAt)).messages.map((m) => m.body)).toEqual(['a1', 'v2']);
    expect((await poll(token, v2.createdAt)).messages).toEqual([]);
    // Offsets are accepted.
    expect((await poll(token, v1.createdAt.replace('Z', '+00:00'))).messages).toHaveLength(2);
  });

  test('bodies are text, kept character for character (decisions.md): markup-looking text is not stripped', async () => {
    const { ws, token, cid } = await chat();
    const visitorBody = '<b>fresh</b> bread & <script>alert(1)</script>rolls a<b and c>d';
    const agentBody = '<a href="javascript:x">click</a> &lt;i&gt;no&lt;/i&gt;';
    expect((await post(token, visitorBody)).body).toBe(visitorBody);
    expect((await reply(ws, cid, agentBody)).body).toBe(agentBody);
    expect((await poll(token)).messages.map((message) => message.body)).toEqual([visitorBody, agentBody]);
  });

  test("fetching marks the team's messages read; the team's fetch clears the unread count", async () => {
    const { ws, token, cid } = await chat();
    await post(token, 'one');
    await post(token, 'two');
    const list = await listConversations(services.deps, ws.id, { status: 'OPEN', page: 1, limit: 50 });
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ id: cid, unreadCount: 2, lastMessage: { body: 'two', sender: 'VISITOR' } });

    expect((await agentMessages(services.deps, ws.id, cid, undefined)).messages.map((m) => m.body)).toEqual(['one', 'two']);
    expect((await getConversation(services.deps, ws.id, cid)).unreadCount).toBe(0);

    await reply(ws, cid, 'answer');
    const messages = services.deps.db.collection('livechat_messages');
    const unreadAgent = () => messages.countDocuments({ conversationId: new Types.ObjectId(cid), sender: 'AGENT', readAt: null });
    expect(await unreadAgent()).toBe(1);
    await poll(token);
    expect(await unreadAgent()).toBe(0);
  });
});

test('inbox: newest activity first, status filter, identity; another workspace cannot reach the conversation', async () => {
  const { ws, apiKey, token: t1, cid: c1 } = await chat();
  const second = await startChatService(services.deps, ws, { visitor: identityFor(apiKey, 'vip', { name: 'Vip' }) });
  clock.advance(10);
  await post(t1, 'newer activity');
  const list = await listConversations(services.deps, ws.id, { page: 1, limit: 50 });
  expect(list.items.map((c) => c.id)).toEqual([c1, second.conversationId]);
  expect(list.items[1]).toMatchObject({ visitor: { verified: true, externalId: 'vip', name: 'Vip' }, unreadCount: 0, lastMessage: null });
  expect(list.pageInfo).toMatchObject({ page: 1, total: 2, hasNext: false });

  await closeConversation(services.deps, ws.id, c1);
  expect((await listConversations(services.deps, ws.id, { status: 'CLOSED', page: 1, limit: 50 })).items.map((c) => c.id)).toEqual([c1]);

  const other = (await newWorkspace(services.deps)).workspace;
  await failure(getConversation(services.deps, other.id, c1), 'conversation_not_found');
  await failure(reply(other, c1, 'x'), 'conversation_not_found');
  await failure(getConversation(services.deps, ws.id, 'not-an-id'), 'conversation_not_found');
});

describe('appending from two nodes', () => {
  // Node A's clock only moves while `stallMs` is set: each reading then comes that much later, as when a
  // loaded engine takes seconds over every command.
  let stallMs = 0;
  let slowNow = Date.now();
  const slowClock = { now: () => new Date((slowNow += stallMs)) };
  let nodeA: ServiceHarness;
  let nodeB: ServiceHarness;
  beforeAll(async () => {
    nodeA = await startServices({ clock: slowClock, dbName: services.deps.db.name });
    nodeB = await startServices({ clock, dbName: services.deps.db.name });
  });
  afterAll(async () => {
    await Promise.all([nodeA?.close(), nodeB?.close()]);
  });

  test('an append that loses one race to another node after a slow engine took seconds is stored, not refused as busy', async () => {
    const { workspace: ws } = await newWorkspace(nodeA.deps);
    await activateChatService(nodeA.deps, ws);
    const { conversationToken: token, conversationId: cid } = await startChatService(nodeA.deps, ws);
    await postVisitorMessage(nodeA.deps, token, { body: 'one' });
    // Node B appends after it: node A's hint of the newest message is now stale, so its next insert loses.
    await postAgentMessage(nodeB.deps, ws.id, cid, agentId, 'two');
    stallMs = 3_000;
    try {
      expect((await postVisitorMessage(nodeA.deps, token, { body: 'three' })).body).toBe('three');
    } finally {
      stallMs = 0;
    }
    expect((await visitorMessages(nodeB.deps, token, undefined)).messages.map((message) => message.body)).toEqual(['one', 'two', 'three']);
  });
});
