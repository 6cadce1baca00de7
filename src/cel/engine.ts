/**
 * The CEL engine's module (@marcbachmann/cel-js, an ES module package): required as CommonJS,
 * which Node.js 20.19 and later do for an ES module without top-level await; the built CLI has it
 * converted by esbuild inside its bundle (scripts/bundle.js), the tests by SWC (jest.config.js).
 * test/cel/engine.test.ts holds both conversions to one engine.
 */
export { Environment } from '@marcbachmann/cel-js';
