// Three tiers, selected by file name (STYLE.md §12). `npm test` runs all of them.
const base = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  rootDir: __dirname,
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: { '^@hadron/(domain|contracts|platform|client)(.*)$': '<rootDir>/libs/$1/src$2' },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};
module.exports = {
  // Integration tests start real servers and child processes; pure unit tests finish in ms anyway.
  testTimeout: 60_000,
  // Skipped tests are listed by name (with their reason) before jest's own summary.
  reporters: ['<rootDir>/scripts/jest-skip-reporter.js', 'default'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/libs/platform/src/testing/jest-global-setup.ts',
      globalTeardown: '<rootDir>/libs/platform/src/testing/jest-global-teardown.ts',
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/libs/platform/src/testing/jest-global-setup.ts',
      globalTeardown: '<rootDir>/libs/platform/src/testing/jest-global-teardown.ts',
    },
  ],
};
