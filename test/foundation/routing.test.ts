import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { HearthNode } from '../../src/app/node.js';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';

/**
 * A request reaches its route through the node's route table, not by Express trying every route's pattern in
 * turn (a late route cost some 30 µs more): every spelling of a URL must reach what Express's routing reached,
 * and whatever the table does not decide (OPTIONS, a parameter that does not decode) Express still does. Each
 * test here passes with Express's routing alone.
 */

let node: HearthNode;
let ws: WorkspaceFixture;

beforeAll(async () => {
  node = await startTestNode();
  ws = await createWorkspace(node.url);
});

afterAll(() => node.stop());

const emails = () => `/admin/workspaces/${ws.id}/emails`;

test('a late route answers, in any case of its literal segments and with one trailing slash', async () => {
  for (const path of [emails(), `${emails()}/`, emails().replace('/admin/workspaces/', '/ADMIN/Workspaces/').replace('/emails', '/Emails')]) {
    const res = await request(node.url, path, { token: ws.token });
    expect([path, res.status]).toEqual([path, 200]);
    expect(Array.isArray(res.body.items)).toBe(true);
  }
});

test('two trailing slashes or a percent-encoded literal segment reach no route', async () => {
  for (const path of [`${emails()}//`, emails().replace('/emails', '/%65mails')]) {
    expect([path, (await request(node.url, path, { token: ws.token })).status]).toEqual([path, 404]);
  }
});

test('a path parameter is percent-decoded; one that does not decode is refused with a 4xx', async () => {
  const encoded = await request(node.url, `/admin/workspaces/${encodeURIComponent(ws.id)}/emails`, { token: ws.token });
  expect(encoded.status).toBe(200);
  const undecodable = await request(node.url, '/admin/workspaces/%E0%A4%A/emails', { token: ws.token });
  expect(undecodable.status).toBeGreaterThanOrEqual(400);
  expect(undecodable.status).toBeLessThan(500);
});

test('HEAD is answered by the GET route, without a body', async () => {
  const res = await fetch(node.url + emails(), { method: 'HEAD', headers: { Authorization: `Bearer ${ws.token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(await res.text()).toBe('');
});

test('a route refuses a request without its credential before anything else, as before', async () => {
  const res = await request(node.url, emails());
  expect(res.status).toBe(401);
  expect(res.body.code).toBe('missing_session');
});

test('OPTIONS of an admin path is no route of its own: the 404 in the error shape', async () => {
  const res = await request(node.url, `/admin/workspaces/${ws.id}`, { method: 'OPTIONS' });
  expect(res.status).toBe(404);
  expect(res.body.code).toBe('route_not_found');
});

test('a request the table does not route (a POST to a GET-only path) gets the 404 Express gives', async () => {
  const res = await request(node.url, emails(), { method: 'POST', token: ws.token, body: {} });
  expect(res.status).toBe(404);
});
