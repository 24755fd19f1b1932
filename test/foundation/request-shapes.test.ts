import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import type { HearthNode } from '../../src/app/node.js';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';

/**
 * Every request a node answers through Express leaves Node's request and response objects in one of a few
 * shapes (V8 maps), whatever many requests came before. Express gives each request its app's prototypes; an
 * object whose prototype was changed so got a map of its own for every property added afterwards, so each
 * request made new maps and met Node's HTTP code with inline caches gone megamorphic (bench:builds:
 * `GET /healthz` 189-219 µs of CPU per request before, 76-81 µs after).
 */

// V8's own answer to "do these two objects share a map", readable once natives syntax is allowed (it cannot be
// written in TypeScript, so it is compiled from a string).
setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

let node: HearthNode;
let ws: WorkspaceFixture;
const seen: { url: string; req: IncomingMessage; res: ServerResponse; arrived: { req: object; res: object } }[] = [];

beforeAll(async () => {
  node = await startTestNode();
  ws = await createWorkspace(node.url);
  // First of the listeners, so it sees each request as it arrives, before the node's own handling.
  node.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) =>
    seen.push({ url: req.url ?? '', req, res, arrived: { req: Object.getPrototypeOf(req) as object, res: Object.getPrototypeOf(res) as object } }),
  );
});

afterAll(() => node.stop());

/** The request and response objects of the answers to `path`, each kept once its answer was sent. */
async function answered(path: string, token?: string) {
  seen.length = 0;
  for (let i = 0; i < 3; i += 1) expect((await request(node.url, path, { token })).status).toBeLessThan(500);
  return seen.filter(({ url }) => url === path);
}

test.each([
  ['a read Express answers', '/healthz'],
  ['an answer of a route that reads the database', 'admin'],
  ['a 404', '/no-such-page'],
])('%s: each request and response of it has the shape of the one before', async (_label, which) => {
  const path = which === 'admin' ? `/admin/workspaces/${ws.id}/posts?limit=5` : which;
  const exchanges = await answered(path, ws.token);
  expect(exchanges).toHaveLength(3);
  const [, second, third] = exchanges;
  // The first of a kind may still grow a map V8 then shares: the later ones must not.
  expect(haveSameMap(second.req, third.req)).toBe(true);
  expect(haveSameMap(second.res, third.res)).toBe(true);
});

test('requests arrive with the app\'s prototypes, which Express keeps', async () => {
  const [exchange] = await answered('/healthz');
  expect(exchange.arrived).toEqual({ req: node.app.request, res: node.app.response });
  expect(Object.getPrototypeOf(exchange.req)).toBe(node.app.request);
  expect(Object.getPrototypeOf(exchange.res)).toBe(node.app.response);
});
