import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { createWorkspace, eventually, OPERATOR, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { agentSocket, createAgent, record } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import type { SubmissionCreated } from '../../src/realtime/events.js';
import { ManualClock } from '../../src/shared/clock.js';
import { startSmtp } from '../email/smtp.js';

let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const clock = new ManualClock(new Date('2025-06-01T12:00:00Z'));
beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({ clock, env: { PUBLIC_URL: 'https://team.example.com/', SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100' } });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

/** The text of the first mail SMTP received whose subject is this one. */
async function receivedText(subject: string): Promise<string> {
  const mail = await eventually(async () => {
    for (const received of smtp.mails) {
      const parsed = await simpleParser(received.raw);
      if (parsed.subject === subject) return { to: received.to, text: parsed.text ?? '' };
    }
    return undefined;
  });
  return `${mail.to.join(',')}\n${mail.text}`;
}

const valid = { name: 'Ada', email: 'ada@example.com', message: 'Do you bake rye bread?' };
const submit = async (ws: WorkspaceFixture, body: Record<string, unknown> = {}) => {
  const res = await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { ...valid, ...body } });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const admin = (ws: WorkspaceFixture, path: string, options: { method?: string; body?: unknown; token?: string } = {}) =>
  request(node.url, `/admin/workspaces/${ws.id}${path}`, { token: ws.token, ...options });
const outbox = async (ws: WorkspaceFixture) => (await admin(ws, '/emails')).body.items as { to: string; subject: string }[];

test('the inbox filters by state and finds by name, e-mail or subject, taking the search text literally', async () => {
  const ws = await createWorkspace(node.url);
  const first = await submit(ws, { name: 'Grace (a.k.a. G*)', subject: 'Catering' });
  const second = await submit(ws, { email: 'bob@bakery.test' });
  await submit(ws, { subject: 'Wedding cake' });
  expect((await admin(ws, `/submissions/${second}`, { method: 'PATCH', body: { handled: true } })).status).toBe(200);

  const ids = async (query: string) => ((await admin(ws, `/submissions?${query}`)).body.items as { id: string }[]).map((s) => s.id);
  expect(await ids('state=handled')).toEqual([second]);
  expect(await ids('state=open')).not.toContain(second);
  expect(await ids('state=open')).toHaveLength(2);
  expect(await ids(`q=${encodeURIComponent('(a.k.a. G*)')}`)).toEqual([first]);
  expect(await ids('q=BAKERY.TEST')).toEqual([second]);
  expect(await ids('q=wedding')).toHaveLength(1);
  expect(await ids('q=.*')).toEqual([]);

  const bad = await admin(ws, '/submissions?state=done');
  expect(bad.status).toBe(400);
  expect(bad.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['state']);
  expect((await admin(ws, `/submissions?q=${'x'.repeat(200)}`)).status).toBe(200);
  expect((await admin(ws, `/submissions?q=${'x'.repeat(201)}`)).status).toBe(400);
});

test('marking handled records who and when, and can be undone; another workspace sees 404', async () => {
  const ws = await createWorkspace(node.url);
  const other = await createWorkspace(node.url);
  const id = await submit(ws);
  const before = await admin(ws, `/submissions/${id}`);
  expect(before.body).toMatchObject({ id, handledAt: null, handledBy: null, replies: [] });

  const handled = await admin(ws, `/submissions/${id}`, { method: 'PATCH', body: { handled: true } });
  expect(handled.status).toBe(200);
  expect(handled.body).toMatchObject({ handledAt: clock.now().toISOString(), handledBy: { userId: expect.any(String), name: expect.any(String) } });
  const reopened = await admin(ws, `/submissions/${id}`, { method: 'PATCH', body: { handled: false } });
  expect(reopened.body).toMatchObject({ handledAt: null, handledBy: null });

  expect((await admin(ws, `/submissions/${id}`, { method: 'PATCH', body: { handled: 'yes' } })).status).toBe(400);
  expect((await admin(ws, `/submissions/${id}`, { method: 'PATCH', body: { handled: true, name: 'x' } })).status).toBe(400);
  for (const [method, path, body] of [
    ['GET', `/submissions/${id}`, undefined],
    ['PATCH', `/submissions/${id}`, { handled: true }],
    ['POST', `/submissions/${id}/replies`, { body: 'Hi' }],
  ] as const) {
    const res = await request(node.url, `/admin/workspaces/${other.id}${path}`, { method, body, token: other.token });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('submission_not_found');
  }
  expect((await admin(ws, '/submissions/not-an-id')).status).toBe(404);
});

test('a reply is mailed to the sender, kept with the submission and marks it handled; its body is bounded', async () => {
  const ws = await createWorkspace(node.url);
  const id = await submit(ws, { subject: 'Rye bread' });
  const reply = await admin(ws, `/submissions/${id}/replies`, { method: 'POST', body: { body: 'Yes, every Friday.' } });
  expect(reply.status).toBe(201);
  expect(reply.body).toMatchObject({ submissionId: id, body: 'Yes, every Friday.', to: valid.email, author: { userId: expect.any(String) } });

  const shown = await admin(ws, `/submissions/${id}`);
  expect(shown.body.replies).toEqual([reply.body]);
  expect(shown.body.handledAt).toBe(clock.now().toISOString());
  const mailed = await receivedText('Re: Rye bread');
  expect(mailed).toContain(valid.email);
  expect(mailed).toContain('Yes, every Friday.');
  expect(mailed).toContain('Do you bake rye bread?');

  expect((await admin(ws, `/submissions/${id}/replies`, { method: 'POST', body: { body: 'x'.repeat(10_000) } })).status).toBe(201);
  for (const body of ['x'.repeat(10_001), '   ', '']) {
    const res = await admin(ws, `/submissions/${id}/replies`, { method: 'POST', body: { body } });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['body']);
  }
});

test('two members answering at once both keep their reply', async () => {
  const ws = await createWorkspace(node.url);
  const agent = await createAgent(node.url, ws);
  const id = await submit(ws);
  const bodies = Array.from({ length: 6 }, (_, i) => `Answer ${i}`);
  const answers = await Promise.all(
    bodies.map((body, i) => admin(ws, `/submissions/${id}/replies`, { method: 'POST', body: { body }, token: i % 2 ? agent : ws.token })),
  );
  expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 201));
  const shown = await admin(ws, `/submissions/${id}`);
  expect((shown.body.replies as { body: string }[]).map((r) => r.body).sort()).toEqual(bodies);
});

