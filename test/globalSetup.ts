/**
 * Before any suite starts: build dist/ once if it is older than the sources. Suites that run
 * bin/cozy-gw.js (kpt, kustomize, pipes, the README) then never see a rebuild under them, which
 * happened when each suite checked on its own while another ran from dist/. CI builds first, so
 * there this is a no-op.
 *
 * And the suite's Cozystack version (test/setupVersion.ts says why): set here, in the process that
 * starts the test workers, so that it is in the real environment every worker and every child
 * process inherits (a test file's `process.env` is jest's copy, which a child spawned without an
 * explicit environment does not see). So is the run's scratch folder (TMPDIR: test/scratch.ts).
 */
import { ensureBuilt } from './helpers/kpt';
import { setSuiteVersion } from './setupVersion';
import { openScratch } from './scratch';

export default function globalSetup(): void {
  setSuiteVersion();
  // Every temporary directory of the run in one folder, which globalTeardown removes (test/scratch.ts).
  openScratch();
  ensureBuilt();
}
