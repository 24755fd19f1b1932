import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { route } from '../../src/http/route.js';
import { fail } from '../../src/shared/errors.js';
import { allRoutes } from '../../src/app/routes.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import type { RecordedAnswer } from '../../src/http/recorder.js';
import { contractChecker, readAnswers } from './support/contract.js';

// The recorder and the replay on a node whose routes misbehave on purpose. Its answers go to a
// private directory, so the deliberate mismatches never reach the run's contract replay.

const thing = z.object({ id: z.string(), name: z.string() });
const testRoutes = [
  ...allRoutes,
  route({
    method: 'get',
    path: '/external/contract-probe/:mode',
    summary: 'Answers as told, to probe the contract check',
    tags: ['Test'],
    auth: 'workspaceKey',
    params: z.object({ mode: z.enum(['good', 'extra-field', 'wrong-type', 'undeclared-2xx', 'undeclared-error', 'declared-error', 'empty']) }),
    responses: { 200: { description: 'A thing.', schema: thing }, 409: 'Declared conflict.' },
    handle: async ({ params }) => {
      switch (params.mode) {
        case 'good':
          return { body: { id: '1', name: 'a' } };
        case 'extra-field':
          return { body: { id: '1', name: 'a', secret: 'x' } };
        case 'wrong-type':
          return { body: { id: 1, name: 'a' } };
        case 'undeclared-2xx':
          return { status: 202, body: { id: '1', name: 'a' } };
        case 'undeclared-error':
          throw fail('forbidden');
        case 'declared-error':
          throw fail('email_taken');
        case 'empty':
          return { status: 200 };
      }
    },
  }),
];

let node: HearthNode;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hearth-answers-'));
  node = await startTestNode({ env: { RECORD_RESPONSES_DIR: dir }, app: { routes: testRoutes } });
});
afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function answersFor(url: string, count = 1): Promise<RecordedAnswer[]> {
  return eventually(() => {
    const found = readAnswers(dir).filter((answer) => answer.url === url);
    return found.length >= count ? found : undefined;
  });
}

describe('the recorder', () => {
  test('appends method, declared path, status and body of each answer, errors included', async () => {
    const ws = await createWorkspace(node.url);
    await request(node.url, '/external/contract-probe/good', { apiKey: ws.apiKey });
    expect(await answersFor('/external/contract-probe/good')).toEqual([
      { method: 'get', path: '/external/contract-probe/:mode', status: 200, body: { id: '1', name: 'a' }, url: '/external/contract-probe/good' },
    ]);
    // An error thrown by the mount (no key) is sent by the error handler and still recorded.
    await request(node.url, '/external/contract-probe/good?x=1');
    const [unauthorized] = await answersFor('/external/contract-probe/good?x=1');
    expect(unauthorized).toMatchObject({ status: 401, body: { code: 'missing_credential' } });
    // A validation failure of the declared params.
    await request(node.url, '/external/contract-probe/nope', { apiKey: ws.apiKey });
    const [invalid] = await answersFor('/external/contract-probe/nope');
    expect(invalid).toMatchObject({ status: 400, body: { code: 'validation_failed', issues: [{ path: 'mode' }] } });
  });

  test('an answer without a body is recorded without one; key-bearing query values are redacted', async () => {
    const ws = await createWorkspace(node.url);
    await request(node.url, '/external/contract-probe/empty', { apiKey: ws.apiKey });
    const [empty] = await answersFor('/external/contract-probe/empty');
    expect(empty).toEqual({ method: 'get', path: '/external/contract-probe/:mode', status: 200, url: '/external/contract-probe/empty' });
    await request(node.url, '/external/contract-probe/good?publishableKey=pk_secret', { apiKey: ws.apiKey });
    await answersFor('/external/contract-probe/good?publishableKey=[redacted]');
  });
});

describe('the replay', () => {
  const check = contractChecker(buildOpenApiDocument(testRoutes).document);

  test.each([
    ['good', undefined],
    ['declared-error', undefined],
    ['extra-field', { kind: 'schema', detail: '(body) must NOT have additional properties "secret"' }],
    ['wrong-type', { kind: 'schema', detail: '/id must be string' }],
    ['undeclared-2xx', { kind: 'undeclared-status', status: 202 }],
    ['undeclared-error', { kind: 'undeclared-status', status: 403 }],
    ['empty', { kind: 'schema', detail: 'the declaration has a JSON body, but the answer had none' }],
  ])('%s', async (mode, expected) => {
    const ws = await createWorkspace(node.url);
    const url = `/external/contract-probe/${mode}`;
    await request(node.url, url, { apiKey: ws.apiKey });
    const [answer] = await answersFor(url);
    const mismatch = check(answer);
    if (expected === undefined) expect(mismatch).toBeUndefined();
    else expect(mismatch).toMatchObject(expected);
  });

  test('an answer of a route the document does not know is a mismatch', () => {
    const mismatch = check({ method: 'get', path: '/external/gone', status: 200, body: {}, url: '/external/gone' });
    expect(mismatch).toMatchObject({ kind: 'unknown-route' });
  });

  test('real answers of the service match: the workspace, a validation error, a wrong key', async () => {
    const ws = await createWorkspace(node.url);
    await request(node.url, '/external/workspace', { apiKey: ws.apiKey });
    await request(node.url, '/admin/workspaces', { token: ws.token, body: { slug: 'Bad Slug', name: '', locales: [], defaultLocale: 'x' } });
    await request(node.url, '/external/workspace?wrong=1', { apiKey: 'sk_unknown' });
    const answers = [...(await answersFor('/external/workspace')), ...(await answersFor('/admin/workspaces')), ...(await answersFor('/external/workspace?wrong=1'))];
    expect(answers.map((answer) => answer.status).sort()).toEqual(expect.arrayContaining([200, 400, 401]));
    expect(answers.map(check).filter(Boolean)).toEqual([]);
  });
});
