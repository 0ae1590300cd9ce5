// Two projects: unit tests sit beside the code; integration tests talk to the real stack
// (Kafka broker, Redis, registry, chdb) that deploy/local/stack.sh brings up.
const transform = { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };
const roots = ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/schemas', '<rootDir>/dev'];

// `--selectProjects` takes every value after it, so `jest --selectProjects unit some.test.ts` reads the
// path as a project name and silently runs every suite (ten minutes on two cores). Refuse it at once.
const PROJECTS = ['unit', 'integration'];
const selectAt = process.argv.indexOf('--selectProjects');
if (selectAt >= 0) {
  const named = [];
  for (let i = selectAt + 1; i < process.argv.length && !process.argv[i].startsWith('-'); i++) named.push(process.argv[i]);
  const unknown = named.filter((name) => !PROJECTS.includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `jest: --selectProjects takes project names (${PROJECTS.join(', ')}), not ${unknown.join(', ')}; put test paths before it: npx jest ${unknown.join(' ')} --selectProjects ${named.filter((n) => PROJECTS.includes(n)).join(' ') || 'unit'}`,
    );
  }
}

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
