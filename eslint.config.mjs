// @ts-check
import tseslint from 'typescript-eslint';

// What must replay deterministically (the DSL and the reducers) may not reach
// for Nest, a database, the network or the wall clock: time, ids and I/O are
// passed in (STYLE.md "Libs own the domain").
const pureLibRestrictions = {
  patterns: [
    { group: ['@nestjs/*'], message: 'libs/dsl and reducers stay free of Nest.' },
    { group: ['typeorm', 'pg', 'ioredis', 'bullmq', 'nats', 'undici'], message: 'libs/dsl and reducers do no I/O.' },
    { group: ['@noetl/storage', '@noetl/config'], message: 'libs/dsl and reducers do not depend on storage or configuration.' },
  ],
  paths: [
    { name: 'fs', message: 'no I/O in pure libs' },
    { name: 'node:fs', message: 'no I/O in pure libs' },
    { name: 'child_process', message: 'no I/O in pure libs' },
    { name: 'node:child_process', message: 'no I/O in pure libs' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['libs/dsl/src/**/*.ts', 'libs/event-kernel/src/reducers/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', pureLibRestrictions],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'pass the clock in' },
        { object: 'Math', property: 'random', message: 'pass the random source in' },
        { object: 'process', property: 'env', message: 'configuration is passed in' },
      ],
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'pass the clock in' },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
