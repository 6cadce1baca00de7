/**
 * `render --with-controller`: the whole platform in one command. The charts render the Tenants;
 * the rendered objects are applied over the cluster state in the inputs (routes, namespaces,
 * Secrets, ...); one controller pass runs over that state. The result is what the cluster would
 * hold for the platform: every rendered object as the controller leaves it (namespace labels,
 * TenantGateway status), plus every object the controller creates or changes (Gateways, Issuers,
 * Certificates, redirect routes, route statuses, wildcard replicas). Pure.
 */
import { hasErrors, type Finding } from '../k8s/diagnostics';
import { keyOf, type KObject } from '../k8s/model';
import { orderOutput, render, type RenderInput, type RenderOptions } from './render';
import { reconcile } from './reconcile';
import { redactSecret } from '../k8s/secretRedaction';
import { applySecretRule } from './appliedSecrets';
import type { Change } from '../k8s/store';

export interface PreviewOptions extends RenderOptions {
  now: string;
  ciliumVersion?: string;
  includeSecretData?: boolean;
  /**
   * The objects go to a tree that gets applied (`--output-dir`): a Secret the controller writes
   * is written whole with includeSecretData and otherwise left out with an info finding
   * (decisions 14), instead of the redacted form meant for reading.
   */
  applied?: boolean;
}

export interface PreviewResult {
  objects: KObject[];
  findings: Finding[];
  /** What the controller pass did to the rendered state (deletions included). */
  changes: Change[];
}

export function preview(input: RenderInput, opts: PreviewOptions): PreviewResult {
  const r = render(input, opts);
  if (hasErrors(r.findings)) return { objects: [], findings: r.findings, changes: [] };
  const renderedKeys = new Set(r.objects.map(keyOf));
  // The cluster state: the inputs, with what the charts render applied over them.
  const state = [...input.objects.filter((o) => !renderedKeys.has(keyOf(o))), ...r.objects];
  const rec = reconcile(
    { objects: state, valuesFiles: input.valuesFiles.length ? input.valuesFiles : undefined },
    { now: opts.now, ciliumVersion: opts.ciliumVersion },
  );
  const findings = [...r.findings, ...rec.findings];
  if (hasErrors(rec.findings)) return { objects: [], findings, changes: [] };
  const touched = new Set(rec.changes.filter((c) => c.op !== 'delete').map((c) => keyOf(c.ref)));
  const written = rec.store.all().filter((o) => renderedKeys.has(keyOf(o)) || touched.has(keyOf(o)));
  // Secrets the controller writes (wildcard replicas) follow the key-material rule; the
  // rendered cozystack-values Secrets hold no key material (the values channel never does).
  if (opts.applied) {
    const applied = applySecretRule(written, (o) => !renderedKeys.has(keyOf(o)), { includeSecretData: Boolean(opts.includeSecretData), includeHint: 'pass --include-secret-data' });
    return { objects: orderOutput(applied.objects), findings: [...findings, ...applied.findings], changes: rec.changes };
  }
  const objects = written.map((o) => (renderedKeys.has(keyOf(o)) || opts.includeSecretData ? o : redactSecret(o)));
  return { objects: orderOutput(objects), findings, changes: rec.changes };
}
