/**
 * Self-check (README "Testing"): validate the Gateway API and cert-manager objects the tool emits
 * (Gateway, HTTPRoute, TLSRoute, GRPCRoute, Certificate, Issuer, ...) against the upstream
 * schemas shipped by the @kubernetes-models packages (@kubernetes-models/gateway-api,
 * @kubernetes-models/cert-manager), and TenantGateways against our own CRD.
 *
 * The model packages are ESM with `import`-only exports, so they load through dynamic import();
 * the check is therefore async. The loader is injectable (tests, and a build that bundles the
 * models differently); when a package is not installed the check reports one warning and skips
 * those kinds instead of failing.
 */
import { error, warning, type Finding } from '../../src/k8s/diagnostics';
import { groupOf, refOf, type KObject } from '../../src/k8s/model';
import { validateTenantGateway } from '../../src/validation/tenantGatewayCrd';
import { fieldOf } from '../../src/validation/ajvErrors';

/** An ajv ErrorObject as the models' ValidationError carries it. */
export interface SchemaError {
  instancePath: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** A model class: `new Model(data).validate()` throws an error with `errors` when invalid. */
export type ModelClass = new (data: unknown) => { validate(): void };

/** Load a module by specifier; resolves to its namespace, rejects when it is not installed. */
export type Loader = (specifier: string) => Promise<Record<string, unknown>>;

/** The npm package holding the models of an API group. */
export const MODEL_PACKAGES: Record<string, string> = {
  'gateway.networking.k8s.io': '@kubernetes-models/gateway-api',
  'cert-manager.io': '@kubernetes-models/cert-manager',
  'acme.cert-manager.io': '@kubernetes-models/cert-manager',
};

// A real dynamic import() in the CommonJS build (TypeScript keeps import() under nodenext).
const defaultLoader: Loader = (s) => import(s) as Promise<Record<string, unknown>>;

/** `@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute`, or undefined. */
export function modelSpecifier(o: KObject): string | undefined {
  const group = groupOf(o.apiVersion);
  const pkg = MODEL_PACKAGES[group];
  if (!pkg) return undefined;
  const version = o.apiVersion.slice(group.length + 1);
  return `${pkg}/${group}/${version}/${o.kind}`;
}

function errorsOf(e: unknown): SchemaError[] | undefined {
  const errs = (e as { errors?: unknown }).errors;
  return Array.isArray(errs) ? (errs as SchemaError[]) : undefined;
}

/**
 * Validate every object whose group has a model package (and every TenantGateway against our
 * CRD). Findings name the object and the field path. Objects of other kinds are not checked.
 */
export async function schemaCheck(objects: KObject[], load: Loader = defaultLoader): Promise<Finding[]> {
  const findings: Finding[] = [];
  const classes = new Map<string, ModelClass | undefined>();
  const missing = new Set<string>();
  for (const o of objects) {
    if (o.kind === 'TenantGateway' && groupOf(o.apiVersion) === 'gateway.cozystack.io') {
      findings.push(...validateTenantGateway(o));
      continue;
    }
    const spec = modelSpecifier(o);
    if (!spec) continue;
    if (!classes.has(spec)) {
      let cls: ModelClass | undefined;
      try {
        const mod = await load(spec);
        cls = mod[o.kind] as ModelClass | undefined;
      } catch (e) {
        const code = (e as { code?: string }).code;
        const pkg = MODEL_PACKAGES[groupOf(o.apiVersion)];
        // A package that is absent altogether: say so once. A kind or version it lacks: say so per kind.
        if (code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes(`'${pkg}'`)) missing.add(pkg);
        else if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') {
          findings.push(
            warning(`no schema for ${o.apiVersion} ${o.kind} in ${pkg}; not checked`, {
              rule: 'schema.unknown-kind',
              object: refOf(o),
            }),
          );
        } else missing.add(pkg);
      }
      classes.set(spec, cls);
    }
    const cls = classes.get(spec);
    if (!cls) continue;
    try {
      new cls(o).validate();
    } catch (e) {
      const errs = errorsOf(e);
      if (!errs) {
        findings.push(
          error(`schema check failed: ${(e as Error).message}`, { rule: 'schema.upstream', object: refOf(o) }),
        );
        continue;
      }
      const seen = new Set<string>();
      for (const er of errs) {
        const field = fieldOf(er.instancePath);
        const extra =
          er.keyword === 'required' && er.params?.missingProperty
            ? `${field ? '.' : ''}${String(er.params.missingProperty)}`
            : '';
        const msg = `${er.message ?? 'is invalid'}${er.keyword === 'enum' && er.params?.allowedValues ? ` (${(er.params.allowedValues as unknown[]).join(', ')})` : ''}`;
        const key = `${field}${extra}|${msg}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push(
          error(msg, { rule: 'schema.upstream', object: refOf(o), field: `${field}${extra}` || undefined }),
        );
      }
    }
  }
  for (const pkg of [...missing].sort()) {
    findings.push(
      warning(`${pkg} is not installed: its kinds were not checked against the upstream schema`, {
        rule: 'schema.models-missing',
        hint: `npm install --save-dev ${pkg}`,
      }),
    );
  }
  return findings;
}
