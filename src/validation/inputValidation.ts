/**
 * Input validation against the JSON Schemas in schemas/ (ajv): the platform values (each
 * `--values` file and the platform Package's `spec.components.platform.values`) and every
 * `apps.cozystack.io/v1alpha1` Tenant (docs/commands/render.md). Every problem is a Finding that
 * names the object or the values file and the field (the CLI edge adds the line). Pure apart from
 * the line lookup, which reads the source text the CLI edge already registered.
 */
import { error, warning, type Finding } from '../k8s/diagnostics';
import { deepEqual, getPath, isObject, refOf, type KObject } from '../k8s/model';
import { asset } from '../assets';
import { locateValue, valuesOf, type ValuesWhere } from './valueSources';
import { findPlatformPackage, isTenant } from '../platform/kinds';
import {
  tenantKeysUnknownTo,
  unknownKeyHint,
  unknownKeyMessage,
  unknownTenantSpecKeys,
  unknownValueKeys,
  valueKeysUnknownIn,
} from './unknownKeys';
import { platformValuesValidator, tenantValidator, type Validate } from './validators.generated';
import { explainInputError, show } from './ajvErrors';
import { pushAll } from '../k8s/arrays';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';

/**
 * The validators of schemas/platform-values.schema.json and schemas/tenant.schema.json,
 * precompiled at build time by scripts/embed-assets.js (ajv standalone code, the options
 * allErrors + verbose): no schema compile at run time.
 */
function validators(): { values: Validate; tenant: Validate } {
  return { values: platformValuesValidator(), tenant: tenantValidator() };
}

/** Helm's null deletes a key: such keys are not values to check. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
  return out;
}

/** Whether an ajv error is about a value under one of the dotted paths (`publishing.loadBalancerClass`). */
function under(instancePath: string, paths: string[]): boolean {
  return paths.some((p) => {
    const pointer = `/${p.split('.').join('/')}`;
    return instancePath === pointer || instancePath.startsWith(`${pointer}/`);
  });
}

/**
 * Validate one source of platform values against schemas/platform-values.schema.json, as the
 * version knows them (docs/versions.md §P3): a key the version does not know is not checked
 * against its schema, only warned about as unknown.
 */
export function validatePlatformValues(where: ValuesWhere, behaviour: Behaviour = MAIN_VERSION.behaviour): Finding[] {
  const values = valuesOf(where);
  if ('pkg' in where && (values === undefined || values === null)) return [];
  if (!isObject(values)) {
    return [
      error(`platform values must be a mapping, got ${show(values)}`, {
        ...locateValue(where, ''),
        rule: 'input.values-schema',
        hint: 'write the platform chart values with top-level keys publishing: and gateway:',
      }),
    ];
  }
  const validate = validators().values;
  const unknownHere = valueKeysUnknownIn(behaviour);
  const out = validate(dropNulls(values))
    ? []
    : (validate.errors ?? [])
        .filter((e) => !under(e.instancePath, unknownHere))
        .map((e) => {
          const { field, message, hint } = explainInputError(e);
          return error(field ? message : `platform values ${message}`, {
            ...locateValue(where, field),
            rule: 'input.values-schema',
            hint,
          });
        });
  pushAll(out, unknownValueKeyFindings(where, behaviour));
  return out;
}

