#!/usr/bin/env node
'use strict';
// Node.js's own compile cache (module.enableCompileCache, Node.js 22.1 and later; a no-op before):
// V8's bytecode of the modules loaded, kept by Node.js in its cache directory (NODE_COMPILE_CACHE,
// else the system's temporary directory), checked by Node.js before V8 reads it, refreshed when a
// module or Node.js changes, and off under NODE_DISABLE_COMPILE_CACHE=1. Enabled before the CLI's
// modules load so that they are what it holds. docs/decisions.md: the runtime.
const { enableCompileCache } = require('node:module');
if (typeof enableCompileCache === 'function') enableCompileCache();
require('../dist/cozy-gw.js').main();
