import { COZYSTACK_VERSIONS, DEFAULT_COZYSTACK_VERSION } from '../platform/cozystackVersions';

/** The version printed by `cozy-gw --version`; kept in step with package.json by a test. */
export const VERSION = '0.1.0';

/**
 * What `cozy-gw --version` prints: cozy-gw's version on the first line (what scripts read), then
 * the Cozystack versions it reproduces and the default (docs/versions.md "Choosing a version").
 */
export function versionText(): string {
  const names = COZYSTACK_VERSIONS.map((v) => v.name);
  const list = `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return `${VERSION}\nreproduces Cozystack ${list} (default ${DEFAULT_COZYSTACK_VERSION.name}; choose with --cozystack-version)`;
}
