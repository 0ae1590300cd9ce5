// ESLint over the TypeScript the project owns (generated files excluded), with type information
// from the root tsconfig.json: one program holds every workspace and the benches, which is the
// cheapest way to type-check them together. The architecture rules (process.env only in config
// modules, no service imports another, no embedded adapters in production code) stay in
// scripts/lint.js, run per workspace by `turbo run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'schemas/generated/**',
      'packages/web-sdk/src/generated/**',
      'dev/src/generated/**',
      '.local/**',
      '**/dist/**',
      '**/coverage/**',
    ],
  },
  {
    files: ['packages/*/src/**/*.ts', 'services/*/src/**/*.ts', 'schemas/src/**/*.ts', 'dev/src/**/*.ts', 'bench/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Not yet enforced, switched off here in the open rather than silenced in the code: they
      // flagged, when the gate was added, 208 uses of `any`-typed values (no-unsafe-member-access
      // 150, no-unsafe-assignment 32, no-unsafe-return 12, no-unsafe-call 9, no-unsafe-argument 5;
      // about 170 of them in tests reading JSON bodies), 6 explicit `any`, and 79 async functions
      // without an await (require-await; most implement a promise-returning port). Each is worth
      // turning on once its findings are fixed.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      // The three rules this gate exists for: a promise is awaited, returned or handled, never
      // dropped or handed to a callback that ignores it; a switch over a union names every member
      // (a `default:` counts, as the deliberate "everything else").
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // A caught error of unknown type may be passed on as it is (a settled batch fails its waiters
      // with the insert's own error).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // A leading underscore marks a name that is deliberately unused (an Express error handler's
      // fourth parameter, a key dropped by rest destructuring).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
);
