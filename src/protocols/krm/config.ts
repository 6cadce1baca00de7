/**
 * The KRM function's settings (docs/commands/fn.md): its functionConfig is a
 * `fn.cozystack.io/v1alpha1 CozyGateway` (schemas/cozygateway.schema.json) or a ConfigMap as
 * `kpt fn eval -- key=value` makes one (see configFromConfigMap). Pure.
 */
import { parseDocument } from 'yaml';
import { cozyGatewayValidator } from '../../validation/validators.generated';
import { error, type Finding } from '../../k8s/diagnostics';
import { fieldOf, hintOf } from '../../validation/ajvErrors';
import { isRfc3339 } from '../../k8s/time';
import { isObject, type ObjRef } from '../../k8s/model';
import { exceedsLimits } from '../../k8s/limits';
import { refOfLoose } from './items';

/**
 * What a `yaml` parse error says, for a user: the first line of its message without the
 * library's advice (`please use YAML.parseAllDocuments()`) or its position (the finding carries
 * the line).
 */
export function yamlProblem(e: { code?: string; message: string }, what = 'the input'): string {
  if (e.code === 'MULTIPLE_DOCS') return `${what} holds more than one YAML document, where one is expected`;
  return e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

export const FN_API_VERSION = 'fn.cozystack.io/v1alpha1';
export const FN_KIND = 'CozyGateway';

/** The function's settings, from a CozyGateway or a ConfigMap. */
export interface FnConfig {
  /** Platform values layers, merged left to right over the chart defaults (as `--values`). */
  values: Record<string, unknown>[];
  reconcile: boolean;
  now?: string;
  gatewayApiVersion?: string;
  ciliumVersion?: string;
  /** The Cozystack version to reproduce (docs/versions.md "Choosing a version"), as given. */
  cozystackVersion?: string;
  includeSecretData: boolean;
}

/** The settings when the config names none: the chart defaults, no controller pass, no key material. */
export function defaultConfig(): FnConfig {
  return { values: [], reconcile: false, includeSecretData: false };
}

/** schemas/cozygateway.schema.json, precompiled at build time (scripts/embed-assets.js). */
function validateCozyGateway(o: unknown) {
  const validator = cozyGatewayValidator();
  const ok = validator(o);
  return ok ? [] : (validator.errors ?? []);
}

/** The keys of a CozyGateway spec (schemas/cozygateway.schema.json), which are also the ConfigMap's option names. */
const SPEC_KEYS = [
  'values',
  'reconcile',
  'now',
  'gatewayApiVersion',
  'ciliumVersion',
  'cozystackVersion',
  'includeSecretData',
];

/** Parse a ConfigMap data value as YAML, as `--set`-style users expect: `true`, `8443`, `[a, b]`. */
function yamlValue(s: string): { value?: unknown; problem?: string; limit?: string } {
  const doc = parseDocument(s);
  if (doc.errors.length) return { problem: yamlProblem(doc.errors[0], 'the value') };
  // docs/decisions.md §13: aliases stay shared nodes, and a value that expands past the bounds is refused.
  const value = doc.toJS({ maxAliasCount: -1 }) as unknown;
  const why = exceedsLimits(value);
  return why ? { limit: `the value ${why}` } : { value };
}

/**
 * Set a dotted path's value. Every part is an own key (`__proto__`, `constructor` and `prototype`
 * included, as `--set` keeps them): an input key never reaches a prototype.
 */
function setDotted(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  const own = (o: Record<string, unknown>, k: string) =>
    Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
  const put = (o: Record<string, unknown>, k: string, v: unknown) =>
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  let cur = target;
  for (const p of parts.slice(0, -1)) {
    let next = own(cur, p);
    if (!isObject(next)) {
      next = {};
      put(cur, p, next);
    }
    cur = next as Record<string, unknown>;
  }
  put(cur, parts[parts.length - 1], value);
}

function asBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

/**
 * The ConfigMap form (`kpt fn eval --exec cozy-gw -- publishing.host=example.org reconcile=true`):
 * - `values`: a YAML document of platform values (merged first);
 * - a dotted key (`publishing.host`, `gateway.enabled`, `publishing.certificates.solver`): one
 *   platform value; the text is read as YAML (`true`, `8443`, `[a, b]`; quote to keep a string);
 *   dotted keys are merged over `values`;
 * - `reconcile`, `now`, `gatewayApiVersion`, `ciliumVersion`, `cozystackVersion`, `includeSecretData`: the options
 *   of the CozyGateway spec.
 * Any other key is an error (a typo would otherwise be ignored silently).
 */
export function configFromConfigMap(cm: Record<string, unknown>): { config: FnConfig; findings: Finding[] } {
  const findings: Finding[] = [];
  const ref = refOfLoose(cm);
  const config = defaultConfig();
  const data = cm.data ?? {};
  if (!isObject(data)) {
    findings.push(
      error('functionConfig ConfigMap data must be a map of strings', {
        object: ref,
        field: 'data',
        rule: 'fn.config',
      }),
    );
    return { config, findings };
  }
  const dotted: Record<string, unknown> = {};
  for (const key of Object.keys(data).sort()) {
    const raw = data[key];
    const text = typeof raw === 'string' ? raw : raw === null || raw === undefined ? '' : String(raw);
    const field = `data.${key}`;
    if (key === 'values') {
      const { value, problem, limit } = yamlValue(text);
      if (limit) findings.push(error(limit, { object: ref, field, rule: 'fn.config.limit' }));
      else if (problem)
        findings.push(
          error(`values is not valid YAML: ${problem}`, {
            object: ref,
            field,
            rule: 'fn.config',
            hint: 'fix the YAML of data.values (a block scalar: values: |)',
          }),
        );
      else if (value === null || value === undefined) continue;
      else if (!isObject(value))
        findings.push(
          error('values must hold a YAML mapping of platform values (publishing, gateway, ...)', {
            object: ref,
            field,
            rule: 'fn.config',
            hint: 'write data.values as a block scalar holding publishing: and gateway: keys',
          }),
        );
      else config.values.unshift(value);
    } else if (key === 'reconcile' || key === 'includeSecretData') {
      const b = asBool(text.trim());
      if (b === undefined)
        findings.push(
          error(`${key} must be true or false, got ${JSON.stringify(text)}`, {
            object: ref,
            field,
            rule: 'fn.config',
            hint: `write ${key}=true or ${key}=false`,
          }),
        );
      else config[key] = b;
    } else if (key === 'now' || key === 'gatewayApiVersion' || key === 'ciliumVersion' || key === 'cozystackVersion') {
      config[key] = text.trim();
    } else if (key.includes('.') && !key.startsWith('.') && !key.endsWith('.') && !key.includes('..')) {
      const { value, problem, limit } = yamlValue(text);
      if (limit) findings.push(error(limit, { object: ref, field, rule: 'fn.config.limit' }));
      else if (problem)
        findings.push(error(`${key}: not a valid YAML value: ${problem}`, { object: ref, field, rule: 'fn.config' }));
      else setDotted(dotted, key, value === undefined ? null : value);
    } else {
      findings.push(
        error(`unknown functionConfig key "${key}"`, {
          object: ref,
          field,
          rule: 'fn.config',
          hint: `use a dotted platform value path such as publishing.host or gateway.enabled, "values" (a YAML document), or one of ${SPEC_KEYS.slice(1).join(', ')}`,
        }),
      );
    }
  }
  if (Object.keys(dotted).length) config.values.push(dotted);
  checkNow(config, ref, 'data.now', findings);
  return { config, findings };
}

function checkNow(config: FnConfig, ref: ObjRef, field: string, findings: Finding[]): void {
  if (config.now === undefined) return;
  if (!isRfc3339(config.now)) {
    findings.push(
      error(`now must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got ${JSON.stringify(config.now)}`, {
        object: ref,
        field,
        rule: 'fn.config',
        hint: 'a date, a T, a time and a zone: 2026-01-01T00:00:00Z',
      }),
    );
  }
}

/** The CozyGateway form: checked against schemas/cozygateway.schema.json, every problem at once. */
export function configFromCozyGateway(cg: Record<string, unknown>): { config: FnConfig; findings: Finding[] } {
  const findings: Finding[] = [];
  const ref = refOfLoose(cg);
  const config = defaultConfig();
  for (const e of validateCozyGateway(cg)) {
    const extra =
      e.keyword === 'additionalProperties'
        ? String((e.params as { additionalProperty?: string }).additionalProperty)
        : undefined;
    const field = fieldOf(e.instancePath, extra) || undefined;
    const msg =
      e.keyword === 'additionalProperties'
        ? `unknown field ${extra}`
        : `${e.message ?? 'invalid'}${e.keyword === 'enum' || e.keyword === 'const' ? ` (${JSON.stringify(e.params)})` : ''}`;
    const hint =
      e.keyword === 'additionalProperties'
        ? field === 'spec' || field?.startsWith('spec.')
          ? `remove it or check its spelling: a ${FN_KIND} spec holds ${SPEC_KEYS.join(', ')}`
          : 'remove it or check its spelling'
        : hintOf(e as Parameters<typeof hintOf>[0], field ?? '');
    findings.push(error(`functionConfig ${FN_KIND}: ${msg}`, { object: ref, field, rule: 'fn.config.schema', hint }));
  }
  // What is well-formed is still used, so the render reports its own failures beside these.
  const spec = (isObject(cg.spec) ? cg.spec : {}) as Record<string, unknown>;
  if (isObject(spec.values)) config.values.push(spec.values);
  if (typeof spec.reconcile === 'boolean') config.reconcile = spec.reconcile;
  if (typeof spec.includeSecretData === 'boolean') config.includeSecretData = spec.includeSecretData;
  for (const k of ['now', 'gatewayApiVersion', 'ciliumVersion', 'cozystackVersion'] as const)
    if (typeof spec[k] === 'string') config[k] = spec[k] as string;
  checkNow(config, ref, 'spec.now', findings);
  return { config, findings };
}

/** Read the functionConfig, whichever form it takes; none at all means the chart defaults. */
export function parseFunctionConfig(fc: unknown): { config: FnConfig; findings: Finding[] } {
  if (fc === undefined || fc === null || (isObject(fc) && Object.keys(fc).length === 0)) {
    return { config: defaultConfig(), findings: [] };
  }
  if (!isObject(fc)) {
    return {
      config: defaultConfig(),
      findings: [error('functionConfig must be an object', { field: 'functionConfig', rule: 'fn.config' })],
    };
  }
  if (fc.kind === 'ConfigMap' && (fc.apiVersion === 'v1' || fc.apiVersion === undefined))
    return configFromConfigMap(fc);
  if (fc.kind === FN_KIND) return configFromCozyGateway(fc);
  return {
    config: defaultConfig(),
    findings: [
      error(
        `functionConfig must be a ${FN_API_VERSION} ${FN_KIND} or a v1 ConfigMap, got ${String(fc.apiVersion)} ${String(fc.kind)}`,
        {
          object: refOfLoose(fc),
          rule: 'fn.config',
          hint: `write a ${FN_API_VERSION} ${FN_KIND} with spec.values, or pass key=value arguments (kpt makes a ConfigMap of them)`,
        },
      ),
    ],
  };
}
