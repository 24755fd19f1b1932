/** Jest runs in ESM mode: Agenda 6 is ESM-only. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  // Agenda 6 leaves a referenced timer of lockLifetime/2 (5 min) behind every job it ran (its
  // checkIfJobIsStillAlive delay is never cleared), so a run in one process would idle for minutes
  // after the last test. Nodes are stopped by each file's afterAll; this only ends the wait.
  forceExit: true,
};
