// Preloaded with `node -r`: prints the modules the process loaded, on exit, on stderr.
process.on('exit', () => require('fs').writeSync(2, '\nLOADED ' + JSON.stringify(Object.keys(require.cache)) + '\n'));
