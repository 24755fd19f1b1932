import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, loginOperator, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { maskWebhookSecret } from '../../src/workspaces/workspaces.service.js';
import { capturingLogger } from '../livechat/support.js';

const log = capturingLogger('info');
let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode({ logger: log.logger });
});
afterAll(async () => {
  await node.stop();
});

/** A user with this role in the workspace; returns its session token. */
async function member(ws: WorkspaceFixture, role: 'agent' | 'owner'): Promise<string> {
  const operator = await loginOperator(node.url);
  const email = `${role}-${randomBytes(4).toString('hex')}@test.local`;
  const user = await request(node.url, '/admin/users', { token: operator, body: { email, name: role, password: 'member-password' } });
  await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.body.id, role } });
  return (await request(node.url, '/admin/auth/login', { body: { email, password: 'member-password' } })).body.token as string;
}

describe('the webhook secret in webhookUrl', () => {
  test('agents see the URL with the secret masked; owners and operators see it whole; it never reaches the log', async () => {
    const ws = await createWorkspace(node.url);
    const secret = `whsec-${randomBytes(12).toString('hex')}`;
    const webhookUrl = `https://hooks.example.com/in?team=a&secret=${secret}&x=1`;
    const owner = await member(ws, 'owner');
    const agent = await member(ws, 'agent');

    const patched = await request(node.url, `/admin/workspaces/${ws.id}`, { token: owner, method: 'PATCH', body: { webhookUrl } });
    expect(patched.status).toBe(200);
    expect(patched.body.webhookUrl).toBe(webhookUrl);

    for (const token of [owner, ws.token]) {
      expect((await request(node.url, `/admin/workspaces/${ws.id}`, { token })).body.webhookUrl).toBe(webhookUrl);
      const list = await request(node.url, '/admin/workspaces', { token });
      expect(list.body.items.find((item: { id: string }) => item.id === ws.id).webhookUrl).toBe(webhookUrl);
    }

    const masked = 'https://hooks.example.com/in?team=a&secret=***&x=1';
    const one = await request(node.url, `/admin/workspaces/${ws.id}`, { token: agent });
    expect(one.status).toBe(200);
    expect(one.body.webhookUrl).toBe(masked);
    expect(one.text).not.toContain(secret);
    const list = await request(node.url, '/admin/workspaces', { token: agent });
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].webhookUrl).toBe(masked);
    expect(list.text).not.toContain(secret);

    // The request log has the PATCH and the reads, and nothing of the secret.
    const lines = log.lines();
    expect(lines.some((line) => (line.req as { method?: string } | undefined)?.method === 'PATCH')).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  test('a workspace without a webhook URL answers null to everyone', async () => {
    const ws = await createWorkspace(node.url);
    const agent = await member(ws, 'agent');
    expect((await request(node.url, `/admin/workspaces/${ws.id}`, { token: agent })).body.webhookUrl).toBeNull();
  });

  test('masking covers every spelling of the secret parameter and a user-info password, and keeps the rest', () => {
    expect(maskWebhookSecret('http://h.test/p?secret=abc')).toBe('http://h.test/p?secret=***');
    expect(maskWebhookSecret('http://h.test/p?a=1&secret=abc&secret=def#frag')).toBe('http://h.test/p?a=1&secret=***&secret=***#frag');
    expect(maskWebhookSecret('http://h.test/p?s%65cret=abc&Secret=def&secretive=keep')).toBe('http://h.test/p?s%65cret=***&Secret=***&secretive=keep');
    expect(maskWebhookSecret('http://h.test/p?secret')).toBe('http://h.test/p?secret=***');
    expect(maskWebhookSecret('https://user:pa55@h.test/p?x=1')).toBe('https://user:***@h.test/p?x=1');
    expect(maskWebhookSecret('https://h.test/p?x=1')).toBe('https://h.test/p?x=1');
  });
});
