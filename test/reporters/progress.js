/**
 * jest's `default` reporter without its summary (test/reporters/skipped.js prints the summary and
 * then the skipped tests): the verbose one under --verbose, else the default one.
 */
'use strict';
const { DefaultReporter, VerboseReporter } = require('@jest/reporters');

module.exports = function Progress(globalConfig) {
  return globalConfig.verbose ? new VerboseReporter(globalConfig) : new DefaultReporter(globalConfig);
};
