import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { eventually, loginOperator, request, type WorkspaceFixture } from '../support/harness.js';
import type { ReceivedMail } from '../email/smtp.js';

export const PASSWORD = 'member-password';

export interface TestUser {
  id: string;
  email: string;
  token: string;
}

/** A user made by the operator (no membership yet), logged in. */
export async function createUser(url: string, name = 'Member'): Promise<TestUser> {
  const operator = await loginOperator(url);
  const email = `user-${randomBytes(5).toString('hex')}@test.local`;
  const created = await request(url, '/admin/users', { token: operator, body: { email, name, password: PASSWORD } });
  if (created.status !== 201) throw new Error(`user creation failed: ${created.status} ${created.text}`);
  return { id: created.body.id as string, email, token: await login(url, email) };
}

export async function login(url: string, email: string, password = PASSWORD): Promise<string> {
  const res = await request(url, '/admin/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.token as string;
}

/** A user with this role in the workspace, added by the workspace's creator (an operator). */
export async function memberWith(url: string, ws: WorkspaceFixture, role: 'agent' | 'editor' | 'owner', name: string = role): Promise<TestUser> {
  const user = await createUser(url, name);
  await addTo(url, ws, user, role);
  return user;
}

export async function addTo(url: string, ws: WorkspaceFixture, user: { id: string }, role: 'agent' | 'editor' | 'owner'): Promise<void> {
  const res = await request(url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.id, role } });
  if (res.status !== 201) throw new Error(`membership failed: ${res.status} ${res.text}`);
}

/** The plain text of each mail SMTP received for `to`, oldest first. */
export async function mailsTo(mails: ReceivedMail[], to: string): Promise<{ subject: string; text: string }[]> {
  const mine = mails.filter((mail) => mail.to.includes(to));
  return Promise.all(
    mine.map(async (mail) => {
      const parsed = await simpleParser(mail.raw);
      return { subject: parsed.subject ?? '', text: parsed.text ?? '' };
    }),
  );
}

/** The one-time token of the `kind` link (`invitation`, `reset-password`) in the `nth` mail to `to` (1-based), once it arrives. */
export async function linkToken(mails: ReceivedMail[], to: string, kind: 'invitation' | 'reset-password', nth = 1): Promise<string> {
  return eventually(async () => {
    const received = (await mailsTo(mails, to)).filter((mail) => mail.text.includes(`/console#/${kind}/`));
    const mail = received[nth - 1];
    if (!mail) return undefined;
    const match = new RegExp(`https://team\\.example\\.com/console#/${kind}/([A-Za-z0-9_-]+)`).exec(mail.text);
    return match?.[1];
  });
}

/** The issue paths of a 400 answer. */
export const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((issue) => issue.path);
