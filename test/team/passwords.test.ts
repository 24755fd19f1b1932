import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';
import { startSmtp } from '../email/smtp.js';
import { agentSocket } from '../livechat/support.js';
import { createUser, issuePaths, linkToken, login, mailsTo, memberWith, PASSWORD } from './support.js';

const clock = new ManualClock(new Date('2025-06-01T12:00:00Z'));
let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({ clock, env: { PUBLIC_URL: 'https://team.example.com/', SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100' } });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

const me = (token: string) => request(node.url, '/admin/me', { token });
const changePassword = (token: string, body: Record<string, unknown>) => request(node.url, '/admin/me/password', { token, body });
const askReset = (email: string) => request(node.url, '/admin/auth/password-reset', { body: { email } });
const completeReset = (body: Record<string, unknown>) => request(node.url, '/admin/auth/password-reset/complete', { body });

describe('POST /admin/me/password', () => {
  test('a wrong current password is a 400 on currentPassword; a change ends every other session, the current one stays', async () => {
    const ws = await createWorkspace(node.url);
    const user = await memberWith(node.url, ws, 'agent');
    const other = await login(node.url, user.email);
    const otherConsole = await agentSocket(node.url, other, ws.id);
    let ended: string | undefined;
    otherConsole.on('disconnect', (reason) => (ended = reason));
    try {
      const wrong = await changePassword(user.token, { currentPassword: 'not-it', newPassword: 'brand-new-password' });
      expect({ status: wrong.status, code: wrong.body.code, paths: issuePaths(wrong.body) }).toEqual({ status: 400, code: 'validation_failed', paths: ['currentPassword'] });
      expect((await me(other)).status).toBe(200);

      const short = await changePassword(user.token, { currentPassword: PASSWORD, newPassword: 'x'.repeat(7) });
      expect({ status: short.status, paths: issuePaths(short.body) }).toEqual({ status: 400, paths: ['newPassword'] });
      const long = await changePassword(user.token, { currentPassword: PASSWORD, newPassword: 'x'.repeat(1001) });
      expect(issuePaths(long.body)).toEqual(['newPassword']);

      const changed = await changePassword(user.token, { currentPassword: PASSWORD, newPassword: 'x'.repeat(8) });
      expect(changed.status).toBe(204);
      expect((await me(other)).status).toBe(401);
      expect((await me(user.token)).status).toBe(200);
      expect(await eventually(() => ended, 3_000, 5)).toBe('io server disconnect');
      expect((await request(node.url, '/admin/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(401);
      expect((await request(node.url, '/admin/auth/login', { body: { email: user.email, password: 'x'.repeat(8) } })).status).toBe(200);
    } finally {
      otherConsole.close();
    }
  });

  test('needs a session', async () => {
    expect((await request(node.url, '/admin/me/password', { body: { currentPassword: 'a', newPassword: 'b'.repeat(8) } })).status).toBe(401);
  });
});

describe('password reset', () => {
  test('answers 202 {} alike for known and unknown addresses; only a known one gets a mail', async () => {
    const user = await createUser(node.url, 'Rita');
    const unknown = `nobody-${Date.now()}@example.com`;
    const answers = [await askReset(user.email), await askReset(unknown), await askReset(user.email.toUpperCase())];
    for (const res of answers) expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: {} });
    expect(answers[0].text).toBe(answers[1].text);
    const token = await linkToken(smtp.mails, user.email, 'reset-password');
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const [mail] = await mailsTo(smtp.mails, user.email);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain('Hello Rita,');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mails.filter((received) => received.to.includes(unknown))).toEqual([]);
    const bad = await askReset('not-an-address');
    expect({ status: bad.status, paths: issuePaths(bad.body) }).toEqual({ status: 400, paths: ['email'] });
  });

  test('the link works once, ends every session of the account and sets the new password', async () => {
    const ws = await createWorkspace(node.url);
    const user = await memberWith(node.url, ws, 'agent');
    const second = await login(node.url, user.email);
    await askReset(user.email);
    const token = await linkToken(smtp.mails, user.email, 'reset-password');

    const short = await completeReset({ token, password: 'y'.repeat(7) });
    expect({ status: short.status, paths: issuePaths(short.body) }).toEqual({ status: 400, paths: ['password'] });
    expect((await me(user.token)).status).toBe(200);

    expect((await completeReset({ token, password: 'y'.repeat(8) })).status).toBe(204);
    for (const session of [user.token, second]) expect((await me(session)).status).toBe(401);
    expect((await request(node.url, '/admin/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(401);
    expect((await request(node.url, '/admin/auth/login', { body: { email: user.email, password: 'y'.repeat(8) } })).status).toBe(200);

    const again = await completeReset({ token, password: 'z'.repeat(12) });
    expect({ status: again.status, code: again.body.code, paths: issuePaths(again.body) }).toEqual({ status: 400, code: 'validation_failed', paths: ['token'] });
    // The mail is no workspace's: the member's workspace outbox does not list it.
    const outbox = (await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as { to: string }[];
    expect(outbox.filter((item) => item.to === user.email)).toEqual([]);
    // And once sent, the stored mail no longer holds the link.
    await eventually(async () => {
      const stored = await node.deps.db.collection('email_outbox').findOne({ to: user.email });
      return stored?.state === 'sent' && stored.workspaceId === null && !String(stored.text).includes(token) && !String(stored.html).includes(token);
    });
  });

  test('a link expires after one hour', async () => {
    const user = await createUser(node.url);
    await askReset(user.email);
    const token = await linkToken(smtp.mails, user.email, 'reset-password');
    clock.advance(60 * 60_000);
    const expired = await completeReset({ token, password: 'late-password' });
    expect({ status: expired.status, paths: issuePaths(expired.body) }).toEqual({ status: 400, paths: ['token'] });
    expect((await me(user.token)).status).toBe(200);
  });

  test('a link works up to just before the hour, and a newer link spends the older ones when used', async () => {
    const user = await createUser(node.url);
    await askReset(user.email);
    const first = await linkToken(smtp.mails, user.email, 'reset-password', 1);
    await askReset(user.email);
    const second = await linkToken(smtp.mails, user.email, 'reset-password', 2);
    clock.advance(60 * 60_000 - 1);
    expect((await completeReset({ token: second, password: 'second-password' })).status).toBe(204);
    expect(issuePaths((await completeReset({ token: first, password: 'first-password' })).body)).toEqual(['token']);
  });

  test('at most 3 reset mails per address per hour; later requests still answer 202', async () => {
    const user = await createUser(node.url);
    for (let i = 0; i < 5; i += 1) expect((await askReset(user.email)).status).toBe(202);
    await linkToken(smtp.mails, user.email, 'reset-password', 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await mailsTo(smtp.mails, user.email)).toHaveLength(3);
    clock.advance(60 * 60_000);
    expect((await askReset(user.email)).status).toBe(202);
    await linkToken(smtp.mails, user.email, 'reset-password', 4);
  });

  test('a password change spends open reset links', async () => {
    const user = await createUser(node.url);
    await askReset(user.email);
    const token = await linkToken(smtp.mails, user.email, 'reset-password');
    expect((await changePassword(user.token, { currentPassword: PASSWORD, newPassword: 'changed-password' })).status).toBe(204);
    expect(issuePaths((await completeReset({ token, password: 'reset-password' })).body)).toEqual(['token']);
  });

  test('two uses of one link at once: one 204, one 400', async () => {
    const user = await createUser(node.url);
    await askReset(user.email);
    const token = await linkToken(smtp.mails, user.email, 'reset-password');
    const answers = await Promise.all([completeReset({ token, password: 'first-of-two' }), completeReset({ token, password: 'second-of-two' })]);
    expect(answers.map((res) => res.status).sort()).toEqual([204, 400]);
  });
});
