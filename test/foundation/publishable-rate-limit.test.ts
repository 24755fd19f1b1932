import http from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { activateChat } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';

/**
 * The publishable key is public (every page embedding the widget shows it): its /external budget is per
 * client address, so one client spending it leaves every other visitor's widget answering. The secret
 * workspace key keeps one budget for the whole workspace. Clients are loopback addresses of their own.
 */

let node: HearthNode;
let ws: WorkspaceFixture;
let publishableKey: string;

beforeAll(async () => {
  node = await startTestNode({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
  ws = await createWorkspace(node.url);
  publishableKey = await activateChat(node.url, ws);
}, 60_000);

afterAll(async () => {
  await node?.stop();
});

/** GET `path` with `headers` from a chosen source address; the answer's status. */
function statusFrom(from: string, path: string, headers: Record<string, string>): Promise<number> {
  const { port } = new URL(node.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, localAddress: from, agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const times = async (count: number, send: () => Promise<number>) => {
  const statuses = [];
  for (let i = 0; i < count; i += 1) statuses.push(await send());
  return statuses;
};

test('a publishable key is limited per address: one client past the limit is 429, another address still gets its widget config', async () => {
  const config = (from: string) => statusFrom(from, '/external/live-chat/config', { 'X-Publishable-Key': publishableKey });
  expect(await times(6, () => config('127.0.8.1'))).toEqual([200, 200, 200, 200, 200, 429]);
  expect(await times(5, () => config('127.0.8.2'))).toEqual([200, 200, 200, 200, 200]);
  // The key in the URL is the same key: the same budget of that address.
  expect(await statusFrom('127.0.8.2', `/external/live-chat/config?publishableKey=${publishableKey}`, {})).toBe(429);
});

test('the workspace key keeps one budget for the workspace, whatever the address', async () => {
  const other = await createWorkspace(node.url);
  const read = (from: string) => statusFrom(from, '/external/workspace', { 'X-Api-Key': other.apiKey });
  expect(await times(3, () => read('127.0.9.1'))).toEqual([200, 200, 200]);
  expect(await times(3, () => read('127.0.9.2'))).toEqual([200, 200, 429]);
});
