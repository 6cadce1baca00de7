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
import type { Finding } from '../k8s/diagnostics';
import { keyOf, sortObjects, type KObject } from '../k8s/model';
import { renderThenReconcile } from './preview';
import { applySecretRule } from './appliedSecrets';
import { metadataFindingsOf } from '../k8s/metadataShape';
import { pushAll } from '../k8s/arrays';

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
  const valuesFiles = o.values.map((values) => ({ file: o.valuesFile, values }));
  const inputKeys = new Set(inputs.map(keyOf));
  const pass = renderThenReconcile({ objects: inputs, valuesFiles }, o);
  const { findings, rendered, reconciled: rec } = pass;
  if (pass.failed) return { objects: [], findings };
  if (!rec) {
    // Only an object of a kind some input has can carry an input's identity (a key names its kind).
    const inputKinds = new Set(inputs.map((x) => x.kind));
    return {
      objects: sortObjects(rendered.filter((x) => !inputKinds.has(x.kind) || !inputKeys.has(keyOf(x)))),
      findings,
    };
  }
  const renderedKeys = pass.renderedKeys!;
  const applied = applySecretRule(
    rec.store.all().filter((x) => !inputKeys.has(keyOf(x))),
    (x) => !renderedKeys.has(keyOf(x)),
    { includeSecretData: o.includeSecretData, includeHint: o.includeHint ?? 'pass --include-secret-data' },
  );
  pushAll(findings, applied.findings);
  return { objects: sortObjects(applied.objects), findings };
}
