import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import sharp from 'sharp';
import { createWorkspace, eventually, request, startTestNode, type ApiResponse, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { freePort } from '../../src/db/embedded-engine.js';
import type { MessageCreated } from '../../src/realtime/events.js';
import { htmlPage, jpegWithGpsAndOrientation, onNode, pdfOfSize, png } from '../media/media-files.js';
import { startReceiver } from '../webhooks/receiver.js';
import { startSmtp } from '../email/smtp.js';
import { activateChat, agentSocket, createAgent, record, startChat, widgetSocket } from './support.js';

/**
 * Chat attachments over HTTP and Socket.IO on the disk store: both directions, history and push, the
 * conversation scope of the URLs, the size bound (a small configured limit), hostile files, the flood
 * guard, webhooks and the reply mail.
 */
const LIMIT = 4096;
const clock = new ManualClock(new Date());
let node: HearthNode;
let dataDir: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-chat-files-'));
  receiver = await startReceiver();
  smtp = await startSmtp();
  node = await startTestNode({
    clock,
    env: {
      DATA_DIR: dataDir,
      CHAT_ATTACHMENT_MAX_BYTES: String(LIMIT),
      SMTP_URL: smtp.url,
      CHAT_REPLY_MAIL_DELAY_SECONDS: '0',
      WEBHOOK_RETRY_BASE_MS: '2',
    },
  });
});
afterAll(async () => {
  await node?.stop();
  await receiver?.stop();
  await smtp?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function chat(): Promise<{ ws: WorkspaceFixture; token: string; cid: string }> {
  const ws = await createWorkspace(node.url);
  const key = await activateChat(node.url, ws);
  const start = await startChat(node.url, key);
  return { ws, token: start.body.conversationToken, cid: start.body.conversationId };
}

async function send(path: string, bytes: Buffer, name: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'image/png' }), name);
  const response = await fetch(`${node.url}${path}`, { method: 'POST', headers, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

const visitorSends = (token: string, bytes: Buffer, name: string) => send(`/external/live-chat/conversations/${token}/attachments`, bytes, name);
const agentSends = (ws: WorkspaceFixture, cid: string, bytes: Buffer, name: string, token = ws.token) =>
  send(`/admin/workspaces/${ws.id}/conversations/${cid}/attachments`, bytes, name, { Authorization: `Bearer ${token}` });
const visitorPoll = (token: string) => request(node.url, `/external/live-chat/conversations/${token}/messages`);
const agentPoll = (ws: WorkspaceFixture, cid: string) => request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token });

async function fetchBytes(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

const storedChatFiles = (wid: string): string[] => {
  try {
    return readdirSync(join(dataDir, 'media', 'chat', wid), { recursive: true }).map(String);
  } catch {
    return [];
  }
};
const uploadDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('hearth-upload-'));

