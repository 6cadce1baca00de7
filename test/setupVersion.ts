/**
 * The suite's Cozystack version: `main`, the specification pack that docs/behaviour.md and
 * docs/tenant.md describe and most tests pin (docs/versions.md "Choosing a version"). The
 * commands default to the newest release; COZY_GW_COZYSTACK_VERSION is that default's override,
 * so setting it (whatever the caller's shell holds) makes every command a test runs (in process through test/helpers/cli.ts, or as a
 * child process) reproduce main unless the test asks for another version with
 * --cozystack-version or clears the variable, as the version tests (test/versions/) do.
 * test/globalSetup.ts sets it before the workers start; this file, run in each test file's
 * environment, keeps it when a suite runs alone in band.
 */
export function setSuiteVersion(): void {
  process.env.COZY_GW_COZYSTACK_VERSION = 'main';
}

setSuiteVersion();
