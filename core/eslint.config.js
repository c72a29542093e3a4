// ESLint for the TypeScript of core/ (src, test, bench): `npx eslint` in core/, run by `npm test`.
// typescript-eslint's recommended rules without type information (fast enough for every test run).
// Rules tuned for this code base rather than for a rewrite of it: `any` is allowed where an env's
// observation/action types are erased (vector envs, wrappers), unused names are errors unless they
// start with `_`, and rules that flag deliberate patterns (empty catch blocks, `for (;;)` loops,
// control characters in regexes that match terminal output) are off or relaxed; style findings
// that are no bug are warnings.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Built bundles (the UI's checked-in vite output) are not source.
  { ignores: ['dist/**', 'node_modules/**', 'bench/.venv*/**', '**/*.d.ts', 'python/**', '.packages/**', 'src/ui/app/assets/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        Buffer: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        clearImmediate: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        fetch: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-constant-condition': ['error', { checkLoops: false }],
      'no-control-regex': 'off',
      // Worth seeing, not worth failing a run over: a rethrow without `cause`, a value overwritten
      // before it is read.
      'preserve-caught-error': 'warn',
      'no-useless-assignment': 'warn',
    },
  },
  {
    // Tests and benchmarks step envs through reassigned results and write terse arithmetic.
    files: ['test/**', 'bench/**'],
    rules: {
      'no-useless-assignment': 'off',
      '@typescript-eslint/no-unused-expressions': 'warn',
    },
  },
);
