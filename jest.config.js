/**
 * Jest runs in ESM mode (Agenda 6 is ESM-only), as three projects. `unit` (`*.unit.test.ts`): pure code, no
 * engine, Redis or browser started, so `npx jest lru.unit` answers in seconds. `integrity` and `integration`
 * (every other test) share test/support/global-setup.ts, which Jest runs only when one of their tests is
 * selected.
 */
const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
};

export { shared };

/** Tests against the real parts: one FerretDB and one private Redis for the run, Chromium found or installed. */
const integration = {
  ...shared,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

export default {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.unit.test.ts'] },
    // The engine race suite loads both cores for minutes: `npm test` runs it in a step of its own, first, one
    // file at a time, so the retry storm beside it keeps its timing.
    { ...integration, displayName: 'integrity', testMatch: ['<rootDir>/test/integrity/**/*.test.ts'] },
    {
      ...integration,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.unit\\.test\\.ts$', '/test/integrity/'],
    },
  ],
  testTimeout: 30000,
  maxWorkers: 2,
  // Agenda 6 leaves a referenced timer of lockLifetime/2 (5 min) behind every job it ran (its
  // checkIfJobIsStillAlive delay is never cleared), so a run in one process would idle for minutes
  // after the last test. Nodes are stopped by each file's afterAll; this only ends the wait.
  forceExit: true,
};
