import * as fs from 'node:fs';
import { COZYSTACK_VERSIONS, DEFAULT_COZYSTACK_VERSION } from '../platform/cozystackVersions';

/** The version printed by `cozy-gw --version`; kept in step with package.json by a test. */
export const VERSION = '0.1.0';

/** The mark scripts/bundle.js writes before the build's hash on the bundle's second line (src/cli/bundleLoader.ts BUILD_MARK). */
const BUILD_MARK = '\n// cozy-gw build ';

/**
 * The build of cozy-gw that runs: its version and the bundle's build hash, read from the bundle's
 * second line where this module runs inside the bundle (`source` where it does not: tsc's output,
 * the tests). A tree's record keeps it (docs/performance.md "Changed-only"): another build may
 * render otherwise, so a change against a tree another build wrote is rendered whole.
 */
export function buildIdentity(): string {
  let hash = 'source';
  try {
    const fd = fs.openSync(__filename, 'r');
    try {
      const buf = Buffer.alloc(200);
      const n = fs.readSync(fd, buf, 0, 200, 0);
      const text = buf.toString('latin1', 0, n);
      const at = text.indexOf(BUILD_MARK);
      const h = at < 0 ? '' : text.slice(at + BUILD_MARK.length, at + BUILD_MARK.length + 64);
      if (/^[0-9a-f]{64}$/.test(h)) hash = h;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* no file to read (a compiled binary's virtual path): the version alone */
  }
  return `${VERSION}+${hash}`;
}

/**
 * What `cozy-gw --version` prints: cozy-gw's version on the first line (what scripts read), then
 * the Cozystack versions it reproduces and the default (docs/versions.md "Choosing a version").
 */
export function versionText(): string {
  const names = COZYSTACK_VERSIONS.map((v) => v.name);
  const list = `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return `${VERSION}\nreproduces Cozystack ${list} (default ${DEFAULT_COZYSTACK_VERSION.name}; choose with --cozystack-version)`;
}
