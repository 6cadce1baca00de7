/** Tests run the TypeScript sources directly through SWC (fast, no type-check; `npm run build` type-checks).
 * The ESM-only dependencies are transformed to CommonJS for jest's module system. */
const esmOnly = [
  '@marcbachmann/cel-js',
  'execa',
  'commander',
  'fast-check',
  'pure-rand',
  'is-plain-obj',
  'strip-final-newline',
  'npm-run-path',
  'path-key',
  'unicorn-magic',
  'human-signals',
  'is-stream',
  'figures',
  'get-stream',
  'yoctocolors',
  '@sec-ant',
  'parse-ms',
  'pretty-ms',
  'is-unicode-supported',
  '@sindresorhus',
];
const os = require('node:os');
module.exports = {
  testEnvironment: 'node',
  // One worker per core, at least two: jest's default (cores - 1) runs the whole suite in band on
  // the two-core machines CI uses, leaving a core idle while the e2e suites wait on processes.
  maxWorkers: Math.max(2, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length),
  // Generous: CI machines have two cores and the property and kpt tests share them.
  testTimeout: 60000,
  // A worker that ran a test of a large platform (the L platform of bench/generate.js holds gigabytes)
  // is started again before its next file: its heap is torn down while the others work, not in
  // the 500 ms jest gives a worker to exit at the end, which it outlasted ("A worker process has
  // failed to exit gracefully and has been force exited"; no handle was open).
  workerIdleMemoryLimit: '1GB',
  // Packages whose `exports` have only an `import` condition, which jest's CommonJS resolver does not read.
  moduleNameMapper: {
    '^unicorn-magic$': '<rootDir>/node_modules/unicorn-magic/node.js',
  },
  // jest's default reporter, its summary, then every skipped test and why (test/reporters/).
  reporters: ['<rootDir>/test/reporters/progress.js', '<rootDir>/test/reporters/skipped.js'],
  // dist/ is brought up to date once, before any suite runs from it (test/globalSetup.ts).
  globalSetup: '<rootDir>/test/globalSetup.ts',
  // The run's scratch folder (TMPDIR) is removed at its end (test/scratch.ts).
  globalTeardown: '<rootDir>/test/globalTeardown.ts',
  // The suite reproduces Cozystack main unless a test chooses a version (test/setupVersion.ts).
  setupFiles: ['<rootDir>/test/setupVersion.ts'],
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};
