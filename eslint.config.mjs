// Type-aware lint. In a codebase made of async lanes a floating or misused promise is a lost
// error or an unordered write, so the promise rules are errors, not warnings.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'console/dist/', '.data/', '.tmp/'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `typeof import('x')` stays allowed: it types a deliberate lazy require (see below).
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `any` stands where rows, JSON and library callbacks enter untyped; they are narrowed by
      // zod or by the read model's row type right after. Typing each of those is its own work.
      '@typescript-eslint/no-explicit-any': 'off',
      // require() here is always a deliberate lazy load (a driver, a tokenizer, an SDK loaded on
      // first use, not at boot; each says why): import() would make every caller async.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['console/**/*.tsx', 'console/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // React ignores what an event handler returns, and every async handler of the console
      // reports its own failure on the page (useAction, or its own catch and setError).
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: ['tests/**/*.ts'],
    rules: {
      // chai's property assertions (`.to.exist`, `.that.is.not.empty`) are expressions by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    files: ['**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
      },
    },
  },
  { files: ['**/*.mjs'], extends: [js.configs.recommended] },
);
