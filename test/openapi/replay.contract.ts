import { expect, test } from '@jest/globals';
import { allRoutes } from '../../src/http/routes.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { contractChecker, DEFAULT_ANSWERS_DIR, readAnswers, summarize } from './support/contract.js';

// Runs after the main jest run (`npm test`): every answer the integration tests received is checked
// against the response declared for its route and status in the generated document.

const dir = process.env.RECORD_RESPONSES_DIR || DEFAULT_ANSWERS_DIR;
const answers = readAnswers(dir);
const check = contractChecker(buildOpenApiDocument(allRoutes).document);
const mismatches = answers.map(check).filter((mismatch) => mismatch !== undefined);

test('the main run recorded answers to replay', () => {
  if (answers.length === 0) throw new Error(`no recorded answers in ${dir}: run the main jest run first (npm test does both)`);
  const routes = new Set(answers.map((answer) => `${answer.method} ${answer.path}`));
  console.info(`replayed ${answers.length} answers of ${routes.size} of ${allRoutes.length} routes from ${dir}`);
});

test('every success answer has a declared status and matches its response schema', () => {
  const failures = mismatches.filter((m) => m.kind === 'unknown-route' || (m.status >= 200 && m.status < 300) || (m.kind === 'schema' && m.status < 400));
  expect(summarize(failures)).toEqual([]);
});

test('every error answer has a declared status and is the spec error body', () => {
  const failures = mismatches.filter((m) => m.kind !== 'unknown-route' && m.status >= 300);
  expect(summarize(failures)).toEqual([]);
});
