/**
 * `cozy-gw snapshot`: write the cluster state cozy-gw reads, through kubectl, so that render,
 * reconcile and admit can run against a live cluster's state offline. What is read and how the
 * listing becomes a snapshot is in src/pipelines/snapshot.ts; this module runs kubectl and writes the file.
 */
import * as path from 'node:path';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context';
import { error, FindingsError, warning, type Finding } from '../../k8s/diagnostics';
import type { KObject } from '../../k8s/model';
import { dumpYaml, toJsonList, toYamlStream } from '../../k8s/yaml';
import { redactionNotice } from '../../k8s/secretRedaction';
import {
  assembleSnapshot,
  classifyKubectlError,
  SNAPSHOT_RESOURCES,
  type Listing,
  type SnapshotResource,
} from '../../pipelines/snapshot';
import { withExamples } from './help';
import { COZYSTACK_VERSION_ENV, pathArg } from './common';
import type { ClusterVersion } from '../../platform/clusterVersion';
import { DEFAULT_COZYSTACK_VERSION } from '../../platform/cozystackVersions';
import { execProcess } from '../../io/exec';
import { pushAll } from '../../k8s/arrays';
import { writeFileAtomically } from '../../io/atomicFile';

export interface SnapshotOptions {
  context?: string;
  kubeconfig?: string;
  output?: string;
  format: 'yaml' | 'json';
  includeSecretData?: boolean;
  kubectl?: string;
  quiet?: boolean;
}

/** How many listings run at once (kubectl calls are mostly waiting on the API server). */
const PARALLEL = 4;

function globalArgs(opts: SnapshotOptions): string[] {
  const a: string[] = [];
  if (opts.kubeconfig) a.push('--kubeconfig', opts.kubeconfig);
  if (opts.context) a.push('--context', opts.context);
  return a;
}

type Outcome =
  { ok: true; listing: Listing } | { ok: false; absent?: true; fatal?: boolean; finding?: Finding; note?: string };

async function list(r: SnapshotResource, opts: SnapshotOptions, ctx: CliContext): Promise<Outcome> {
  const bin = opts.kubectl ?? ctx.io.env.KUBECTL ?? 'kubectl';
  const where = r.namespace ? ['-n', r.namespace] : r.namespaced ? ['--all-namespaces'] : [];
  const args = [...globalArgs(opts), 'get', r.resource, ...where, '-o', 'json'];
  const run = await (ctx.io.exec ?? execProcess)(bin, args, { env: ctx.io.env, cwd: ctx.io.cwd });
  if (run.missing) {
    return {
      ok: false,
      fatal: true,
      finding: error(`kubectl not found: cannot run ${bin}`, {
        rule: 'snapshot.kubectl-missing',
        hint: 'install kubectl and put it on PATH, or name it with --kubectl PATH (or $KUBECTL)',
      }),
    };
  }
  if (run.exitCode !== 0) {
    const f = classifyKubectlError(run.stderr);
    if (f.kind === 'absent' && !r.alwaysServed) return { ok: false, absent: true };
    if (f.kind === 'absent') {
      return {
        ok: false,
        fatal: true,
        finding: error(
          `kubectl get ${r.resource}: the server does not serve ${r.resource}, which every Kubernetes API server serves: the context's server is not one (${f.message})`,
          {
            rule: 'snapshot.not-kubernetes',
            hint: 'check the server the context names (`kubectl config view --minify`), and --context or --kubeconfig',
          },
        ),
      };
    }
    if (f.kind === 'forbidden' && r.versionEvidence)
      return {
        ok: false,
        note: `note: listing ${r.resource} in ${r.namespace} is forbidden (${f.message}): the Cozystack version is read from the other sources`,
      };
    if (f.kind === 'forbidden') {
      return {
        ok: false,
        finding: error(`listing ${r.resource} is forbidden: ${f.message}`, {
          rule: 'snapshot.forbidden',
          hint: `the snapshot needs list on ${r.resource} in every namespace; ask for a role that grants it, or use another --context`,
        }),
      };
    }
    if (f.kind === 'context') {
      return {
        ok: false,
        fatal: true,
        finding: error(`kubectl cannot use the context: ${f.message}`, {
          rule: 'snapshot.context',
          hint: 'list contexts with `kubectl config get-contexts`; pass one with --context (and --kubeconfig FILE if it lives elsewhere)',
        }),
      };
    }
    return {
      ok: false,
      fatal: true,
      finding: error(`kubectl get ${r.resource} failed (exit ${run.exitCode}): ${f.message}`, {
        rule: 'snapshot.kubectl-failed',
      }),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.stdout);
  } catch (e) {
    return {
      ok: false,
      fatal: true,
      finding: error(`kubectl get ${r.resource} -o json printed something that is not JSON: ${(e as Error).message}`, {
        rule: 'snapshot.kubectl-output',
      }),
    };
  }
  const items = (parsed as { items?: unknown }).items;
  return { ok: true, listing: { resource: r, items: Array.isArray(items) ? (items as KObject[]) : [] } };
}

