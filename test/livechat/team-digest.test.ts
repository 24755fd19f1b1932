import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { startSmtp, type ReceivedMail } from '../email/smtp.js';
import { activateChat, createAgent, startChat } from './support.js';

// Issue 28 (3): one visitor must not make the server mail the whole team once per conversation. Ten
// conversations with one message each, from one widget session, used to send 30 mails to a team of three.
let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
/** Gathering: longer than the burst takes, so the ten messages meet in one digest. */
const DIGEST_DELAY_MS = 2_500;
const INTERVAL_MS = 12_000;

beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({
    env: {
      SMTP_URL: smtp.url,
      CHAT_EMAIL_INTERVAL_MINUTES: String(INTERVAL_MS / 60_000),
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
/** The text of a received mail, folded headers and quoted-printable undone. */
const textOf = (mail: ReceivedMail) =>
  mail.raw
    .replace(/\r?\n(?=[ \t])/g, '')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** `count` conversations of one widget session, each with one visitor message, the messages sent at once. */
async function burst(ws: WorkspaceFixture, key: string, count: number, label: string): Promise<string[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startChat(node.url, key, { visitorSessionId: 'one-session' })));
  const said = await Promise.all(
    started.map((start, i) =>
      request(node.url, `/external/live-chat/conversations/${start.body.conversationToken as string}/messages`, { body: { body: `${label} question ${i + 1}` } }),
    ),
  );
  expect(said.map((res) => res.status)).toEqual(said.map(() => 201));
  return started.map((start) => start.body.conversationId as string);
}

describe('the away digest', () => {
  test('ten conversations from one session while a team of three is away: one mail per member listing all ten; a second burst waits for the interval', async () => {
    const name = `Digest Bakery ${Date.now()}`;
    const ws = await createWorkspace(node.url, { name });
    const agents = await Promise.all([createAgent(node.url, ws), createAgent(node.url, ws)]);
    const team = [
      ...(await Promise.all(agents.map(async (token) => (await request(node.url, '/admin/me', { token })).body.email as string))),
      (await request(node.url, '/admin/me', { token: ws.token })).body.email as string,
    ];
    const key = await activateChat(node.url, ws, { forceOnline: null });
    const ofWorkspace = () => smtp.mails.filter((mail) => textOf(mail).includes(name));

    const first = await burst(ws, key, 10, 'first');
    const digests = await eventually(() => (ofWorkspace().length >= 3 ? ofWorkspace() : undefined), 15_000);
    const firstSentAt = Date.now();
    await sleep(1_000);
    expect(ofWorkspace()).toHaveLength(3);
    expect(digests.flatMap((mail) => mail.to).sort()).toEqual([...team].sort());
    for (const mail of digests) {
      const text = textOf(mail);
      expect(text).toContain(`New chat messages in 10 conversations while you were away (${name})`);
      for (const [i, cid] of first.entries()) {
        expect(text).toContain(`https://chat.example/console#/chats/${cid}`);
        expect(text).toContain(`first question ${i + 1}`);
      }
    }

    // A second burst inside the interval: nothing until the interval of the first digest has run out.
    const second = await burst(ws, key, 3, 'second');
    await sleep(DIGEST_DELAY_MS + 2_000);
    expect(Date.now() - firstSentAt).toBeLessThan(INTERVAL_MS);
    expect(ofWorkspace()).toHaveLength(3);

    const later = await eventually(() => (ofWorkspace().length >= 6 ? ofWorkspace().slice(3) : undefined), INTERVAL_MS + 10_000);
    expect(Date.now() - firstSentAt).toBeGreaterThanOrEqual(INTERVAL_MS - 1_000);
    await sleep(1_000);
    expect(ofWorkspace()).toHaveLength(6);
    expect(later.flatMap((mail) => mail.to).sort()).toEqual([...team].sort());
    for (const mail of later) {
      const text = textOf(mail);
      expect(text).toContain(`New chat messages in 3 conversations while you were away (${name})`);
      for (const cid of second) expect(text).toContain(`/console#/chats/${cid}`);
      // Listed once: the first burst's conversations were news in the first digest.
      for (const cid of first) expect(text).not.toContain(cid);
    }
    const outbox = (await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as unknown[];
    expect(outbox).toHaveLength(6);
  }, 60_000);
});