/** A `resourceQuotas` value's pointer (`/spec/resourceQuotas/<key>`): its key, or undefined. */
function quotaKeyOf(instancePath: string): string | undefined {
  const m = /^\/spec\/resourceQuotas\/([^/]+)$/.exec(instancePath);
  return m ? m[1].replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/**
 * Validate a Tenant against schemas/tenant.schema.json (the chart's values schema,
 * docs/tenant.md §3, docs/decisions.md §Q15). Errors name the file, line, Tenant and field; a `resourceQuotas` value that is not a
 * quantity is one error for its key (the schema's anyOf and pattern report it several times). An
 * unknown spec key (a typo such as `gatway`, or a value the version's chart lacks:
 * docs/versions.md §T6, §X1) is a warning naming the nearest known key, since the chart ignores it;
 * such a value is not type-checked.
 */
export function validateTenant(o: KObject, behaviour: Behaviour = MAIN_VERSION.behaviour): Finding[] {
  const validate = validators().tenant;
  const out: Finding[] = [];
  if (!validate(o)) {
    const quotaKeys = new Set<string>();
    const unknownToVersion = tenantKeysUnknownTo(behaviour).map((k) => `/spec/${k}`);
    const ofUnknownKey = (p: string) => unknownToVersion.some((u) => p === u || p.startsWith(`${u}/`));
    for (const e of validate.errors ?? []) {
      if (ofUnknownKey(e.instancePath)) continue;
      const quotaKey = quotaKeyOf(e.instancePath);
      if (quotaKey !== undefined) {
        if (quotaKeys.has(quotaKey)) continue;
        quotaKeys.add(quotaKey);
        // docs/tenant.md §2.0.6: nested sections are the mistake the quota helper names itself.
        const nested = (quotaKey === 'limits' || quotaKey === 'requests') && isObject(e.data);
        out.push(
          error(
            nested
              ? `must be a quantity, got a mapping: resourceQuotas is one flat map of resources (cpu: 4, memory: 4Gi, ...), not nested requests: and limits: sections`
              : `must be a quantity (an integer, or a string in the Kubernetes quantity grammar such as "500m", "4", "10Gi", "1e3"), got ${show(e.data)}`,
            {
              object: refOf(o),
              field: `spec.resourceQuotas.${quotaKey}`,
              rule: 'input.tenant-schema',
              hint: nested
                ? 'list each resource once under resourceQuotas: the chart derives the requests from the limits by the allocation ratios'
                : 'write a whole number, or quote a quantity with its suffix (cpu: "500m", memory: 4Gi)',
            },
          ),
        );
        continue;
      }
      const { field, message, hint } = explainInputError(e);
      out.push(
        error(field ? message : `Tenant ${message}`, {
          object: refOf(o),
          field: field || undefined,
          rule: 'input.tenant-schema',
          hint:
            field === 'metadata.namespace'
              ? "a Tenant's namespace is its parent tenant's namespace: tenant-root for a top-level tenant"
              : hint,
        }),
      );
    }
  }
  pushAll(out, unknownTenantKeyFindings(o, behaviour));
  return out;
}

/**
 * Only the unknown-key warnings of the platform values (files, `--set`, the platform Package)
 * and of every Tenant's spec: what the commands that do not render (reconcile, admit,
 * post-render) report.
 */
export function unknownKeyFindings(
  input: {
    objects: KObject[];
    valuesFiles: { file: string; values: Record<string, unknown> }[];
  },
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): Finding[] {
  const out: Finding[] = [];
  const sources: ValuesWhere[] = [...input.valuesFiles];
  const pkg = findPlatformPackage(input.objects);
  if (pkg) sources.push({ pkg });
  for (const where of sources) pushAll(out, unknownValueKeyFindings(where, behaviour));
  pushAll(out, unsetByTypoFindings(sources, behaviour));
  for (const o of input.objects) if (isTenant(o)) pushAll(out, unknownTenantKeyFindings(o, behaviour));
  return out;
}

/**
 * The platform values a misspelt key left unset (`publising:` for `publishing:`): for each unknown
 * key with a near known key, the keys under it that the charts default and no source sets, each
 * with the default it gets instead of the value written under the typo (one warning per unknown
 * key, beside its did-you-mean; a value equal to the default changes nothing and is not named).
 * Without it a typo at the top of a values file moved every tenant to the chart's apex, exit 0.
 */
export function unsetByTypoFindings(
  sources: readonly ValuesWhere[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): Finding[] {
  const defaults = asset<Record<string, unknown>>('charts/platform/values.yaml');
  const setAnywhere = (key: string) =>
    sources.some((w) => {
      const v = valuesOf(w);
      return isObject(v) && getPath(v, key) !== undefined;
    });
  const otherVersions = valueKeysUnknownIn(behaviour);
  const out: Finding[] = [];
  for (const where of sources) {
    const values = valuesOf(where);
    if (!isObject(values)) continue;
    for (const u of unknownValueKeys(values, behaviour)) {
      // A key another Cozystack version has is that version's, not a misspelling (docs/versions.md §P3).
      if (u.suggestion === undefined || otherVersions.includes(u.path)) continue;
      const unset: string[] = [];
      for (const [rel, written] of leaves(getPath(values, u.path))) {
        const key = rel ? `${u.suggestion}.${rel}` : u.suggestion;
        const given = getPath(defaults, key);
        if (given === undefined || setAnywhere(key) || deepEqual(given, written)) continue;
        unset.push(`${key} ${valueText(given)} (not ${valueText(written)})`);
      }
      if (!unset.length) continue;
      const what =
        unset.length === 1
          ? `${unset[0].replace(' ', " is unset and gets the charts' default ")}`
          : `these are unset and get the charts' defaults: ${unset.join(', ')}`;
      out.push(
        warning(`not read, so ${what}`, {
          ...locateValue(where, u.path),
          rule: 'input.unset-by-typo',
          hint: `write ${u.suggestion} instead of ${u.path}`,
        }),
      );
    }
  }
  return out;
}

/** A value as a message shows it: JSON, a long one cut (the edge escapes what it prints). */
function valueText(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The leaves of a value written in a values file: [dotted path below it ('' for a scalar or a list), value]. */
function leaves(v: unknown, base = ''): [string, unknown][] {
  if (!isObject(v)) return [[base, v]];
  return Object.entries(v).flatMap(([k, x]) => (x === null ? [] : leaves(x, base ? `${base}.${k}` : k)));
}

/** A warning per unknown key of one source of platform values in the version, naming the nearest known key. */
function unknownValueKeyFindings(where: ValuesWhere, behaviour: Behaviour): Finding[] {
  return unknownValueKeys(valuesOf(where), behaviour).map((u) =>
    warning(unknownKeyMessage(u), {
      ...locateValue(where, u.path),
      rule: 'input.unknown-key',
      hint: unknownKeyHint(u),
    }),
  );
}

/** A warning per unknown key of a Tenant's spec (the version's chart ignores it), naming the nearest known key. */
function unknownTenantKeyFindings(o: KObject, behaviour: Behaviour): Finding[] {
  return unknownTenantSpecKeys(o.spec, behaviour).map((u) =>
    warning(unknownKeyMessage(u), {
      object: refOf(o),
      field: u.path,
      rule: 'input.unknown-key',
      hint: unknownKeyHint(u),
    }),
  );
}
