// Flat config: typescript-eslint's recommended rules over all TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'out/**',
      '.venv/**',
      '.tools/**',
      '.cache/**',
      'build/**',
      '**/*.generated.*',
      // Programs for the TS → C++ compiler: checked by its own type checker and subset rules.
      'test/tscompile/corpus/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The layers' entry points mean it: the CLI and the extension are thin glue over
    // generator/index.ts and client/index.ts, never over their internals. Files inside cli/ or
    // extension/ import each other freely.
    files: ['cli/**/*.ts', 'extension/**/*.ts', 'extension/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(generator|client)/(?!index\\.js$)',
              message:
                'Import from generator/index.ts or client/index.ts (export it there if it is missing).',
            },
          ],
        },
      ],
    },
  },
  {
    // Shared types sit below every generator module; the printer stands without the parser.
    files: ['generator/model/**/*.ts', 'generator/pbtxt/print.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./|^\\./parse\\.js$',
              message:
                'generator/model/ imports nothing outside itself; print.ts does not import the parser.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
  },
);
