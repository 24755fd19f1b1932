import { afterAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { queueEmail } from '../../src/email/email.service.js';
import { startSmtp } from './smtp.js';

const nodes: HearthNode[] = [];
let smtp: Awaited<ReturnType<typeof startSmtp>> | undefined;
afterAll(async () => {
  for (const node of nodes) await node.stop();
  await smtp?.stop();
});

test('without SMTP_URL a mail is kept unsent; a worker started with SMTP later sends it', async () => {
  const dbName = uniqueDbName('mail');
  const first = await startTestNode({ dbName });
  nodes.push(first);
  const ws = await createWorkspace(first.url);
  await queueEmail(first.deps, ws.id, { to: 'kept@example.com', subject: 'Kept for later', text: 'body', html: '<p>body</p>' }, { cause: 'team' });
  const list = await request(first.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token });
  expect(list.body.items).toEqual([expect.objectContaining({ to: 'kept@example.com', state: 'unsent', attempts: 0 })]);
  await first.stop();
  nodes.pop();

  smtp = await startSmtp();
  const worker = await startTestNode({ dbName, env: { SMTP_URL: smtp.url, NODE_ROLE: 'worker' } });
  nodes.push(worker);
  const received = await eventually(() => smtp!.mails.find((m) => m.raw.includes('Subject: Kept for later')));
  expect(received.to).toEqual(['kept@example.com']);
  const after = await eventually(async () => {
    const res = await request(worker.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token });
    return res.body.items[0]?.state === 'sent' ? res.body.items[0] : undefined;
  });
  expect(after.attempts).toBe(1);
});
