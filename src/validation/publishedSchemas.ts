/**
 * `--validate` (README "Values, warnings and trees"): every emitted Gateway API, cert-manager and TenantGateway object
 * checked against its published schema, as kubeconform would. The Gateway API and cert-manager
 * schemas are vendored as compiled validators (src/validation/upstreamValidators.generated.ts,
 * written by scripts/vendor-upstream-validators.js from the @kubernetes-models packages, which
 * compiled them from the upstream CRDs); TenantGateways are checked against our CRD
 * (schemas/tenantgateway.crd.yaml, its CEL rules included). Pure.
 */
import type { ErrorObject } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';
import ucs2length from 'ajv/dist/runtime/ucs2length';
import { warning, type Finding } from '../k8s/diagnostics';
import { groupOf, refOf, type KObject } from '../k8s/model';
import { explainCrdError, schemaFindings } from './ajvErrors';
import { validateTenantGateway } from './tenantGatewayCrd';
import { isTenantGateway } from '../platform/kinds';
import { isBase64 } from '../k8s/secretTypes';
import { KINDS, moduleLoader } from './upstreamValidators.generated';

/** The API groups whose published schemas are vendored. */
export const PUBLISHED_GROUPS = ['gateway.networking.k8s.io', 'cert-manager.io', 'acme.cert-manager.io'];

// The formats the compiled validators use, as @kubernetes-models/validate defines them.
const rQuantity =
  /^[+-]?(?:\d+|\d+\.\d+|\d+\.|\.\d+)(?:[KMGTPE]i|(?:[YZEPTGMkhdcmunpfazy]|da)|[eE][+-]?(?:\d+|\d+\.\d+|\d+\.|\.\d+))?$/;
const FORMATS: Record<string, unknown> = {
  ...fullFormats,
  byte: { type: 'string', validate: isBase64 },
  quantity: { type: 'string', validate: rQuantity },
};

type Validate = ((d: unknown, o?: unknown) => boolean) & { errors?: ErrorObject[] | null };

let loader: ((id: string) => Record<string, unknown>) | undefined;
function validatorFor(o: KObject): Validate | undefined {
  const id = KINDS[`${o.apiVersion}/${o.kind}`];
  if (!id) return undefined;
  loader ??= moduleLoader(
    FORMATS,
    (ucs2length as unknown as { default?: (s: string) => number }).default ??
      (ucs2length as unknown as (s: string) => number),
  );
  return loader(id).validate as Validate;
}

/** What one error says, in the API server's words, with a message where the compiled code keeps none. */
function explain(e: ErrorObject): { field: string; message: string; hint?: string } {
  const x = explainCrdError(e);
  if (e.message) return x;
  const p = e.params as Record<string, unknown>;
  const generic: Record<string, string> = {
    type: `must be ${String(p.type)}`,
    maxLength: `must be at most ${String(p.limit)} characters`,
    minLength: `must be at least ${String(p.limit)} characters`,
    maxItems: `must have at most ${String(p.limit)} items`,
    minItems: `must have at least ${String(p.limit)} items`,
    maximum: `must be ${String(p.comparison ?? '<=')} ${String(p.limit)}`,
    minimum: `must be ${String(p.comparison ?? '>=')} ${String(p.limit)}`,
    format: `must be a valid ${String(p.format)}`,
    const: `must be ${JSON.stringify(p.allowedValue)}`,
  };
  return { ...x, message: x.message === 'is invalid' ? (generic[e.keyword] ?? `fails ${e.keyword}`) : x.message };
}

/**
 * Check every object of a vendored group (and every TenantGateway) against its published schema.
 * An error names the object and the field; a kind or version with no vendored schema is a warning
 * that it was not checked. Objects of other groups are not checked.
 */
export function validatePublished(objects: KObject[]): Finding[] {
  const findings: Finding[] = [];
  const unknown = new Set<string>();
  for (const o of objects) {
    const group = groupOf(o.apiVersion);
    if (isTenantGateway(o)) {
      findings.push(
        ...validateTenantGateway(o).map((f) => ({
          ...f,
          rule: f.rule ?? 'validate.schema',
          object: f.object ?? refOf(o),
        })),
      );
      continue;
    }
    if (!PUBLISHED_GROUPS.includes(group)) continue;
    const validate = validatorFor(o);
    if (!validate) {
      const k = `${o.apiVersion} ${o.kind}`;
      if (!unknown.has(k))
        findings.push(
          warning(`no published schema for ${k} is vendored; not checked`, {
            rule: 'validate.unknown-kind',
            object: refOf(o),
          }),
        );
      unknown.add(k);
      continue;
    }
    if (validate(o)) continue;
    findings.push(...schemaFindings(validate.errors, explain, { rule: 'validate.schema', object: refOf(o) }));
  }
  return findings;
}
