import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { startSmtp } from '../email/smtp.js';
import { createUser, issuePaths, linkToken, memberWith, PASSWORD } from './support.js';

const LOGIN_MAX_FAILURES = 3;
const clock = new ManualClock(new Date('2025-06-01T12:00:00Z'));
let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({
    clock,
    env: { PUBLIC_URL: 'https://team.example.com/', SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100', LOGIN_MAX_FAILURES: String(LOGIN_MAX_FAILURES) },
  });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

const newAddress = () => `invitee-${randomBytes(5).toString('hex')}@example.com`;
const invite = (ws: WorkspaceFixture, email: string, role = 'agent', token = ws.token) =>
  request(node.url, `/admin/workspaces/${ws.id}/invitations`, { token, body: { email, role } });
const peek = (token: string) => request(node.url, '/admin/auth/invitation', { body: { token } });
const accept = (body: Record<string, unknown>) => request(node.url, '/admin/auth/invitation/accept', { body });
const listOpen = async (ws: WorkspaceFixture) => (await request(node.url, `/admin/workspaces/${ws.id}/invitations`, { token: ws.token })).body.items as { id: string; email: string }[];

describe('an invitation to a new address', () => {
  test('mails a link that shows the invitation, makes the account and the membership once, and answers a session', async () => {
    const ws = await createWorkspace(node.url, { name: 'Bakery <Rye>' });
    const email = newAddress();
    const invited = await invite(ws, email.toUpperCase(), 'editor');
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({
      id: expect.any(String),
      email,
      role: 'editor',
      invitedBy: { id: expect.any(String), name: 'Operator' },
      expiresAt: new Date(clock.now().getTime() + 72 * 3_600_000).toISOString(),
      createdAt: clock.now().toISOString(),
    });
    expect(await listOpen(ws)).toEqual([invited.body]);
    const token = await linkToken(smtp.mails, email, 'invitation');
    // The outbox lists the mail, never its body.
    const outbox = (await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as Record<string, unknown>[];
    const listed = outbox.find((item) => item.to === email)!;
    expect(listed.subject).toBe('You are invited to join Bakery <Rye>');
    expect(JSON.stringify(outbox)).not.toContain(token);
    // Once sent, the stored body no longer holds the link.
    await eventually(async () => {
      const stored = await node.deps.db.collection('email_outbox').findOne({ to: email });
      return stored?.state === 'sent' && !String(stored.text).includes(token) && !String(stored.html).includes(token);
    });

    expect((await peek(token)).body).toEqual({ email, role: 'editor', workspace: { id: ws.id, name: 'Bakery <Rye>' }, accountExists: false });
    const missing = await accept({ token });
    expect(missing.status).toBe(400);
    expect(issuePaths(missing.body).sort()).toEqual(['name', 'password']);
    const tooLong = await accept({ token, name: 'n'.repeat(121), password: 'p'.repeat(8) });
    expect(issuePaths(tooLong.body)).toEqual(['name']);
    const tooShort = await accept({ token, name: 'n'.repeat(120), password: 'p'.repeat(7) });
    expect(issuePaths(tooShort.body)).toEqual(['password']);

    const accepted = await accept({ token, name: 'n'.repeat(120), password: 'p'.repeat(8) });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ token: expect.any(String), user: { id: expect.any(String), email, name: 'n'.repeat(120), isOperator: false } });
    const me = await request(node.url, `/admin/workspaces/${ws.id}`, { token: accepted.body.token });
    expect(me.status).toBe(200);
    const members = (await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: accepted.body.token })).body.items;
    expect(members).toContainEqual(expect.objectContaining({ userId: accepted.body.user.id, role: 'editor' }));
    expect((await request(node.url, '/admin/auth/login', { body: { email, password: 'p'.repeat(8) } })).status).toBe(200);

    // Spent: every later use is 404, and it is no longer open.
    for (const again of [await accept({ token, name: 'Mallory', password: 'another-password' }), await peek(token)]) {
      expect({ status: again.status, code: again.body.code }).toEqual({ status: 404, code: 'invitation_not_found' });
    }
    expect(await listOpen(ws)).toEqual([]);
  });

  test('inviting the address again replaces the invitation: the first link stops working, the second works', async () => {
    const ws = await createWorkspace(node.url);
    const email = newAddress();
    const first = await invite(ws, email, 'agent');
    const firstToken = await linkToken(smtp.mails, email, 'invitation', 1);
    clock.advance(1_000);
    const second = await invite(ws, email, 'owner');
    const secondToken = await linkToken(smtp.mails, email, 'invitation', 2);
    expect(secondToken).not.toBe(firstToken);
    expect((await listOpen(ws)).map((item) => item.id)).toEqual([second.body.id]);
    expect(first.body.id).not.toBe(second.body.id);
    expect((await peek(firstToken)).status).toBe(404);
    expect((await accept({ token: firstToken, name: 'A', password: PASSWORD })).status).toBe(404);
    const accepted = await accept({ token: secondToken, name: 'A', password: PASSWORD });
    expect(accepted.status).toBe(200);
    const role = (await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token })).body.items.find(
      (item: { userId: string }) => item.userId === accepted.body.user.id,
    ).role;
    expect(role).toBe('owner');
  });

  test('a revoked invitation is 404; the list shows open ones newest first', async () => {
    const ws = await createWorkspace(node.url);
    const older = newAddress();
    const newer = newAddress();
    const olderInvite = await invite(ws, older);
    clock.advance(1_000);
    const newerInvite = await invite(ws, newer);
    expect((await listOpen(ws)).map((item) => item.email)).toEqual([newer, older]);
    const token = await linkToken(smtp.mails, older, 'invitation');
    const revoked = await request(node.url, `/admin/workspaces/${ws.id}/invitations/${olderInvite.body.id}`, { token: ws.token, method: 'DELETE' });
    expect(revoked.status).toBe(204);
    expect((await peek(token)).body.code).toBe('invitation_not_found');
    expect((await accept({ token, name: 'A', password: PASSWORD })).status).toBe(404);
    expect((await listOpen(ws)).map((item) => item.id)).toEqual([newerInvite.body.id]);
    const again = await request(node.url, `/admin/workspaces/${ws.id}/invitations/${olderInvite.body.id}`, { token: ws.token, method: 'DELETE' });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 404, code: 'invitation_not_found' });
    // Another workspace's owner cannot revoke it.
    const other = await createWorkspace(node.url);
    const foreign = await request(node.url, `/admin/workspaces/${other.id}/invitations/${newerInvite.body.id}`, { token: other.token, method: 'DELETE' });
    expect(foreign.body.code).toBe('invitation_not_found');
    expect(await listOpen(ws)).toHaveLength(1);
  });

  test('a link expires 72 hours after it was sent', async () => {
    const ws = await createWorkspace(node.url);
    const email = newAddress();
    await invite(ws, email);
    const token = await linkToken(smtp.mails, email, 'invitation');
    clock.advance(72 * 3_600_000 - 1);
    expect((await peek(token)).status).toBe(200);
    clock.advance(1);
    expect((await peek(token)).body.code).toBe('invitation_not_found');
    expect((await accept({ token, name: 'Late', password: PASSWORD })).status).toBe(404);
    expect(await listOpen(ws)).toEqual([]);
  });
});

