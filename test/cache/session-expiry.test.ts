import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { OPERATOR, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';

let node: HearthNode;
const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
beforeAll(async () => {
  node = await startTestNode({ clock, env: { SESSION_TTL_HOURS: '1' } });
});
afterAll(async () => {
  await node.stop();
});

test('a remembered session still ends at its expiry: the next request after it is 401', async () => {
  const login = await request(node.url, '/admin/auth/login', { body: OPERATOR });
  const token = login.body.token as string;
  expect((await request(node.url, '/admin/me', { token })).status).toBe(200);
  clock.advance(60 * 60 * 1000 - 1_000);
  expect((await request(node.url, '/admin/me', { token })).status).toBe(200);
  clock.advance(2_000);
  const expired = await request(node.url, '/admin/me', { token });
  expect([expired.status, expired.body.code]).toEqual([401, 'invalid_session']);
});
