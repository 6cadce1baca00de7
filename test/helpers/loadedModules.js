// Preloaded with `node -r`: prints the modules the process loaded, on exit, on stderr.
// And the Node.js built-in modules it loaded, node's own start-up's included (process.moduleLoadList).
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  require('fs').writeSync(2, '\nLOADED ' + JSON.stringify(Object.keys(require.cache)) + '\n');
  require('fs').writeSync(2, '\nBUILTINS ' + JSON.stringify(builtins) + '\n');
});
