// Two projects: unit tests sit beside the code; integration tests talk to the real stack
// (Kafka broker, Redis, registry, chdb) that deploy/local/stack.sh brings up.
const transform = { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };
const roots = ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/schemas', '<rootDir>/dev'];

module.exports = {
  testTimeout: 120000,
  projects: [
    {
      displayName: 'unit',
      roots,
      transform,
      testEnvironment: 'node',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.integration\\.test\\.ts$'],
    },
    {
      displayName: 'integration',
      roots,
      transform,
      testEnvironment: 'node',
      testMatch: ['**/*.integration.test.ts'],
      globalSetup: '<rootDir>/packages/testkit/src/stack/global-setup.ts',
      maxWorkers: 1,
    },
  ],
};
