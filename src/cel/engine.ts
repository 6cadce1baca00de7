/**
 * The CEL engine's module (@marcbachmann/cel-js). The built CLI loads the CommonJS copy the build
 * makes of it (dist/vendor/cel-js/, scripts/cel-commonjs.js: the conversion jest's transform
 * makes for the tests), which Node.js loads without its ES module loader and V8's code cache
 * holds (docs/performance.md); where there is no copy (the tests, which run src/, or a build
 * whose conversion failed) the package itself. Only the copy's absence falls back: an error
 * inside it is thrown.
 */
type Engine = typeof import('@marcbachmann/cel-js');

function load(): Engine {
  const copy = '../vendor/cel-js/index.js';
  try {
    return require(copy) as Engine;
  } catch (e) {
    const missing =
      (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes(copy);
    if (!missing) throw e;
    return require('@marcbachmann/cel-js') as Engine;
  }
}

export const { Environment } = load();
export type Environment = InstanceType<Engine['Environment']>;