describe('an invitation to an existing account', () => {
  test("asks for that account's password, then adds the membership", async () => {
    const ws = await createWorkspace(node.url);
    const user = await createUser(node.url, 'Existing');
    await invite(ws, user.email, 'editor');
    const token = await linkToken(smtp.mails, user.email, 'invitation');
    expect((await peek(token)).body.accountExists).toBe(true);
    const noPassword = await accept({ token, name: 'Takeover' });
    expect({ status: noPassword.status, paths: issuePaths(noPassword.body) }).toEqual({ status: 400, paths: ['password'] });
    const wrong = await accept({ token, password: 'not-the-password' });
    expect({ status: wrong.status, paths: issuePaths(wrong.body) }).toEqual({ status: 400, paths: ['password'] });
    expect((await request(node.url, `/admin/workspaces/${ws.id}`, { token: user.token })).status).toBe(404);

    const accepted = await accept({ token, password: PASSWORD, name: 'Ignored' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.user).toEqual({ id: user.id, email: user.email, name: 'Existing', isOperator: false });
    expect((await request(node.url, `/admin/workspaces/${ws.id}/categories`, { token: user.token, body: { slug: 'mine', name: 'Mine' } })).status).toBe(201);
    expect((await accept({ token, password: PASSWORD })).status).toBe(404);
  });

  test('wrong passwords count as failed logins: past the limit, 429', async () => {
    // A fresh failure window: every test sends from this one address.
    clock.advance(16 * 60_000);
    const ws = await createWorkspace(node.url);
    const user = await createUser(node.url);
    await invite(ws, user.email);
    const token = await linkToken(smtp.mails, user.email, 'invitation');
    try {
      for (let i = 0; i < LOGIN_MAX_FAILURES; i += 1) expect((await accept({ token, password: `wrong-password-${i}` })).status).toBe(400);
      const limited = await accept({ token, password: 'wrong-password-x' });
      expect({ status: limited.status, code: limited.body.code }).toEqual({ status: 429, code: 'rate_limited' });
      // The lock holds even for the right password, and for login too.
      expect((await accept({ token, password: PASSWORD })).status).toBe(429);
      expect((await request(node.url, '/admin/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(429);
    } finally {
      // Past the failure window: the other tests log in from this address again.
      clock.advance(16 * 60_000);
    }
    expect((await accept({ token, password: PASSWORD })).status).toBe(200);
  });

  test('a member already in the team cannot be invited (409 already_member); only owners invite', async () => {
    const ws = await createWorkspace(node.url);
    const agent = await memberWith(node.url, ws, 'agent');
    const editor = await memberWith(node.url, ws, 'editor');
    const res = await invite(ws, agent.email.toUpperCase());
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'already_member' });
    for (const user of [agent, editor]) {
      expect((await invite(ws, newAddress(), 'agent', user.token)).status).toBe(403);
      expect((await request(node.url, `/admin/workspaces/${ws.id}/invitations`, { token: user.token })).status).toBe(403);
    }
    const bad = await request(node.url, `/admin/workspaces/${ws.id}/invitations`, { token: ws.token, body: { email: 'not-an-address', role: 'chief' } });
    expect({ status: bad.status, paths: issuePaths(bad.body).sort() }).toEqual({ status: 400, paths: ['email', 'role'] });
  });

  test('an old invitation never demotes: a member who accepts keeps their role', async () => {
    const ws = await createWorkspace(node.url);
    const user = await createUser(node.url);
    await invite(ws, user.email, 'agent');
    const token = await linkToken(smtp.mails, user.email, 'invitation');
    expect((await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.id, role: 'owner' } })).status).toBe(201);
    expect((await accept({ token, password: PASSWORD })).status).toBe(200);
    const role = (await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token })).body.items.find(
      (item: { userId: string }) => item.userId === user.id,
    ).role;
    expect(role).toBe('owner');
  });
});

test('two accepts of one link at once: one session, one 404', async () => {
  const ws = await createWorkspace(node.url);
  const email = newAddress();
  await invite(ws, email);
  const token = await linkToken(smtp.mails, email, 'invitation');
  const answers = await Promise.all([accept({ token, name: 'One', password: PASSWORD }), accept({ token, name: 'Two', password: PASSWORD })]);
  expect(answers.map((res) => res.status).sort()).toEqual([200, 404]);
  const members = (await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token })).body.items as { email: string }[];
  expect(members.filter((member) => member.email === email)).toHaveLength(1);
});

test('unknown tokens are 404 and a token is required', async () => {
  expect((await peek('inv_' + 'x'.repeat(43))).body.code).toBe('invitation_not_found');
  expect((await accept({ token: 'nope', name: 'X', password: PASSWORD })).status).toBe(404);
  const empty = await accept({ token: '' });
  expect({ status: empty.status, paths: issuePaths(empty.body) }).toEqual({ status: 400, paths: ['token'] });
});
