/**
 * The suite's Cozystack version: `main`, the specification pack that docs/behaviour.md and
 * docs/tenant.md describe and most tests pin (docs/versions.md "Choosing a version"). The
 * commands default to the newest release; COZY_GW_COZYSTACK_VERSION is that default's override,
 * so setting it here makes every command a test runs (in process through test/helpers/cli.ts, or
 * as a child process that inherits the environment) reproduce main unless the test asks for
 * another version with --cozystack-version or clears the variable. The version tests
 * (test/versions/) do both.
 */
process.env.COZY_GW_COZYSTACK_VERSION ??= 'main';
