import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { startSmtp, type ReceivedMail } from '../email/smtp.js';
import { activateChat, agentSocket, createAgent, startChat, widgetSocket } from './support.js';

let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const DELAY_MS = 600;
/** The digest's gathering: long enough for a test to act (connect, read) before it goes. */
const DIGEST_DELAY_MS = 2_000;

beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({
    env: {
      SMTP_URL: smtp.url,
      CHAT_EMAIL_INTERVAL_MINUTES: '10',
      CHAT_REPLY_MAIL_DELAY_SECONDS: String(DELAY_MS / 1000),
      CHAT_TEAM_DIGEST_DELAY_SECONDS: String(DIGEST_DELAY_MS / 1000),
      PUBLIC_URL: 'https://chat.example',
    },
  });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The text of a received mail, quoted-printable undone. */
const textOf = (mail: ReceivedMail) =>
  mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const mailsTo = (address: string) => smtp.mails.filter((mail) => mail.to.includes(address));

async function chat(ws: WorkspaceFixture, extra: Record<string, unknown> = {}) {
  const key = await activateChat(node.url, ws, { forceOnline: null });
  const start = await startChat(node.url, key, { pageUrl: 'https://shop.example/pricing', ...extra });
  return { token: start.body.conversationToken as string, cid: start.body.conversationId as string };
}

const visitorSays = (token: string, body: Record<string, unknown>) => request(node.url, `/external/live-chat/conversations/${token}/messages`, { body });
const agentSays = (ws: WorkspaceFixture, cid: string, body: string) =>
  request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body } });

describe('offline e-mail continuity', () => {
  test('a visitor message while nobody is online mails each member one digest per interval, linking the conversation', async () => {
    const ws = await createWorkspace(node.url);
    const agentToken = await createAgent(node.url, ws);
    const agentAddress = (await request(node.url, '/admin/me', { token: agentToken })).body.email as string;
    const { token, cid } = await chat(ws);
    const email = `visitor-${Date.now()}@example.org`;
    expect((await visitorSays(token, { body: 'Is anyone there? <b>urgent</b>', visitorEmail: email, visitorName: 'Vera' })).status).toBe(201);
    const outbox = () => request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token });
    const queued = await eventually(async () => {
      const items = (await outbox()).body.items as { to: string; subject: string; state: string }[];
      return items.length >= 2 && items.every((item) => item.state === 'sent') ? items : undefined;
    }, 10_000);
    expect(queued.every((item) => item.subject.includes('New chat message while you were away'))).toBe(true);
    expect(new Set(queued.map((item) => item.to)).size).toBe(queued.length);
    expect(queued.map((item) => item.to)).toContain(agentAddress);
    const one = smtp.mails.find((mail) => mail.to.includes(queued[0].to) && textOf(mail).includes('Is anyone there?'))!;
    expect(textOf(one)).toContain(`https://chat.example/console#/chats/${cid}`);
    expect(textOf(one)).toContain(`Vera <${email}> (1 new message)`);
    expect(textOf(one)).toContain('&lt;b&gt;urgent&lt;/b&gt;');

    // Inside the interval (10 minutes here) the digest does not go again.
    await visitorSays(token, { body: 'hello again' });
    await sleep(DIGEST_DELAY_MS + 1_500);
    expect((await outbox()).body.items).toHaveLength(queued.length);
  });

  test('no team mail while an agent is online', async () => {
    const ws = await createWorkspace(node.url);
    const { token } = await chat(ws);
    const agent = await agentSocket(node.url, ws.token, ws.id);
    try {
      await visitorSays(token, { body: 'someone is here' });
      await sleep(1_500);
      expect((await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items).toEqual([]);
    } finally {
      agent.close();
    }
  });

  test('a member who comes online, or reads the messages, before the digest goes cancels what it would have told', async () => {
    const ws = await createWorkspace(node.url);
    const outbox = async () => (await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as unknown[];
    const first = await chat(ws);
    await visitorSays(first.token, { body: 'anyone?' });
    const agent = await agentSocket(node.url, ws.token, ws.id);
    try {
      await sleep(DIGEST_DELAY_MS + 1_500);
      expect(await outbox()).toEqual([]);
    } finally {
      agent.close();
    }
    // Away again: a new message is news, the one seen online is not; a message the team has read is not either.
    const second = await chat(ws);
    const third = await chat(ws);
    await visitorSays(second.token, { body: 'second conversation' });
    await visitorSays(third.token, { body: 'third conversation, read at once' });
    await request(node.url, `/admin/workspaces/${ws.id}/conversations/${third.cid}/messages`, { token: ws.token });
    const mail = await eventually(() => smtp.mails.find((m) => textOf(m).includes(second.cid)), 10_000);
    await sleep(500);
    expect(await outbox()).toHaveLength(1);
    expect(textOf(mail)).toContain('second conversation');
    expect(textOf(mail)).not.toContain(first.cid);
    expect(textOf(mail)).not.toContain(third.cid);
  });

  test('replies to an absent visitor are batched into one mail per interval, in their language, with a link back', async () => {
    const ws = await createWorkspace(node.url);
    const { token, cid } = await chat(ws, { locale: 'de-DE' });
    const email = `absent-${Date.now()}@example.org`;
    await visitorSays(token, { body: 'Bitte per E-Mail antworten', visitorEmail: email });
    await agentSays(ws, cid, 'First answer');
    await agentSays(ws, cid, 'Second answer');
    const [mail] = await eventually(() => (mailsTo(email).length ? mailsTo(email) : undefined), 10_000);
    await sleep(DELAY_MS + 1_000);
    expect(mailsTo(email)).toHaveLength(1);
    const text = textOf(mail);
    expect(text).toContain('First answer');
    expect(text).toContain('Second answer');
    expect(text).toContain('https://shop.example/pricing');
    expect(text).toContain('Gespr');
    const outbox = (await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as { to: string; subject: string }[];
    expect(outbox.find((item) => item.to === email)?.subject).toMatch(/^Neue Antwort von /);

    // Within the interval a further reply is not mailed.
    await agentSays(ws, cid, 'Third answer');
    await sleep(DELAY_MS + 1_500);
    expect(mailsTo(email)).toHaveLength(1);
  });

  test('a connected visitor, or one without an e-mail, gets no reply mail', async () => {
    const ws = await createWorkspace(node.url);
    const present = await chat(ws);
    const email = `present-${Date.now()}@example.org`;
    await visitorSays(present.token, { body: 'I am here', visitorEmail: email });
    const socket = await widgetSocket(node.url, present.token);
    const anonymous = await chat(ws);
    await visitorSays(anonymous.token, { body: 'no address' });
    try {
      await agentSays(ws, present.cid, 'live answer');
      await agentSays(ws, anonymous.cid, 'answer to nobody');
      await sleep(DELAY_MS + 1_500);
      expect(mailsTo(email)).toEqual([]);
      const outbox = (await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as { subject: string }[];
      expect(outbox.filter((item) => item.subject.includes('reply'))).toEqual([]);
    } finally {
      socket.close();
    }
  });
});
