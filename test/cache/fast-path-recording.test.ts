import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { HearthNode } from '../../src/app/node.js';
import type { RecordedAnswer } from '../../src/http/recorder.js';
import { createWorkspace, startTestNode } from '../support/harness.js';
import { contentAdmin } from '../content/content-helpers.js';
import { rawGet } from '../support/raw-http.js';

// The contract replay records every answer of `npm test`: the fast path answers under recording as it does
// in production, and its answers are recorded like those of the Express path.
const dir = mkdtempSync(join(tmpdir(), 'hearth-answers-'));
let node: HearthNode;
let expressCalls = 0;
beforeAll(async () => {
  node = await startTestNode({ env: { RECORD_RESPONSES_DIR: dir } });
  const app = node.app as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...args: unknown[]) => ((expressCalls += 1), handle(...args));
});
afterAll(async () => {
  await node.stop();
});

const recorded = (): RecordedAnswer[] =>
  readdirSync(dir).flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RecordedAnswer));

test('a warm hit is answered before Express while answers are recorded, and recorded with its body; a 304 without one', async () => {
  const ws = await createWorkspace(node.url);
  await contentAdmin(node.url, ws).published({ slug: 'recorded', title: 'Recorded' });
  const headers = { 'X-Api-Key': ws.apiKey };
  const cold = await rawGet(`${node.url}/external/posts/recorded`, headers);
  expect(cold.status).toBe(200);
  const calls = expressCalls;
  const warm = await rawGet(`${node.url}/external/posts/recorded`, headers);
  const etag = warm.headers.find(([name]) => name === 'ETag')![1];
  const notModified = await rawGet(`${node.url}/external/posts/recorded`, { ...headers, 'If-None-Match': etag });
  expect([warm.status, notModified.status]).toEqual([200, 304]);
  expect(expressCalls).toBe(calls);

  const answers = recorded().filter((answer) => answer.path === '/external/posts/:slug');
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 304]);
  expect(answers[1].body).toEqual(JSON.parse(warm.body.toString('utf8')));
  expect(answers[1].body).toMatchObject({ title: 'Recorded' });
  expect('body' in answers[2]).toBe(false);
});
