/**
 * `--validate`: every emitted object of a kind whose published schema is vendored, checked against
 * it, as kubeconform would: Kubernetes core, RBAC, batch and admission-policy kinds, Flux
 * HelmReleases, Cilium network policies, Keycloak realm groups, Gateway API and cert-manager kinds.
 * The schemas are vendored as compiled validators, one file per family
 * (src/validation/upstreamValidators.*.generated.ts, written by
 * scripts/vendor-upstream-validators.js; each family's file loads only when an object of it is
 * checked); TenantGateways are checked against our CRD (schemas/tenantgateway.crd.yaml, its CEL
 * rules included). Pure.
 */
import type { ErrorObject } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';
import ucs2length from 'ajv/dist/runtime/ucs2length';
import { warning, type Finding } from '../k8s/diagnostics';
import { clone, groupOf, refOf, type KObject } from '../k8s/model';
import { explainCrdError, schemaFindings } from './ajvErrors';
import { validateTenantGateway } from './tenantGatewayCrd';
import { domainToASCII } from 'node:url';
import { isIPv4, isIPv6 } from 'node:net';
import { isTenantGateway } from '../platform/kinds';
import { isBase64 } from '../k8s/secretTypes';
import { FAMILIES, KINDS, type Family } from './upstreamValidators.generated';
import { applyDefaults, crdRuleFindings, type CrdVoice } from './crdRules';
import { pushAll } from '../k8s/arrays';
import { apiServerFindings } from './apiServerChecks';
import type { Behaviour } from '../platform/cozystackVersions';

/**
 * The API groups whose published schemas are vendored (`''` the core group): an object of one of
 * them whose kind or version has none is reported as not checked.
 */
export const PUBLISHED_GROUPS: ReadonlySet<string> = new Set(
  Object.keys(KINDS).map((k) => groupOf(k.slice(0, k.lastIndexOf('/')))),
);

// The formats the compiled validators use, as @kubernetes-models/validate defines them.
const rQuantity =
  /^[+-]?(?:\d+|\d+\.\d+|\d+\.|\.\d+)(?:[KMGTPE]i|(?:[YZEPTGMkhdcmunpfazy]|da)|[eE][+-]?(?:\d+|\d+\.\d+|\d+\.|\.\d+))?$/;
/** An IPv4 or IPv6 prefix in CIDR notation (is-cidr's meaning: the address and a prefix length in range). */
export function isCidr(v: string): boolean {
  const slash = v.lastIndexOf('/');
  if (slash < 0 || !/^\d{1,3}$/.test(v.slice(slash + 1))) return false;
  const [addr, bits] = [v.slice(0, slash), Number(v.slice(slash + 1))];
  return (isIPv4(addr) && bits <= 32) || (isIPv6(addr) && bits <= 128);
}
const rHostname =
  /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i;
/** An internationalised host name: its ASCII (punycode) form is a host name. */
export function isIdnHostname(v: string): boolean {
  const ascii = domainToASCII(v);
  return ascii !== '' && rHostname.test(ascii);
}
/** The formats the vendored validators name, by name. */
export const FORMATS: Record<string, unknown> = {
  ...fullFormats,
  byte: { type: 'string', validate: isBase64 },
  quantity: { type: 'string', validate: rQuantity },
  cidr: { type: 'string', validate: isCidr },
  'idn-hostname': isIdnHostname,
};

/**
 * RE2 patterns (Cilium's) as JavaScript regular expressions: RE2's one-letter Unicode classes
 * (`\pC`, `\PL`) are written `\p{C}`, `\P{L}` in JavaScript; the rest of the syntax the vendored
 * patterns use means the same in both.
 */
function Re2(this: unknown, pattern: string, flags?: string): RegExp {
  return new RegExp(pattern.replace(/\\([pP])([A-Za-z])/g, '\\$1{$2}'), flags);
}

type Validate = ((d: unknown, o?: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** A kind's compiled validator, and for a vendored CRD the rule tree of its version. */
interface Checker {
  validate: Validate;
  rules?: Record<string, unknown>;
}

const loaders = new Map<string, { load: (id: string) => Record<string, unknown>; family: Family }>();
function checkerFor(o: KObject): Checker | undefined {
  const entry = KINDS[`${o.apiVersion}/${o.kind}`];
  if (!entry) return undefined;
  const [name, id] = entry;
  let loaded = loaders.get(name);
  if (!loaded) {
    const family = FAMILIES[name]();
    const load = family.moduleLoader(
      FORMATS,
      (ucs2length as unknown as { default?: (s: string) => number }).default ??
        (ucs2length as unknown as (s: string) => number),
      Re2 as unknown as new (p: string, f?: string) => RegExp,
    );
    loaded = { load, family };
    loaders.set(name, loaded);
  }
  return { validate: loaded.load(id).validate as Validate, rules: loaded.family.RULES[id] };
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
 * One object against its kind's schema. A vendored CRD is applied as the apiserver applies it to a
 * CREATE (src/validation/crdRules.ts): its defaults, the structural schema, the list types, then
 * the CEL rules; a rule that cannot be evaluated because the schema already failed is not reported
 * twice.
 */
function check(o: KObject, { validate, rules }: Checker): Finding[] {
  const ref = refOf(o);
  const obj = rules ? (applyDefaults(clone(o), rules) as KObject) : o;
  const findings = validate(obj)
    ? []
    : schemaFindings(validate.errors, explain, { rule: 'validate.schema', object: ref });
  if (!rules) return findings;
  const voice: CrdVoice = { schemaRule: 'validate.schema', celRule: 'validate.cel', kind: o.kind };
  return findings.concat(crdRuleFindings(obj, rules, o, voice, findings.length > 0));
}

/**
 * Check every object of a vendored group (and every TenantGateway, against the CRD of the Cozystack
 * version given: docs/versions.md §9; default main's) against its published schema.
 * An error names the object and the field; a kind or version with no vendored schema is a warning
 * that it was not checked. Objects of other groups are not checked.
 */
export function validatePublished(objects: KObject[], behaviour?: Behaviour): Finding[] {
  // What the API server refuses beyond the schemas: limited names, negative or overflowing quantities.
  const findings: Finding[] = apiServerFindings(objects);
  const unknown = new Set<string>();
  for (const o of objects) {
    const group = groupOf(o.apiVersion);
    if (isTenantGateway(o)) {
      for (const f of validateTenantGateway(o, behaviour))
        findings.push({ ...f, rule: f.rule ?? 'validate.schema', object: f.object ?? refOf(o) });
      continue;
    }
    if (!PUBLISHED_GROUPS.has(group)) continue;
    const checker = checkerFor(o);
    if (!checker) {
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
    pushAll(findings, check(o, checker));
  }
  return findings;
}
