/**
 * `render --with-controller`: the whole platform in one command. The charts render the Tenants;
 * the rendered objects are applied over the cluster state in the inputs (routes, namespaces,
 * Secrets, ...); one controller pass runs over that state. The result is what the cluster would
 * hold for the platform: every rendered object as the controller leaves it (namespace labels,
 * TenantGateway status), plus every object the controller creates or changes (Gateways, Issuers,
 * Certificates, redirect routes, route statuses, wildcard replicas). With `applied` (a tree for
 * `--output-dir`) only what the platform owns, without status. Pure.
 */
import { hasErrors, type Finding } from '../k8s/diagnostics';
import { keyOf, type KObject } from '../k8s/model';
import { orderOutput, render, type RenderedTree, type RenderInput, type RenderOptions } from './render';
import { reconcile, type ReconcileResult } from './reconcile';
import { redactSecret } from '../k8s/secretRedaction';
import { applySecretRule } from './appliedSecrets';
import type { Change } from '../k8s/store';
import { LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../platform/names';
import { LABEL_WILDCARD_COPY } from '../controller/wildcardSecrets';
import { pushAll } from '../k8s/arrays';

export interface PreviewOptions extends RenderOptions {
  now: string;
  ciliumVersion?: string;
  includeSecretData?: boolean;
  /**
   * The objects go to a tree that gets applied (`--output-dir`): a Secret the controller writes
   * is written whole with includeSecretData and otherwise left out with an info finding
   * (docs/decisions.md §14), instead of the redacted form meant for reading.
   */
  applied?: boolean;
}

export interface PreviewResult {
  objects: KObject[];
  findings: Finding[];
  /** What the controller pass did to the rendered state (deletions included). */
  changes: Change[];
  /** With RenderOptions.digests: what a tree's record keeps of the render. */
  tree?: RenderedTree;
}

/** What the pipeline of render and one controller pass gives. */
export interface ControllerPass {
  /** Whether any finding is an error: then there is nothing to output. */
  failed: boolean;
  /** The render's findings, then the pass's. */
  findings: Finding[];
  /** What the charts rendered (none when the render is skipped). */
  rendered: KObject[];
  /** The identities of what the charts rendered: with the controller pass (which needs them), else absent. */
  renderedKeys?: Set<string>;
  /** The controller pass (absent when it is skipped, or when the render failed). */
  reconciled?: ReconcileResult;
  /** With RenderOptions.digests: what a tree's record keeps of the render. */
  tree?: RenderedTree;
}

/** The render options among a pipeline's options (render.ts RenderOptions): what the charts read. */
export function chartOptions(o: RenderOptions): RenderOptions {
  return {
    cozystack: o.cozystack,
    gatewayApiVersion: o.gatewayApiVersion,
    gatewayOnly: o.gatewayOnly,
    includeHooks: o.includeHooks,
    apiVersions: o.apiVersions,
    noteOmittedHooks: o.noteOmittedHooks,
    progress: o.progress,
    digests: o.digests,
    only: o.only,
  };
}

/**
 * The one pipeline of `render --with-controller`, `fn` and `post-render`: the charts render the
 * inputs; the rendered objects are applied over the inputs as the cluster state; one controller
 * pass runs over that state. A failed render stops before the pass.
 */
export function renderThenReconcile(
  input: RenderInput,
  o: RenderOptions & { render?: boolean; reconcile?: boolean; now: string; ciliumVersion?: string },
): ControllerPass {
  const findings: Finding[] = [];
  let rendered: KObject[] = [];
  let tree: RenderedTree | undefined;
  if (o.render !== false) {
    // Every caller orders its output: the pass's store, then sortObjects or orderOutput.
    const r = render(input, { ...chartOptions(o), unordered: true });
    pushAll(findings, r.findings);
    if (hasErrors(findings)) return { failed: true, findings, rendered: [] };
    rendered = r.objects;
    tree = r.tree;
  }
  if (o.reconcile === false) return { failed: false, findings, rendered, tree };
  const renderedKeys = new Set(rendered.map(keyOf));
  // The cluster state: the inputs, with what the charts render applied over them.
  const state = [...input.objects.filter((x) => !renderedKeys.has(keyOf(x))), ...rendered];
  const reconciled = reconcile(
    { objects: state, valuesFiles: input.valuesFiles.length ? input.valuesFiles : undefined },
    { now: o.now, ciliumVersion: o.ciliumVersion, cozystack: o.cozystack },
  );
  pushAll(findings, reconciled.findings);
  return { failed: hasErrors(findings), findings, rendered, renderedKeys, reconciled, tree };
}

/** An object the controller writes as its own: its managed-by label, or a wildcard-Secret replica. */
export function isPlatformOwned(o: KObject): boolean {
  const l = o.metadata.labels ?? {};
  return l[LABEL_MANAGED_BY] === MANAGED_BY_VALUE || l[LABEL_WILDCARD_COPY] === 'true';
}

/** The object without `status`. */
export function withoutStatus(o: KObject): KObject {
  if (!('status' in o)) return o;
  const { status: _status, ...rest } = o as KObject & { status?: unknown };
  return rest as KObject;
}

export function preview(input: RenderInput, opts: PreviewOptions): PreviewResult {
  const pass = renderThenReconcile(input, opts);
  const { findings, reconciled: rec } = pass;
  if (pass.failed || !rec) return { objects: [], findings, changes: [] };
  const renderedKeys = pass.renderedKeys!;
  const touched = new Set(rec.changes.filter((c) => c.op !== 'delete').map((c) => keyOf(c.ref)));
  const written = rec.store.all().filter((o) => renderedKeys.has(keyOf(o)) || touched.has(keyOf(o)));
  // Secrets the controller writes (wildcard replicas) follow the key-material rule; the
  // rendered cozystack-values Secrets hold no key material (the values channel never does).
  if (opts.applied) {
    // A tree a GitOps tool applies holds what the platform owns: the rendered objects and the
    // controller's own, never an input object it does not own (the cluster's namespaces, app
    // routes whose status the pass wrote), and never status (the controllers write it).
    const owned = written.filter((o) => renderedKeys.has(keyOf(o)) || isPlatformOwned(o));
    const left = written.length - owned.length;
    const notes: Finding[] = [];
    if (left) {
      notes.push({
        severity: 'info',
        message: `${left} input object${left === 1 ? '' : 's'} the controller changed (route status, namespace labels) ${left === 1 ? 'is' : 'are'} not written to the tree: the platform does not own ${left === 1 ? 'it' : 'them'}`,
        rule: 'output.not-owned',
        hint: 'the preview on stdout, without --output-dir, shows them',
      });
    }
    const applied = applySecretRule(owned.map(withoutStatus), (o) => !renderedKeys.has(keyOf(o)), {
      includeSecretData: Boolean(opts.includeSecretData),
      includeHint: 'pass --include-secret-data',
    });
    return {
      objects: orderOutput(applied.objects),
      findings: [...findings, ...notes, ...applied.findings],
      changes: rec.changes,
      tree: pass.tree,
    };
  }
  const objects = written.map((o) => (renderedKeys.has(keyOf(o)) || opts.includeSecretData ? o : redactSecret(o)));
  return { objects: orderOutput(objects), findings, changes: rec.changes, tree: pass.tree };
}