test('the team gets a "new submission" mail linking to it in the app; the address and the switch are the owner’s', async () => {
  const ws = await createWorkspace(node.url, { name: 'Bakery' });
  const agent = await createAgent(node.url, ws);
  expect((await admin(ws, '/submission-settings')).body).toEqual({ notifyTeam: true, notificationEmail: null });

  const first = await submit(ws, { subject: 'Catering' });
  const received = await receivedText('New contact form submission (Bakery): Catering');
  expect(received).toContain(OPERATOR.email);
  expect(received).toContain(`https://team.example.com/console#/submissions/${first}`);

  const forbidden = await admin(ws, '/submission-settings', { method: 'PUT', body: { notifyTeam: false, notificationEmail: null }, token: agent });
  expect(forbidden.status).toBe(403);
  const invalid = await admin(ws, '/submission-settings', { method: 'PUT', body: { notifyTeam: true, notificationEmail: 'not-an-address' } });
  expect(invalid.status).toBe(400);
  expect(invalid.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['notificationEmail']);

  const routed = await admin(ws, '/submission-settings', { method: 'PUT', body: { notifyTeam: true, notificationEmail: 'shop@bakery.test' } });
  expect(routed.body).toEqual({ notifyTeam: true, notificationEmail: 'shop@bakery.test' });
  await submit(ws, { subject: 'Second' });
  const second = (await outbox(ws)).filter((m) => m.subject.endsWith(': Second'));
  expect(second.map((m) => m.to)).toEqual(['shop@bakery.test']);

  await admin(ws, '/submission-settings', { method: 'PUT', body: { notifyTeam: false, notificationEmail: 'shop@bakery.test' } });
  await submit(ws, { subject: 'Third' });
  expect((await outbox(ws)).filter((m) => m.subject.endsWith(': Third'))).toEqual([]);
});

test('a new submission reaches the open consoles of its workspace only, live', async () => {
  const ws = await createWorkspace(node.url);
  const other = await createWorkspace(node.url);
  const mine = await agentSocket(node.url, ws.token, ws.id);
  const theirs = await agentSocket(node.url, other.token, other.id);
  try {
    const seen = record<SubmissionCreated>(mine, 'submission.created');
    const leaked = record<SubmissionCreated>(theirs, 'submission.created');
    const id = await submit(ws, { subject: 'Live' });
    await eventually(() => seen.length === 1);
    expect(seen[0]).toEqual({ submissionId: id, name: valid.name, subject: 'Live', createdAt: clock.now().toISOString() });
    await submit(ws);
    await eventually(() => seen.length === 2);
    expect(leaked).toEqual([]);
  } finally {
    mine.close();
    theirs.close();
  }
});
