// Lint: typescript-eslint's recommended rules over the sources, the tests and the scripts.
// Formatting is prettier's (npm run format), so no stylistic rule lives here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.bench/',
      'src/assets/assets.generated.ts',
      'src/assets/starter.generated.ts',
      'src/validation/validators.generated.ts',
      'src/validation/upstreamValidators*.generated.ts',
      'testdata/',
      'examples/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-constant-condition': ['error', { checkLoops: false }],
      // Escaping what came from input means matching control characters on purpose.
      'no-control-regex': 'off',
      // Modules loaded when a command runs (src/cli/lateModules.ts) are required inside functions.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // No spread into a call in the sources: `xs.push(...big)` or `Math.max(...big)` passes every
    // element as an argument and overflows the stack at input sizes (src/k8s/arrays.ts pushAll).
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression > SpreadElement',
          message: 'no spread into a call over an array (the stack overflows at input sizes): use pushAll or a loop',
        },
        {
          selector: 'NewExpression > SpreadElement',
          message: 'no spread into a constructor call over an array (the stack overflows at input sizes): use a loop',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { globals: { ...globals.jest } },
    rules: {
      // Tests cast fixtures freely; expected YAML text is matched with its indentation as written.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-regex-spaces': 'off',
      // An assertion over a collection names the element that failed: expect(xs.every(p)).toBe(true)
      // prints "expected true, received false". Filter for the offenders and expect none instead.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='expect'] > CallExpression[callee.property.name='every']",
          message: 'expect(xs.every(p)) does not say which element failed: expect(xs.filter((x) => !p(x))).toEqual([])',
        },
        {
          selector:
            "CallExpression[callee.property.name='toBe'][arguments.0.value=false] > MemberExpression > CallExpression[callee.name='expect'] > CallExpression[callee.property.name='some']",
          message:
            'expect(xs.some(p)).toBe(false) does not say which element matched: expect(xs.filter(p)).toEqual([])',
        },
      ],
    },
  },
);
