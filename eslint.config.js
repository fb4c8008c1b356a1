// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '**/*.cjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { project: ['./tsconfig.eslint.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Fastify plugins and hooks are async by contract even when they await nothing.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read JSON answers (`res.json()` is `any`) and assert on them field by field.
    files: ['**/*.test.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // browser-side code in page.evaluate() drives untyped globals (the <script> bundle, players)
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['packages/client/**/*.ts'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: {
        project: ['./packages/client/tsconfig.eslint.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ['packages/react/**/*.ts'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: {
        project: ['./packages/react/tsconfig.eslint.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // Plain JavaScript (scripts, benches, the demo page, the example): the recommended rules,
    // without type information; Node globals, browser globals for code that runs in pages.
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node }, sourceType: 'module' },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }] },
  },
  {
    files: ['packages/server/public/**/*.js', 'e2e/harness/page-client.js', 'bench/lib/av-probe.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
);
