import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';

let node: HearthNode;
let ws: WorkspaceFixture;
const clock = new ManualClock(new Date('2025-06-01T12:00:00Z'));
beforeAll(async () => {
  node = await startTestNode({ clock });
  ws = await createWorkspace(node.url);
});
afterAll(async () => {
  await node.stop();
});

const valid = { name: 'Ada', email: 'ada@example.com', message: 'Hello there' };
const submit = (body: unknown, apiKey = ws.apiKey) => request(node.url, '/external/submissions', { apiKey, body });
const inbox = (qs = '', target = ws) => request(node.url, `/admin/workspaces/${target.id}/submissions${qs}`, { token: target.token });

function expectFieldIssue(res: { status: number; body: { code: string; issues?: { path: string }[] } }, path: string) {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.issues!.map((issue) => issue.path)).toEqual([path]);
}

test('201 {id, createdAt}; metadata is kept verbatim and shown in the inbox', async () => {
  const metadata = { 'utm.source': 'news', $weird: [1, { nested: true }], empty: null, 'ünï': 'çødé' };
  const res = await submit({ ...valid, phone: '+49 (0) 30 / 123', subject: 'Order', source: '/contact', metadata });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), createdAt: clock.now().toISOString() });
  const listed = await inbox();
  expect(listed.status).toBe(200);
  expect(listed.body.items[0]).toEqual({
    id: res.body.id,
    ...valid,
    phone: '+49 (0) 30 / 123',
    subject: 'Order',
    source: '/contact',
    metadata,
    createdAt: res.body.createdAt,
    handledAt: null,
    handledBy: null,
  });
});

test.each([
  ['name', 'x'.repeat(200), 'x'.repeat(201)],
  ['message', 'x'.repeat(10_000), 'x'.repeat(10_001)],
  ['phone', 'x'.repeat(40), 'x'.repeat(41)],
  ['subject', 'x'.repeat(200), 'x'.repeat(201)],
  ['source', 'x'.repeat(500), 'x'.repeat(501)],
  ['email', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}.de`, `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}.de`],
])('%s: the exact limit passes, one more fails with a field-level issue', async (field, atLimit, overLimit) => {
  if (field === 'email') {
    expect(atLimit).toHaveLength(320);
    expect(overLimit).toHaveLength(321);
  }
  expect((await submit({ ...valid, [field]: atLimit })).status).toBe(201);
  expectFieldIssue(await submit({ ...valid, [field]: overLimit }), field);
});

test('required fields, empty values, invalid e-mail and wrong types', async () => {
  for (const field of ['name', 'email', 'message']) {
    const body: Record<string, unknown> = { ...valid };
    delete body[field];
    expectFieldIssue(await submit(body), field);
  }
  expectFieldIssue(await submit({ ...valid, name: '' }), 'name');
  expectFieldIssue(await submit({ ...valid, message: '' }), 'message');
  expectFieldIssue(await submit({ ...valid, message: '   ' }), 'message');
  expectFieldIssue(await submit({ ...valid, email: 'not-an-email' }), 'email');
  // A field failing two checks (no address, and too long) is still one entry, naming both.
  const twice = await submit({ ...valid, email: 'x'.repeat(321) });
  expectFieldIssue(twice, 'email');
  expect(twice.body.issues[0].message).toContain('; ');
  expectFieldIssue(await submit({ ...valid, metadata: ['not', 'an', 'object'] }), 'metadata');
  expectFieldIssue(await submit({ ...valid, phone: 12345 }), 'phone');
  expect((await submit({ ...valid, name: 'x' })).status).toBe(201); // 1 char is the lower bound
  const many = await submit({ name: '', email: 'bad' });
  expect(many.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['email', 'message', 'name']);
});

test('401 without a key, with an unknown key, or with a publishable key', async () => {
  expect((await request(node.url, '/external/submissions', { body: valid })).status).toBe(401);
  expect((await submit(valid, 'sk_' + 'x'.repeat(43))).status).toBe(401);
  const wrong = await request(node.url, '/external/submissions', { body: valid, headers: { 'X-Publishable-Key': 'pk_' + 'x'.repeat(43) } });
  expect(wrong.status).toBe(401);
  expect(wrong.body.code).toBe('wrong_credential_kind');
});

test('the inbox is per workspace, newest first and paginated', async () => {
  const own = await createWorkspace(node.url);
  for (let i = 1; i <= 3; i += 1) {
    clock.advance(1_000);
    expect((await submit({ ...valid, subject: `#${i}` }, own.apiKey)).status).toBe(201);
  }
  const first = await inbox('?limit=2', own);
  expect(first.body.items.map((s: { subject: string }) => s.subject)).toEqual(['#3', '#2']);
  expect(first.body.pageInfo).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasNext: true, hasPrev: false });
  const second = await inbox('?limit=2&page=2', own);
  expect(second.body.items.map((s: { subject: string }) => s.subject)).toEqual(['#1']);
  expect((await inbox('?limit=0', own)).status).toBe(400);
  // Another workspace's submissions are not in this inbox.
  expect((await inbox('?limit=100', ws)).body.items.some((s: { subject: string }) => s.subject === '#3')).toBe(false);
});
