// ESLint (flat config) with typescript-eslint's type-aware rules: `npm test` runs it and allows no warning.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'public/', 'node_modules/', 'test/artifacts/', '.data/', 'scripts/', '**/*.js', '**/*.mjs', '**/*.cjs', '**/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  // Each file is typed by its nearest tsconfig.json: the widget and the console by their own (DOM, no Node).
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      // A promise nobody awaits is a failure nobody sees: every one is awaited, returned or `void`ed on purpose.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Route handlers, stores and counters are async by contract (an in-memory implementation of an
      // interface a Redis one shares has nothing to await): an async function without `await` is no bug.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read answers as the JSON they are (`any` there is the point, not a leak), print raw bytes and
    // headers, and wrap methods of the real parts they watch.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/restrict-plus-operands': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