describe('both ways', () => {
  test('a visitor image: re-encoded without EXIF, in the team history and pushed to the consoles; its signed URL opens it', async () => {
    const { ws, token, cid } = await chat();
    const agent = await agentSocket(node.url, ws.token, ws.id);
    const pushed = record<MessageCreated>(agent, 'message.created');
    try {
      const sent = await visitorSends(token, await jpegWithGpsAndOrientation(), 'holiday.jpg');
      expect(sent.status).toBe(201);
      expect(sent.body).toEqual({
        id: expect.any(String),
        sender: 'VISITOR',
        body: '',
        createdAt: expect.any(String),
        attachments: [{ id: expect.stringMatching(/^[0-9a-f]{32}$/), name: 'holiday.jpg', contentType: 'image/jpeg', size: expect.any(Number), url: expect.any(String), width: 20, height: 40 }],
      });
      const [file] = sent.body.attachments;
      expect(file.url).toMatch(new RegExp(`/chat-files/${sent.body.id}/${file.id}/[0-9a-f]{32}/holiday\\.jpg$`));

      const history = await agentPoll(ws, cid);
      expect(history.body.messages).toEqual([sent.body]);
      // The inbox's last message names the file too.
      const listed = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}`, { token: ws.token });
      expect(listed.body.lastMessage).toEqual(sent.body);
      await eventually(() => pushed.length === 1);
      expect(pushed[0]).toEqual({ conversationId: cid, message: sent.body });

      const opened = await fetchBytes(onNode(node.url, file.url));
      expect(opened.status).toBe(200);
      expect(opened.headers.get('content-type')).toBe('image/jpeg');
      expect(opened.headers.get('x-content-type-options')).toBe('nosniff');
      expect(opened.bytes.length).toBe(file.size);
      expect((await sharp(opened.bytes).metadata()).exif).toBeUndefined();
      expect(opened.bytes.includes('secret-photographer')).toBe(false);

      // The credentialed routes: the visitor's token, the team's session.
      const byToken = await fetchBytes(`${node.url}/external/live-chat/conversations/${token}/messages/${sent.body.id}/attachments/${file.id}`);
      expect(byToken.status).toBe(200);
      expect(byToken.bytes.equals(opened.bytes)).toBe(true);
      const byTeam = await fetchBytes(`${node.url}/admin/workspaces/${ws.id}/conversations/${cid}/messages/${sent.body.id}/attachments/${file.id}`, { Authorization: `Bearer ${ws.token}` });
      expect(byTeam.status).toBe(200);
    } finally {
      agent.close();
    }
  });

  test('an agent PDF (an agent, not only owners): the visitor sees it in the poll and on the widget socket; a download', async () => {
    const { ws, token, cid } = await chat();
    const agentToken = await createAgent(node.url, ws);
    const widget = await widgetSocket(node.url, token);
    const pushed = record<MessageCreated>(widget, 'message.created');
    try {
      const pdf = pdfOfSize(1000);
      const sent = await agentSends(ws, cid, pdf, 'offer.pdf', agentToken);
      expect(sent.status).toBe(201);
      expect(sent.body.sender).toBe('AGENT');
      expect(sent.body.attachments).toEqual([{ id: expect.any(String), name: 'offer.pdf', contentType: 'application/pdf', size: 1000, url: expect.any(String) }]);
      const poll = await visitorPoll(token);
      expect(poll.body.messages).toEqual([sent.body]);
      await eventually(() => pushed.length === 1);
      expect(pushed[0]).toMatchObject({ conversationId: cid, message: sent.body, agentName: 'Agent Smith' });
      const opened = await fetchBytes(onNode(node.url, sent.body.attachments[0].url));
      expect(opened.status).toBe(200);
      expect(opened.bytes.equals(pdf)).toBe(true);
      expect(opened.headers.get('content-disposition')).toContain('attachment');
    } finally {
      widget.close();
    }
  });

  test('text messages are unchanged: no attachments field anywhere', async () => {
    const { ws, token, cid } = await chat();
    const text = await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: 'hi' } });
    expect(Object.keys(text.body).sort()).toEqual(['body', 'createdAt', 'id', 'sender']);
    expect(Object.keys((await agentPoll(ws, cid)).body.messages[0]).sort()).toEqual(['body', 'createdAt', 'id', 'sender']);
    const listed = await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}`, { token: ws.token });
    expect(Object.keys(listed.body.lastMessage).sort()).toEqual(['body', 'createdAt', 'id', 'sender']);
  });
});

describe('scope', () => {
  test("another conversation's token, another workspace's team and a wrong signature answer 404", async () => {
    const a = await chat();
    const b = await chat();
    const sent = await visitorSends(a.token, await png(), 'a.png');
    const { id: aid, url } = sent.body.attachments[0];
    const mid = sent.body.id;
    const other = await fetchBytes(`${node.url}/external/live-chat/conversations/${b.token}/messages/${mid}/attachments/${aid}`);
    expect(other.status).toBe(404);
    const otherTeam = await fetchBytes(`${node.url}/admin/workspaces/${b.ws.id}/conversations/${a.cid}/messages/${mid}/attachments/${aid}`, { Authorization: `Bearer ${b.ws.token}` });
    expect(otherTeam.status).toBe(404);
    const wrongConversation = await fetchBytes(`${node.url}/admin/workspaces/${b.ws.id}/conversations/${b.cid}/messages/${mid}/attachments/${aid}`, { Authorization: `Bearer ${b.ws.token}` });
    expect(wrongConversation.status).toBe(404);
    const forged = onNode(node.url, url).replace(/\/[0-9a-f]{32}\/a\.png$/, `/${'0'.repeat(32)}/a.png`);
    expect((await fetchBytes(forged)).status).toBe(404);
    expect((await fetchBytes(`${node.url}/chat-files/${mid}/${'f'.repeat(32)}/${'0'.repeat(32)}/a.png`)).status).toBe(404);
    expect((await fetchBytes(onNode(node.url, url))).status).toBe(200);
  });
});