/** Read every kind (the first alone, as a probe for kubectl, the kubeconfig and the context). */
export async function takeSnapshot(
  opts: SnapshotOptions,
  ctx: CliContext,
): Promise<{ text: string; count: number; notes: string[]; warnings: Finding[] }> {
  const progress = (s: string) => {
    if (!opts.quiet) ctx.note(`snapshot: ${s}`);
  };
  const resources = [...SNAPSHOT_RESOURCES];
  const outcomes: Outcome[] = new Array(resources.length);
  const started = Date.now();
  // Listings finish in any order (PARALLEL at once); their progress lines are printed in the
  // resources' order, each once every listing before it has finished, so that standard error is
  // the same bytes from run to run.
  let printed = 0;
  const done = (i: number, o: Outcome) => {
    outcomes[i] = o;
    for (; printed < resources.length && outcomes[printed] !== undefined; printed++) {
      const p = outcomes[printed];
      if (p.ok) progress(`${resources[printed].resource}: ${p.listing.items.length}`);
    }
  };
  done(0, await list(resources[0], opts, ctx));
  const first = outcomes[0];
  if (!first.ok && first.fatal && first.finding) throw new FindingsError([first.finding]);
  let next = 1;
  const worker = async () => {
    while (next < resources.length) {
      const i = next++;
      done(i, await list(resources[i], opts, ctx));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));

  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const o of outcomes) {
    if (o.ok || !o.finding) continue;
    const key = o.fatal ? o.finding.message : `${o.finding.rule}|${o.finding.message}`;
    if (!seen.has(key)) findings.push(o.finding);
    seen.add(key);
  }
  if (findings.length) throw new FindingsError(findings);

  const notes = resources
    .filter((_, i) => !outcomes[i].ok && (outcomes[i] as { absent?: boolean }).absent)
    .map(
      (r) =>
        `note: ${r.resource} is not served by this cluster (its CRD is absent): no ${r.kind} objects in the snapshot`,
    );
  for (const o of outcomes) if (!o.ok && o.note) notes.push(o.note);
  const listings = outcomes.filter((o): o is { ok: true; listing: Listing } => o.ok).map((o) => o.listing);
  const snap = assembleSnapshot(listings, { includeSecretData: Boolean(opts.includeSecretData) });
  const version = versionNotes(snap.version);
  if (version.found) progress(version.found);
  pushAll(notes, version.notes);
  const secrets = snap.counts.find((c) => c.resource === 'secrets');
  if (secrets && secrets.listed !== secrets.kept)
    notes.push(
      `note: ${secrets.kept} of ${secrets.listed} Secrets kept: those cozy-gw reads (cozystack-values, TLS Secrets, wildcard replicas and their namesakes, controller-owned)`,
    );
  if (snap.redacted) notes.push(redactionNotice(snap.redacted));
  progress(
    `${snap.objects.length} objects from ${resources.length - notes.filter((n) => n.includes('not served')).length} kinds in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return { text: render(snap.objects, opts), count: snap.objects.length, notes, warnings: version.warnings };
}

/**
 * What the snapshot says of the cluster's Cozystack version (docs/versions.md §11): the version and
 * what tells it (a progress line), the sources that disagree (a warning), or that nothing tells it.
 */
function versionNotes(v: ClusterVersion | undefined): { found?: string; notes: string[]; warnings: Finding[] } {
  if (!v?.version)
    return {
      warnings: [],
      notes: [
        `note: the cluster shows no Cozystack version (no cozystack-operator, cozystack-controller or cozystack-api Deployment, platform OCIRepository or cozystack-version ConfigMap in cozy-system that names one): diff and reconcile over this snapshot reproduce --cozystack-version, else $${COZYSTACK_VERSION_ENV}, else ${DEFAULT_COZYSTACK_VERSION.name}`,
      ],
    };
  const warnings = v.disagreements.length
    ? [
        warning(
          `the cluster's version sources disagree: it is taken to run Cozystack ${v.version} (${v.from}), but ${v.disagreements.join('; ')}`,
          {
            rule: 'snapshot.version-disagrees',
            hint: 'an upgrade under way? diff and reconcile over this snapshot take --cozystack-version to choose',
          },
        ),
      ]
    : [];
  return { found: `Cozystack ${v.version} (${v.from})`, notes: [], warnings };
}

