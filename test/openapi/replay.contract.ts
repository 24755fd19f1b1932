import { expect, test } from '@jest/globals';
import { allRoutes } from '../../src/app/routes.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { contractChecker, DEFAULT_ANSWERS_DIR, readAnswers, summarize } from './support/contract.js';

// Runs after the main jest run (`npm test`): every answer the integration tests received from a
// service route is checked against the response declared for its route and status in the generated
// document. Answers of routes a test declared for itself (`startTestNode({app: {routes}})`) are not
// part of the service and are left out.

const dir = process.env.RECORD_RESPONSES_DIR || DEFAULT_ANSWERS_DIR;
const serviceRoutes = new Set(allRoutes.map((def) => `${def.method} ${def.path}`));
const recorded = readAnswers(dir);
const answers = recorded.filter((answer) => serviceRoutes.has(`${answer.method} ${answer.path}`));
const check = contractChecker(buildOpenApiDocument(allRoutes).document);
const mismatches = answers.map(check).filter((mismatch) => mismatch !== undefined);

test('the main run recorded answers to replay', () => {
  if (answers.length === 0) throw new Error(`no recorded answers in ${dir}: run the main jest run first (npm test does both)`);
  const covered = new Set(answers.map((answer) => `${answer.method} ${answer.path}`));
  const untested = [...serviceRoutes].filter((key) => !covered.has(key));
  console.info(
    `replayed ${answers.length} answers of ${covered.size} of ${serviceRoutes.size} routes from ${dir}` +
      ` (${recorded.length - answers.length} answers of test-only routes left out)` +
      (untested.length ? `\nroutes no test called:\n  ${untested.join('\n  ')}` : ''),
  );
});

test('every success answer has a declared status and matches its response schema', () => {
  expect(summarize(mismatches.filter((m) => m.status < 400))).toEqual([]);
});

test('every error answer has a declared status and is the spec error body', () => {
  expect(summarize(mismatches.filter((m) => m.status >= 400))).toEqual([]);
});