describe('bounds and hostile files', () => {
  test('exactly the limit passes; one byte more is 413 and nothing is kept', async () => {
    const { ws, token } = await chat();
    const temporary = new Set(uploadDirs());
    expect((await visitorSends(token, pdfOfSize(LIMIT), 'exact.pdf')).status).toBe(201);
    const before = storedChatFiles(ws.id).length;
    expect(before).toBeGreaterThan(0);
    const tooBig = await visitorSends(token, pdfOfSize(LIMIT + 1), 'big.pdf');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('payload_too_large');
    expect(storedChatFiles(ws.id).length).toBe(before);
    expect((await visitorPoll(token)).body.messages).toHaveLength(1);
    await eventually(() => uploadDirs().every((dir) => temporary.has(dir)));
  });

  test('an upload the visitor drops midway leaves nothing behind (no message, no stored file, no temporary file)', async () => {
    const { ws, token } = await chat();
    const before = new Set(uploadDirs());
    const boundary = 'hearthboundary';
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${node.url}/external/live-chat/conversations/${token}/attachments`, {
        method: 'POST',
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': '4000' },
      });
      req.on('error', () => resolve());
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n${'a'.repeat(1000)}`);
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
    await eventually(() => uploadDirs().every((dir) => before.has(dir)));
    expect(storedChatFiles(ws.id)).toEqual([]);
    expect((await visitorPoll(token)).body.messages).toEqual([]);
  });

  test('an HTML page named .png is 415; a corrupt image is 400; neither leaves a message or a file', async () => {
    const { ws, token, cid } = await chat();
    const lie = await visitorSends(token, htmlPage, 'cat.png');
    expect(lie.status).toBe(415);
    expect(lie.body.code).toBe('unsupported_media_type');
    const whole = await png(64, 64);
    const corrupt = await agentSends(ws, cid, whole.subarray(0, whole.length - 40), 'broken.png');
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.code).toBe('corrupt_media');
    expect(storedChatFiles(ws.id)).toEqual([]);
    expect((await visitorPoll(token)).body.messages).toEqual([]);
  });

  test('no file part is 400; an unknown token 404; a closed conversation 409', async () => {
    const { ws, token, cid } = await chat();
    const form = new FormData();
    form.append('other', 'x');
    const empty = await fetch(`${node.url}/external/live-chat/conversations/${token}/attachments`, { method: 'POST', body: form });
    expect(empty.status).toBe(400);
    expect((await visitorSends('ct_unknown', await png(), 'a.png')).status).toBe(404);
    await request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/close`, { method: 'POST', token: ws.token });
    const closed = await visitorSends(token, await png(), 'a.png');
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe('conversation_closed');
  });

  test('the flood guard counts files: 19 texts and a file fill the minute; the next file and the next text are 409', async () => {
    const { token } = await chat();
    for (let i = 1; i <= 19; i += 1) expect((await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: `m${i}` } })).status).toBe(201);
    expect((await visitorSends(token, await png(), 'twentieth.png')).status).toBe(201);
    const file = await visitorSends(token, await png(), 'one-too-many.png');
    expect(file.status).toBe(409);
    expect(file.body.code).toBe('flood_limited');
    const text = await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: 'm21' } });
    expect(text.status).toBe(409);
  });
});

test('a store that is down: 503 with Retry-After, and no message names the file', async () => {
  const port = await freePort();
  const down = await startTestNode({
    env: { S3_BUCKET: 'chat-files', S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_ACCESS_KEY_ID: 'nobody', S3_SECRET_ACCESS_KEY: 'nothing-at-all' },
  });
  try {
    const ws = await createWorkspace(down.url);
    const key = await activateChat(down.url, ws);
    const token = (await startChat(down.url, key)).body.conversationToken as string;
    const form = new FormData();
    form.append('file', new Blob([await png()], { type: 'image/png' }), 'down.png');
    const res = await fetch(`${down.url}/external/live-chat/conversations/${token}/attachments`, { method: 'POST', body: form });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('storage_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await request(down.url, `/external/live-chat/conversations/${token}/messages`)).body.messages).toEqual([]);
  } finally {
    await down.stop();
  }
}, 60_000);

describe('webhooks and mails', () => {
  test('message.created carries the attachments', async () => {
    const { ws, token } = await chat();
    const path = '/chat-files-hook';
    const hook = await request(node.url, `/admin/workspaces/${ws.id}/webhook-endpoints`, { token: ws.token, body: { url: `http://127.0.0.1:${receiver.port}${path}`, events: ['message.created'] } });
    expect(hook.status).toBe(201);
    const sent = await visitorSends(token, await png(), 'screen.png');
    const delivery = await eventually(() => receiver.on(path)[0], 10_000);
    expect(delivery.body.type).toBe('message.created');
    expect(delivery.body.data).toEqual({ conversationId: expect.any(String), messageId: sent.body.id, sender: 'VISITOR', body: '', createdAt: sent.body.createdAt, attachments: sent.body.attachments });
  });

  test("the reply mail to an absent visitor links the team's file", async () => {
    const { ws, token, cid } = await chat();
    const email = `visitor-${Date.now()}@example.com`;
    await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: 'mail me', visitorEmail: email } });
    const sent = await agentSends(ws, cid, pdfOfSize(800), 'terms.pdf');
    expect(sent.status).toBe(201);
    const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const mail = await eventually(() => smtp.mails.find((m) => m.to.includes(email)), 15_000);
    expect(unfold(mail.raw)).toContain(`terms.pdf: ${sent.body.attachments[0].url}`);
  });
});
