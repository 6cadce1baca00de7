#!/usr/bin/env node
'use strict';
// V8's optimising compiler's flags (src/cli/compilerFlags.ts: no inlining, a later start), set
// before the code cache is read: V8 takes a cache only under the flags it was made with.
require('../dist/cli/compilerFlags.js').tuneCompiler();
// V8's code cache of the built modules first (src/cli/codeCache.ts): a no-op where there is none.
require('../dist/cli/codeCache.js').installCodeCache();
require('../dist/cli/index.js').main();
