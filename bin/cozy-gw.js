#!/usr/bin/env node
'use strict';
require('../dist/cli/index.js').main();
