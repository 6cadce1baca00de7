/**
 * Before any suite starts: build dist/ once if it is older than the sources. Suites that run
 * bin/cozy-gw.js (kpt, kustomize, pipes, the README) then never see a rebuild under them, which
 * happened when each suite checked on its own while another ran from dist/. CI builds first, so
 * there this is a no-op.
 */
import { ensureBuilt } from './helpers/kpt';

export default function globalSetup(): void {
  ensureBuilt();
}
