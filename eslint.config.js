// ESLint flat config: typescript-eslint's strict type-checked rules over everything TypeScript;
// eslint-config-prettier turns off what the formatter owns (Prettier: `npm run lint` checks, `npm run format` writes).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.tap/', 'coverage/', '.cache/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  {
    rules: {
      // Numbers in messages and log lines are the norm here; objects, unknown and null still need an explicit String().
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `() => worker.notify()` as a callback is the idiom for "call this"; void returned from a block body is still flagged.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      // A wrong `!` in a test or benchmark throws and fails the run, which is what it should do there; src/ keeps the rule.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // tap queues `t.test()` subtests itself and reports their failures; the promise it returns is only for chaining.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  prettier,
);
