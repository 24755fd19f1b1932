import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/server.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

test('a workspace key reads its workspace', async () => {
  const ws = await createWorkspace(node.url);
  const res = await request(node.url, '/external/workspace', { apiKey: ws.apiKey });
  expect(res.status).toBe(200);
  expect(res.body.id).toBe(ws.id);
});