function render(objects: KObject[], opts: SnapshotOptions): string {
  if (opts.format === 'json') return toJsonList(objects);
  const head = `# cozy-gw snapshot${opts.context ? ` of context ${opts.context}` : ''}: ${objects.length} objects. Replay: cozy-gw reconcile -f <this file>\n`;
  return objects.length
    ? `${head}${toYamlStream(objects)}`
    : `${head}${dumpYaml({ apiVersion: 'v1', kind: 'List', items: [] })}`;
}

/**
 * Write all or nothing: a temporary file of this run's own beside the target (src/io/atomicFile.ts:
 * a random name, created exclusively, never a planted one), renamed over it; with Secret data in
 * it, readable by its owner only.
 */
function writeAtomically(file: string, text: string, secretData: boolean): void {
  try {
    writeFileAtomically(file, text, secretData ? 0o600 : 0o666);
  } catch (e) {
    throw new FindingsError([error(`cannot write ${file}: ${(e as Error).message}`, { rule: 'snapshot.write', file })]);
  }
}

export function register(program: Command, ctx: CliContext): Command {
  const cmd = program
    .command('snapshot')
    .description(
      'Write the cluster state cozy-gw reads, through kubectl: Namespaces, Tenants, the platform Package, TenantGateways, ' +
        'GatewayClasses, Gateways, HTTPRoutes, TLSRoutes, GRPCRoutes, Ingresses, cert-manager Certificates and Issuers, the ' +
        'Secrets cozy-gw reads (cozystack-values, TLS Secrets, wildcard replicas), and every kind render writes (ServiceAccounts, ' +
        'Roles, RoleBindings, ClusterRoles, Cilium policies, ResourceQuotas, LimitRanges, HelmReleases, Keycloak groups, Services, ' +
        "Jobs, admission policies and bindings: the platform's own, in tenant-* and cozy* namespaces or applied by Flux), " +
        "and what tells the cluster's Cozystack version (the cozystack-operator, cozystack-controller and cozystack-api " +
        'Deployments, the platform OCIRepository and the cozystack-version ConfigMap in cozy-system, trimmed to it) with a ' +
        'CozystackVersion record of the version they tell, which diff and reconcile over the snapshot reproduce. ' +
        'managedFields are kept without their timestamps (diff reads who applied which field). Kinds whose CRD is absent are ' +
        'skipped with a note. Secret data is left out, with a digest of it, (except cozystack-values, which holds no key ' +
        'material) unless --include-secret-data.',
    )
    .option('--context <name>', 'the kubeconfig context to use (default: the current context)')
    .option('--kubeconfig <file>', 'the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('-o, --output <file>', 'write the snapshot to FILE (all or nothing) instead of standard output', pathArg)
    .addOption(
      new Option('--format <format>', 'yaml: multi-document YAML; json: a v1 List')
        .choices(['yaml', 'json'])
        .default('yaml'),
    )
    .option('--include-secret-data', 'keep the data (key material) of the Secrets in the snapshot')
    .option('--kubectl <path>', 'the kubectl to run (default: $KUBECTL, else kubectl on PATH)')
    .option('-q, --quiet', 'no progress on standard error (notes and errors are still printed)')
    .action(async (opts: SnapshotOptions) => {
      const snap = await takeSnapshot(opts, ctx);
      if (opts.output) {
        const file = path.resolve(ctx.io.cwd, opts.output);
        writeAtomically(file, snap.text, Boolean(opts.includeSecretData));
        if (!opts.quiet) ctx.note(`snapshot: wrote ${snap.count} objects to ${opts.output}`);
      } else {
        ctx.io.stdout(snap.text);
      }
      ctx.report(snap.warnings);
      for (const n of snap.notes) ctx.note(n);
    });
  return withExamples(cmd, [
    'cozy-gw snapshot -o cluster.yaml',
    'cozy-gw snapshot --context prod --kubeconfig ~/.kube/prod.yaml -o prod.yaml',
    '# replay the controller against the live state, offline:',
    'cozy-gw reconcile -f cluster.yaml -o plan',
  ]);
}
