/**
 * The signals a run treats as a request to stop (SIGINT, SIGTERM, SIGHUP): caught while it holds an
 * output tree (treeCommit.ts), and passed on to a run started again with a larger heap
 * (cli/heapLimit.ts); and the exit status a run ended by one reports, 128 + its number.
 */
export const INTERRUPTING: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The exit status of a run ended by `signal`: 128 + its number, as a shell reports it. */
export function signalStatus(signal: NodeJS.Signals): number {
  // node:os loaded here, when a signal has come: a run without one never loads it.
  const { constants } = require('node:os') as typeof import('node:os');
  return 128 + (constants.signals[signal] ?? 0);
}
