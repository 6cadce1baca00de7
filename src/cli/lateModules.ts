/**
 * The modules a command needs only once its action runs (start-up speed): `--help`, `--version`,
 * `completion` and a usage error never load them, and `render` without `--with-controller`
 * never loads the controller pass (test/cli/startup.test.ts counts the modules). The command
 * modules themselves are loaded only for the command invoked (src/cli/index.ts); this is the one
 * table of what loads later still, so each late load is written once, for every command.
 *
 * `require` inside a function is not an import at load time (test/architecture.test.ts); the
 * `typeof import(...)` types vanish at build.
 */
export const late = {
  yaml: () => require('../k8s/yaml') as typeof import('../k8s/yaml'),
  redaction: () => require('../k8s/secretRedaction') as typeof import('../k8s/secretRedaction'),
  outputDir: () => require('../io/outputDir') as typeof import('../io/outputDir'),
  render: () => require('../pipelines/render') as typeof import('../pipelines/render'),
  tenantChart: () => require('../charts/tenantChart') as typeof import('../charts/tenantChart'),
  platformValues: () => require('../charts/platformValues') as typeof import('../charts/platformValues'),
  preview: () => require('../pipelines/preview') as typeof import('../pipelines/preview'),
  reconcile: () => require('../pipelines/reconcile') as typeof import('../pipelines/reconcile'),
  reconcileOutput: () => require('../reports/reconcileOutput') as typeof import('../reports/reconcileOutput'),
  plan: () => require('../reports/plan') as typeof import('../reports/plan'),
  hostnames: () => require('../diff/hostnames') as typeof import('../diff/hostnames'),
  diff: () => require('../diff/diff') as typeof import('../diff/diff'),
  treeSummary: () => require('../diff/treeSummary') as typeof import('../diff/treeSummary'),
  /** A diff against a committed tree, changed-only. */
  treeDiff: () => require('./treeDiff') as typeof import('./treeDiff'),
  /** A render into a committed tree, changed-only. */
  treeRender: () => require('./treeRender') as typeof import('./treeRender'),
  diffOutput: () => require('../reports/diffOutput') as typeof import('../reports/diffOutput'),
  unifiedDiff: () => require('../reports/unifiedDiff') as typeof import('../reports/unifiedDiff'),
  /** The admit request, the evaluator and its CEL engine included. */
  admit: () => require('../pipelines/admit') as typeof import('../pipelines/admit'),
  publishedSchemas: () => require('../validation/publishedSchemas') as typeof import('../validation/publishedSchemas'),
};
