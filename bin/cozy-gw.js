#!/usr/bin/env node
'use strict';
// V8's code cache of the built modules first (src/cli/codeCache.ts): a no-op where there is none.
require('../dist/cli/codeCache.js').installCodeCache();
require('../dist/cli/index.js').main();
