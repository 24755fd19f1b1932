import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { queueEmail } from '../../src/email/email.service.js';
import { capturingLogger } from '../livechat/support.js';
import { startSmtp } from './smtp.js';

// Issue 28: mails per hour per workspace are a resource any holder of the public key can make the server
// spend. The ceiling counts the mails visitors cause, on every node (Redis); the team's mails are exempt.
const LIMIT = 3;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let a: HearthNode;
let b: HearthNode;
const logs = capturingLogger('warn');

beforeAll(async () => {
  smtp = await startSmtp();
  const dbName = uniqueDbName('ceiling');
  const env = { SMTP_URL: smtp.url, MAX_EMAILS_PER_WORKSPACE_PER_HOUR: String(LIMIT) };
  a = await startTestNode({ dbName, redis: true, env });
  b = await startTestNode({ dbName, redis: true, env, logger: logs.logger });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await smtp.stop();
});

const mail = (to: string, subject: string) => ({ to, subject, text: subject, html: `<p>${subject}</p>` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('visitor-caused mails: the limit passes across two nodes, limit+1 is dropped and logged; a team mail still goes out', async () => {
  const ws = await createWorkspace(a.url);
  const tag = ws.id.slice(-6);
  const received = () => smtp.mails.filter((m) => m.to.some((to) => to.endsWith(`@${tag}.example`)));

  // Exactly the limit, spread over both nodes: all sent.
  await queueEmail(a.deps, ws.id, mail(`v1@${tag}.example`, 'Receipt 1'), { cause: 'visitor' });
  await queueEmail(b.deps, ws.id, mail(`v2@${tag}.example`, 'Receipt 2'), { cause: 'visitor' });
  await queueEmail(a.deps, ws.id, mail(`v3@${tag}.example`, 'Receipt 3'), { cause: 'visitor' });
  await eventually(() => received().length === LIMIT, 10_000);

  // One more, on the node that counted one: the shared count says no. Not stored, not sent, logged with its count.
  await queueEmail(b.deps, ws.id, mail(`v4@${tag}.example`, 'Receipt 4'), { cause: 'visitor' });
  // The team's mail (an invitation, an answer) is not counted and goes out past the ceiling.
  await queueEmail(b.deps, ws.id, mail(`member@${tag}.example`, 'Invitation'), { cause: 'team' });
  await eventually(() => received().some((m) => m.to.includes(`member@${tag}.example`)), 10_000);
  await sleep(500);
  expect(received().flatMap((m) => m.to).sort()).toEqual([`member@${tag}.example`, `v1@${tag}.example`, `v2@${tag}.example`, `v3@${tag}.example`]);
  const outbox = (await request(a.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token })).body.items as { to: string }[];
  expect(outbox.map((item) => item.to)).not.toContain(`v4@${tag}.example`);
  expect(logs.lines()).toContainEqual(expect.objectContaining({ workspaceId: ws.id, droppedThisHour: 1, limit: LIMIT, subject: 'Receipt 4' }));

  // The ceiling is the workspace's: another workspace's visitors still get their mail.
  const other = await createWorkspace(a.url);
  await queueEmail(b.deps, other.id, mail(`v1@${tag}.example`, 'Other receipt'), { cause: 'visitor' });
  await eventually(() => smtp.mails.some((m) => m.raw.includes('Subject: Other receipt')), 10_000);
});
