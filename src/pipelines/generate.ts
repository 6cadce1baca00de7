/**
 * What `fn` and `post-render` add to the objects they pass through: the charts' render of the
 * inputs (fn) and the controller's objects from one reconcile pass (fn with `reconcile`, and
 * post-render for every TenantGateway in the stream). Pure.
 *
 * docs/decisions.md §9: "In fn and post-render, objects that came in pass through unchanged (they are
 * the user's own files); Secrets the tool creates follow the rule" — so only objects whose
 * identity is not among the inputs are returned. Both outputs get applied, so docs/decisions.md §14
 * holds: a Secret the controller pass creates (a wildcard replica) is returned only with
 * includeSecretData, and otherwise left to the in-cluster controller with an info finding
 * (src/pipelines/appliedSecrets.ts).
 */
import { hasErrors, type Finding } from '../k8s/diagnostics';
import { compareObjects, keyOf, sortObjects, type KObject } from '../k8s/model';
import { chartOptions, renderThenReconcile } from './preview';
import { renderGroups, type RenderInput } from './render';
import { applySecretRule } from './appliedSecrets';
import { metadataFindingsOf } from '../k8s/metadataShape';
import { pushAll } from '../k8s/arrays';
import type { CozystackVersion } from '../platform/cozystackVersions';

export interface GenerateOptions {
  /** Platform values layers, merged left to right over the chart defaults (as `--values`). */
  values: Record<string, unknown>[];
  /** The name findings about those values carry as their file. */
  valuesFile: string;
  /** Run the chart render over the inputs. */
  render: boolean;
  /** Run the controller pass once over the inputs (and the rendered objects). */
  reconcile: boolean;
  now: string;
  /** The Cozystack version rendered and reconciled (docs/versions.md); absent: main. */
  cozystack?: CozystackVersion;
  gatewayApiVersion?: string;
  ciliumVersion?: string;
  /** The note naming the Helm hook objects the render left out (render.ts RenderOptions). */
  noteOmittedHooks?: boolean;
  includeSecretData: boolean;
  /** How the user of this output asks for key material (default: pass --include-secret-data). */
  includeHint?: string;
}

export interface GenerateResult {
  /** The objects to add, in the stable order; none of them has an input's identity. */
  objects: KObject[];
  findings: Finding[];
}

export function generate(inputs: KObject[], o: GenerateOptions): GenerateResult {
  const malformed = metadataFindingsOf(inputs);
  if (malformed.length) return { objects: [], findings: malformed };
  const inputKeys = new Set(inputs.map(keyOf));
  const pass = renderThenReconcile(renderInputOf(inputs, o), o);
  const { findings, rendered, reconciled: rec } = pass;
  if (pass.failed) return { objects: [], findings };
  if (!rec) return { objects: sortObjects(rendered.filter(notAnInput(inputs))), findings };
  const renderedKeys = pass.renderedKeys!;
  const applied = applySecretRule(
    rec.store.all().filter((x) => !inputKeys.has(keyOf(x))),
    (x) => !renderedKeys.has(keyOf(x)),
    { includeSecretData: o.includeSecretData, includeHint: o.includeHint ?? 'pass --include-secret-data' },
  );
  pushAll(findings, applied.findings);
  return { objects: sortObjects(applied.objects), findings };
}

/** The render's input: the inputs, and the values layers under the one file name findings give them. */
function renderInputOf(inputs: KObject[], o: GenerateOptions): RenderInput {
  return { objects: inputs, valuesFiles: o.values.map((values) => ({ file: o.valuesFile, values })) };
}

/** Whether a rendered object's identity is none of the inputs' (only an object of a kind some input has can carry one: a key names its kind). */
function notAnInput(inputs: KObject[]): (x: KObject) => boolean {
  const inputKeys = new Set(inputs.map(keyOf));
  const inputKinds = new Set(inputs.map((x) => x.kind));
  return (x) => !inputKinds.has(x.kind) || !inputKeys.has(keyOf(x));
}

/** What generate adds, group by group, so that a caller writing it out never holds it all. */
export interface GeneratedGroups {
  findings: Finding[];
  /** Whether any finding is an error: then there are no groups. */
  failed: boolean;
  /**
   * The objects to add, group by group, each group by compareObjects: without reconcile, each
   * release's (tenant-root's first, then the Tenants in the order the tree is walked) and then the
   * admission policies, rendered afresh on every call (render's groups, renderGroups), so that only
   * one group is alive at a time; with reconcile, one group of everything (the pass runs over the
   * whole tree at once), as generate gives it.
   */
  groups: () => Iterable<KObject[]>;
}

/**
 * generate, group by group. Without reconcile the render runs twice: once for its findings alone
 * (every failure known before anything is written), and again, on each walk of `groups`, to hand
 * the objects on as they are made.
 */
export function generateGroups(inputs: KObject[], o: GenerateOptions): GeneratedGroups {
  if (o.reconcile || !o.render) {
    const res = generate(inputs, o);
    const failed = hasErrors(res.findings);
    return { findings: res.findings, failed, groups: () => (failed || !res.objects.length ? [] : [res.objects]) };
  }
  const malformed = metadataFindingsOf(inputs);
  if (malformed.length) return { findings: malformed, failed: true, groups: () => [] };
  const input = renderInputOf(inputs, o);
  // What renderThenReconcile would hand render.
  const ropts = chartOptions(o);
  const findings: Finding[] = [];
  for (const _g of renderGroups(input, ropts, findings));
  if (hasErrors(findings)) return { findings, failed: true, groups: () => [] };
  const isNew = notAnInput(inputs);
  return {
    findings,
    failed: false,
    groups: function* () {
      for (const g of renderGroups(input, ropts, [])) {
        const objs = [...g.objects, ...g.gateway].filter(isNew);
        if (objs.length) yield objs.sort(compareObjects);
      }
    },
  };
}
