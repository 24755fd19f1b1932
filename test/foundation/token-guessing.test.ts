import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import { activateChat, startChat } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';

/**
 * A path token (conversation, cancellation, manage) is its own rate-limit subject, so a guess with a fresh
 * random token would get a fresh budget: tokens that name nothing are counted against the client address
 * like unknown keys (each distinct token once a minute), and past AUTH_FAILURES_PER_MINUTE that address is
 * refused 429 before any token it sends is looked up.
 */

let node: HearthNode;

beforeAll(async () => {
  node = await startTestNode({ env: { AUTH_FAILURES_PER_MINUTE: '5', RATE_LIMIT_PER_MINUTE: '1000' } });
}, 60_000);

afterAll(async () => {
  await node?.stop();
});

const guess = (i: number) => `ct_guess${i}${'x'.repeat(40)}`;

test('random path tokens from one address: 404 up to the bound, then 429 for every token, a real one included', async () => {
  const ws = await createWorkspace(node.url);
  const key = await activateChat(node.url, ws);
  const real = (await startChat(node.url, key, { visitorSessionId: 'guessing-visitor' })).body.conversationToken as string;

  const statuses = [];
  statuses.push((await request(node.url, `/external/live-chat/conversations/${guess(0)}/messages`)).status);
  statuses.push((await request(node.url, `/external/appointments/requests/${guess(1)}`)).status);
  statuses.push((await request(node.url, `/external/appointments/requests/${guess(2)}/cancel`, { body: {} })).status);
  statuses.push((await request(node.url, `/external/appointments/manage/${guess(3)}`)).status);
  statuses.push((await request(node.url, `/external/live-chat/conversations/${guess(4)}/messages`, { body: { body: 'hi' } })).status);
  // Exactly the bound (5 unknown tokens) answers 404; the next request is refused before its token is looked up.
  statuses.push((await request(node.url, `/external/live-chat/conversations/${guess(5)}/messages`)).status);
  expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
  const refused = await request(node.url, `/external/live-chat/conversations/${encodeURIComponent(real)}/messages`);
  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('rate_limited');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
});

test('one stale token polled again and again counts once: the widget of a visitor whose conversation is gone is never refused', async () => {
  const other = await startTestNode({ env: { AUTH_FAILURES_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '1000' } });
  try {
    const stale = `ct_stale${'s'.repeat(40)}`;
    const statuses = [];
    for (let i = 0; i < 10; i += 1) statuses.push((await request(other.url, `/external/live-chat/conversations/${stale}/messages`)).status);
    expect(statuses).toEqual(Array(10).fill(404));
  } finally {
    await other.stop();
  }
});
