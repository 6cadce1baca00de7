/**
 * `cozy-gw fn`: the KRM function (KRM Functions Specification, as kpt and kustomize run it).
 *
 * Pure: a ResourceList in, a ResourceList out, findings as data. The command module
 * (src/commands/fn.ts) reads standard input and writes standard output.
 *
 * The rules it keeps (cli-contract "cozy-gw fn", decisions 9, and what kpt does with a
 * function's output):
 * - functionConfig is a `fn.cozystack.io/v1alpha1 CozyGateway` (schemas/cozygateway.schema.json)
 *   or a ConfigMap as `kpt fn eval -- key=value` makes one (see configFromConfigMap).
 * - Items that came in pass through unchanged, annotations included (kpt rewrites a file whose
 *   items lost their path annotations), in their order; they are the user's own files.
 * - The Kptfile, local-config objects and the function's own config are passed through and
 *   never read as inputs.
 * - Items a previous run generated (annotation GENERATED_ANNOTATION) are dropped and generated
 *   afresh, so a pipeline run twice gives the same package.
 * - New items carry the generated marker and a path annotation, internal and legacy forms.
 * - Every finding becomes a `results` entry (severity, resourceRef, field, file); an error
 *   makes exit code 1 (kpt shows [PASS] for error results with exit 0), and the output list
 *   is still written: on failure it holds the items exactly as they came in.
 */
import { cozyGatewayValidator } from '../validation/validators.generated';
import { parseAllDocuments, parseDocument, isMap, isScalar, isSeq, YAMLSeq, type Document, type Node, type Scalar } from 'yaml';
import { error, fullHint, hasErrors, type Finding } from '../k8s/diagnostics';
import { hintOf } from '../validation/inputValidation';
import { clone, compareObjects, isObject, keyOf, refOf, type KObject, type ObjRef } from '../k8s/model';
import { dumpYaml } from '../k8s/yaml';
import { generate, type GenerateOptions } from '../pipelines/generate';

export const RESOURCE_LIST_VERSIONS = ['config.kubernetes.io/v1', 'config.kubernetes.io/v1beta1'];
export const FN_API_VERSION = 'fn.cozystack.io/v1alpha1';
export const FN_KIND = 'CozyGateway';

/** Marks the objects this function generated, so a later run replaces them instead of adding copies. */
export const GENERATED_ANNOTATION = 'cozy-gw.cozystack.io/generated';
export const PATH_ANNOTATION = 'internal.config.kubernetes.io/path';
export const INDEX_ANNOTATION = 'internal.config.kubernetes.io/index';
export const LEGACY_PATH_ANNOTATION = 'config.kubernetes.io/path';
export const LEGACY_INDEX_ANNOTATION = 'config.kubernetes.io/index';
export const LOCAL_CONFIG_ANNOTATION = 'config.kubernetes.io/local-config';
/** Directory of the package that new items are written into (by kpt). */
export const GENERATED_DIR = 'cozy-gw';

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** A `results` entry of the KRM Functions Specification. */
export interface KrmResult {
  message: string;
  severity: 'error' | 'warning' | 'info';
  resourceRef?: ResourceRef;
  field?: { path: string };
  file?: { path: string; index?: number };
  tags?: Record<string, string>;
}

export interface ResourceList {
  apiVersion: string;
  kind: string;
  items: unknown[];
  functionConfig?: unknown;
  results?: KrmResult[];
  [key: string]: unknown;
}

/** The function's settings, from a CozyGateway or a ConfigMap. */
export interface FnConfig {
  /** Platform values layers, merged left to right over the chart defaults (as `--values`). */
  values: Record<string, unknown>[];
  reconcile: boolean;
  now?: string;
  gatewayApiVersion?: string;
  ciliumVersion?: string;
  includeSecretData: boolean;
}

export interface FnOptions {
  /** The clock for the controller pass when the config names none (the edge supplies it). */
  defaultNow: string;
  /** Add path annotations to new items (ResourceList mode: yes; kustomize plugin mode: no). */
  pathAnnotations?: boolean;
}

export const DEFAULT_NOW = '1970-01-01T00:00:00Z';

// ---------------------------------------------------------------------------------------------
// functionConfig

/** schemas/cozygateway.schema.json, precompiled at build time (scripts/embed-assets.js). */
function validateCozyGateway(o: unknown) {
  const validator = cozyGatewayValidator();
  const ok = validator(o);
  return ok ? [] : (validator.errors ?? []);
}

/** `/spec/values/publishing` → `spec.values.publishing`, `/a/0` → `a[0]`. */
function jsonPointerToField(p: string, extra?: string): string {
  const parts = p.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  let out = '';
  for (const s of parts) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

const OPTION_KEYS = ['values', 'reconcile', 'now', 'gatewayApiVersion', 'ciliumVersion', 'includeSecretData'];

/** Parse a ConfigMap data value as YAML, as `--set`-style users expect: `true`, `8443`, `[a, b]`. */
function yamlValue(s: string): { value?: unknown; problem?: string } {
  const doc = parseDocument(s);
  if (doc.errors.length) return { problem: doc.errors[0].message.split('\n')[0] };
  return { value: doc.toJS() };
}

function setDotted(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let cur = target;
  for (const p of parts.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
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
 * - `reconcile`, `now`, `gatewayApiVersion`, `ciliumVersion`, `includeSecretData`: the options
 *   of the CozyGateway spec.
 * Any other key is an error (a typo would otherwise be ignored silently).
 */
export function configFromConfigMap(cm: Record<string, unknown>): { config: FnConfig; findings: Finding[] } {
  const findings: Finding[] = [];
  const ref = refOfLoose(cm);
  const config: FnConfig = { values: [], reconcile: false, includeSecretData: false };
  const data = cm.data ?? {};
  if (!isObject(data)) {
    findings.push(error('functionConfig ConfigMap data must be a map of strings', { object: ref, field: 'data', rule: 'fn.config' }));
    return { config, findings };
  }
  const dotted: Record<string, unknown> = {};
  for (const key of Object.keys(data).sort()) {
    const raw = data[key];
    const text = typeof raw === 'string' ? raw : raw === null || raw === undefined ? '' : String(raw);
    const field = `data.${key}`;
    if (key === 'values') {
      const { value, problem } = yamlValue(text);
      if (problem) findings.push(error(`values is not valid YAML: ${problem}`, { object: ref, field, rule: 'fn.config', hint: 'fix the YAML of data.values (a block scalar: values: |)' }));
      else if (value === null || value === undefined) continue;
      else if (!isObject(value)) findings.push(error('values must hold a YAML mapping of platform values (publishing, gateway, ...)', { object: ref, field, rule: 'fn.config', hint: 'write data.values as a block scalar holding publishing: and gateway: keys' }));
      else config.values.unshift(value);
    } else if (key === 'reconcile' || key === 'includeSecretData') {
      const b = asBool(text.trim());
      if (b === undefined) findings.push(error(`${key} must be true or false, got ${JSON.stringify(text)}`, { object: ref, field, rule: 'fn.config', hint: `write ${key}=true or ${key}=false` }));
      else config[key] = b;
    } else if (key === 'now' || key === 'gatewayApiVersion' || key === 'ciliumVersion') {
      config[key] = text.trim();
    } else if (key.includes('.') && !key.startsWith('.') && !key.endsWith('.') && !key.includes('..')) {
      const { value, problem } = yamlValue(text);
      if (problem) findings.push(error(`${key}: not a valid YAML value: ${problem}`, { object: ref, field, rule: 'fn.config' }));
      else setDotted(dotted, key, value === undefined ? null : value);
    } else {
      findings.push(error(`unknown functionConfig key "${key}"`, {
        object: ref, field, rule: 'fn.config',
        hint: `use a dotted platform value path such as publishing.host or gateway.enabled, "values" (a YAML document), or one of ${OPTION_KEYS.slice(1).join(', ')}`,
      }));
    }
  }
  if (Object.keys(dotted).length) config.values.push(dotted);
  checkNow(config, ref, 'data.now', findings);
  return { config, findings };
}

function checkNow(config: FnConfig, ref: ObjRef, field: string, findings: Finding[]): void {
  if (config.now === undefined) return;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(config.now) || Number.isNaN(Date.parse(config.now))) {
    findings.push(error(`now must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got ${JSON.stringify(config.now)}`, { object: ref, field, rule: 'fn.config', hint: 'a date, a T, a time and a zone: 2026-01-01T00:00:00Z' }));
  }
}

/** The keys of a CozyGateway spec (schemas/cozygateway.schema.json). */
const SPEC_KEYS = ['values', 'reconcile', 'now', 'gatewayApiVersion', 'ciliumVersion', 'includeSecretData'];

/** The CozyGateway form: checked against schemas/cozygateway.schema.json, every problem at once. */
export function configFromCozyGateway(cg: Record<string, unknown>): { config: FnConfig; findings: Finding[] } {
  const findings: Finding[] = [];
  const ref = refOfLoose(cg);
  const config: FnConfig = { values: [], reconcile: false, includeSecretData: false };
  for (const e of validateCozyGateway(cg)) {
    const extra = e.keyword === 'additionalProperties' ? String((e.params as { additionalProperty?: string }).additionalProperty) : undefined;
    const field = jsonPointerToField(e.instancePath, extra) || undefined;
    const msg = e.keyword === 'additionalProperties' ? `unknown field ${extra}` : `${e.message ?? 'invalid'}${e.keyword === 'enum' || e.keyword === 'const' ? ` (${JSON.stringify(e.params)})` : ''}`;
    const hint = e.keyword === 'additionalProperties'
      ? (field === 'spec' || field?.startsWith('spec.') ? `remove it or check its spelling: a ${FN_KIND} spec holds ${SPEC_KEYS.join(', ')}` : 'remove it or check its spelling')
      : hintOf(e as Parameters<typeof hintOf>[0], field ?? '');
    findings.push(error(`functionConfig ${FN_KIND}: ${msg}`, { object: ref, field, rule: 'fn.config.schema', hint }));
  }
  // What is well-formed is still used, so the render reports its own failures beside these.
  const spec = (isObject(cg.spec) ? cg.spec : {}) as Record<string, unknown>;
  if (isObject(spec.values)) config.values.push(spec.values);
  if (typeof spec.reconcile === 'boolean') config.reconcile = spec.reconcile;
  if (typeof spec.includeSecretData === 'boolean') config.includeSecretData = spec.includeSecretData;
  for (const k of ['now', 'gatewayApiVersion', 'ciliumVersion'] as const) if (typeof spec[k] === 'string') config[k] = spec[k] as string;
  checkNow(config, ref, 'spec.now', findings);
  return { config, findings };
}

/** Read the functionConfig, whichever form it takes; none at all means the chart defaults. */
export function parseFunctionConfig(fc: unknown): { config: FnConfig; findings: Finding[] } {
  if (fc === undefined || fc === null || (isObject(fc) && Object.keys(fc).length === 0)) {
    return { config: { values: [], reconcile: false, includeSecretData: false }, findings: [] };
  }
  if (!isObject(fc)) {
    return { config: { values: [], reconcile: false, includeSecretData: false }, findings: [error('functionConfig must be an object', { field: 'functionConfig', rule: 'fn.config' })] };
  }
  if (fc.kind === 'ConfigMap' && (fc.apiVersion === 'v1' || fc.apiVersion === undefined)) return configFromConfigMap(fc);
  if (fc.kind === FN_KIND) return configFromCozyGateway(fc);
  return {
    config: { values: [], reconcile: false, includeSecretData: false },
    findings: [error(`functionConfig must be a ${FN_API_VERSION} ${FN_KIND} or a v1 ConfigMap, got ${String(fc.apiVersion)} ${String(fc.kind)}`, { object: refOfLoose(fc), rule: 'fn.config', hint: `write a ${FN_API_VERSION} ${FN_KIND} with spec.values, or pass key=value arguments (kpt makes a ConfigMap of them)` })],
  };
}

// ---------------------------------------------------------------------------------------------
// items

function refOfLoose(o: Record<string, unknown>): ObjRef {
  const md = isObject(o.metadata) ? o.metadata : {};
  const r: ObjRef = { apiVersion: String(o.apiVersion ?? ''), kind: String(o.kind ?? ''), name: String(md.name ?? '') };
  if (typeof md.namespace === 'string' && md.namespace) r.namespace = md.namespace;
  return r;
}

function annotationOf(o: unknown, name: string): string | undefined {
  if (!isObject(o) || !isObject(o.metadata) || !isObject(o.metadata.annotations)) return undefined;
  const v = o.metadata.annotations[name];
  return typeof v === 'string' ? v : undefined;
}

export function isGenerated(o: unknown): boolean {
  return annotationOf(o, GENERATED_ANNOTATION) === 'true';
}

/** kpt's own objects and local-config objects: passed through, never read as inputs. */
export function isMetaOrLocal(o: unknown): boolean {
  if (!isObject(o)) return false;
  if (o.kind === 'Kptfile' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('kpt.dev/')) return true;
  if (typeof o.apiVersion === 'string' && o.apiVersion.startsWith('fn.cozystack.io/')) return true; // our own config
  return annotationOf(o, LOCAL_CONFIG_ANNOTATION) === 'true';
}

/** Where an item lives in the package (internal annotation first, then the legacy one). */
export function fileOf(o: unknown): { path: string; index?: number } | undefined {
  const p = annotationOf(o, PATH_ANNOTATION) ?? annotationOf(o, LEGACY_PATH_ANNOTATION);
  if (!p) return undefined;
  const i = annotationOf(o, INDEX_ANNOTATION) ?? annotationOf(o, LEGACY_INDEX_ANNOTATION);
  return i !== undefined && /^\d+$/.test(i) ? { path: p, index: Number(i) } : { path: p };
}

/** A `v1 List` or any `*List` kind with an items array (cli-contract "Inputs"). */
function isListObject(o: unknown): o is Record<string, unknown> & { items: unknown[] } {
  return isObject(o) && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items);
}

/** The objects of a List, nested Lists flattened too. */
function flattenList(o: { items: unknown[] }): unknown[] {
  return o.items.flatMap((it) => (isListObject(it) ? flattenList(it) : [it]));
}

function isKObject(o: unknown): o is KObject {
  return isObject(o) && typeof o.apiVersion === 'string' && o.apiVersion !== '' && typeof o.kind === 'string' && o.kind !== ''
    && isObject(o.metadata) && typeof o.metadata.name === 'string' && o.metadata.name !== '';
}

/** `cozy-gw/<namespace>/<kind>-<name>.yaml`; cluster-scoped objects under `cozy-gw/_cluster/`. */
export function generatedPath(o: KObject): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  const ns = o.metadata.namespace ? safe(o.metadata.namespace) : '_cluster';
  return `${GENERATED_DIR}/${ns}/${o.kind.toLowerCase()}-${safe(o.metadata.name)}.yaml`;
}

/** Mark objects as generated and, in ResourceList mode, give each a file in the package. */
export function annotateGenerated(objs: KObject[], withPath: boolean): KObject[] {
  const used = new Map<string, number>();
  return objs.map((o0) => {
    const o = clone(o0);
    const ann: Record<string, string> = { ...(o.metadata.annotations ?? {}) };
    ann[GENERATED_ANNOTATION] = 'true';
    if (withPath) {
      const p = generatedPath(o);
      const index = used.get(p) ?? 0;
      used.set(p, index + 1);
      ann[PATH_ANNOTATION] = p;
      ann[INDEX_ANNOTATION] = String(index);
      ann[LEGACY_PATH_ANNOTATION] = p;
      ann[LEGACY_INDEX_ANNOTATION] = String(index);
    }
    o.metadata.annotations = ann;
    return o;
  });
}

// ---------------------------------------------------------------------------------------------
// results

/** A finding as a `results` entry, its file taken from the item it names (or the config). */
export function toResult(f: Finding, items: unknown[], functionConfig: unknown): KrmResult {
  const hint = fullHint(f);
  const r: KrmResult = { message: hint ? `${f.message} (${hint})` : f.message, severity: f.severity };
  const about = f.object;
  if (about) {
    r.resourceRef = { apiVersion: about.apiVersion, kind: about.kind, name: about.name };
    if (about.namespace) r.resourceRef.namespace = about.namespace;
  }
  if (f.field) r.field = { path: f.field };
  let file: { path: string; index?: number } | undefined;
  if (about) {
    const k = keyOf(about);
    const item = items.find((it) => isKObject(it) && keyOf(it) === k) ?? (isObject(functionConfig) && isKObject(functionConfig) && keyOf(functionConfig) === k ? functionConfig : undefined);
    file = item ? fileOf(item) : undefined;
  }
  if (!file && f.file) file = { path: f.file };
  if (file) r.file = file;
  if (f.rule) r.tags = { rule: f.rule };
  return r;
}

// ---------------------------------------------------------------------------------------------
// the function

export interface FnRun {
  /** Items that go out: the pass-through ones (the same objects as came in) and the new ones. */
  items: unknown[];
  /** The new items only, annotated. */
  generated: KObject[];
  findings: Finding[];
  exitCode: number;
}

/**
 * The function over plain items: split the inputs from what passes through, render (and
 * reconcile), and assemble the output items. On any error the items go out as they came in.
 */
export function runFunction(items: unknown[], functionConfig: unknown, opts: FnOptions): FnRun {
  const findings: Finding[] = [];
  const { config, findings: cf } = parseFunctionConfig(functionConfig);
  findings.push(...cf);
  const inputs: KObject[] = [];
  const keep: unknown[] = [];
  items.forEach((it, i) => {
    if (isGenerated(it)) return; // replaced by this run's output
    keep.push(it);
    if (isMetaOrLocal(it)) return;
    // cli-contract "Inputs": `kind: List` and any `*List` kind are flattened into their items;
    // the List itself passes through untouched, its items are read as inputs.
    if (isListObject(it)) {
      flattenList(it).forEach((sub, j) => {
        if (isKObject(sub)) inputs.push(sub);
        else findings.push(error('item is not a Kubernetes object (it needs apiVersion, kind and metadata.name)', { field: `items[${i}].items[${j}]`, file: fileOf(it)?.path, rule: 'fn.item' }));
      });
      return;
    }
    if (!isKObject(it)) {
      const f = fileOf(it);
      findings.push(error('item is not a Kubernetes object (it needs apiVersion, kind and metadata.name)', { field: `items[${i}]`, file: f?.path, rule: 'fn.item' }));
      return;
    }
    inputs.push(it);
  });
  // Every failure at once: the engine runs even when the config or an item was refused.

  const eo: GenerateOptions = {
    values: config.values,
    valuesFile: configFileOf(functionConfig, items)?.path ?? 'functionConfig',
    render: true,
    reconcile: config.reconcile,
    now: config.now ?? opts.defaultNow,
    gatewayApiVersion: config.gatewayApiVersion,
    ciliumVersion: config.ciliumVersion,
    includeSecretData: config.includeSecretData,
    includeHint: 'set includeSecretData: true in the CozyGateway spec (includeSecretData=true as a kpt argument)',
  };
  const res = generate(inputs, eo);
  findings.push(...res.findings.map((f) => attributeValuesFinding(f, eo.valuesFile, functionConfig, items)));
  if (hasErrors(findings)) return { items, generated: [], findings, exitCode: 1 };
  const generated = annotateGenerated([...res.objects].sort(compareObjects), opts.pathAnnotations !== false);
  return { items: [...keep, ...generated], generated, findings, exitCode: 0 };
}

/**
 * The file of the functionConfig: its own path annotation, or that of the item it was read
 * from (kpt fn render passes a `configPath` file in as an item too, with its path).
 */
function configFileOf(functionConfig: unknown, items: unknown[]): { path: string; index?: number } | undefined {
  const own = fileOf(functionConfig);
  if (own || !isKObject(functionConfig)) return own;
  const k = keyOf(functionConfig);
  const item = items.find((it) => isKObject(it) && keyOf(it) === k);
  return item ? fileOf(item) : undefined;
}

/** A finding about the platform values names the functionConfig and the field inside it. */
function attributeValuesFinding(f: Finding, valuesFile: string, functionConfig: unknown, items: unknown[]): Finding {
  if (f.file !== valuesFile || f.object || !isObject(functionConfig)) return f;
  const out: Finding = { ...f, object: refOfLoose(functionConfig) };
  const isCm = functionConfig.kind === 'ConfigMap';
  if (f.field) {
    const data = isObject(functionConfig.data) ? functionConfig.data : {};
    out.field = !isCm ? `spec.values.${f.field}` : f.field in data || !('values' in data) ? `data.${f.field}` : 'data.values';
  }
  const file = configFileOf(functionConfig, items);
  if (file) out.file = file.path;
  else delete out.file;
  delete out.line;
  return out;
}

/** The pure entry point over a parsed ResourceList. */
export function processResourceList(rl: unknown, opts: FnOptions): { output: ResourceList; exitCode: number; findings: Finding[] } {
  const check = checkResourceList(rl);
  if (check) {
    const output: ResourceList = { apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: isObject(rl) && Array.isArray(rl.items) ? rl.items : [] };
    output.results = [toResult(check, [], undefined)];
    return { output, exitCode: 1, findings: [check] };
  }
  const list = rl as ResourceList;
  const run = runFunction(list.items ?? [], list.functionConfig, opts);
  const output: ResourceList = { ...list, items: run.items };
  const mine = run.findings.map((f) => toResult(f, list.items ?? [], list.functionConfig));
  const results = [...(Array.isArray(list.results) ? list.results : []), ...mine];
  if (results.length) output.results = results;
  else delete output.results;
  // The same file on stderr as in the results: the item's file in the package.
  const findings = run.findings.map((f, i) => (mine[i].file && mine[i].file!.path !== f.file ? { ...f, file: mine[i].file!.path, line: undefined } : f));
  return { output, exitCode: run.exitCode, findings };
}

function checkResourceList(rl: unknown): Finding | undefined {
  if (!isObject(rl)) return error('standard input is not a ResourceList (expected a YAML or JSON object of kind ResourceList)', { rule: 'fn.input' });
  if (rl.kind !== 'ResourceList') return error(`standard input is a ${String(rl.kind)}, not a ResourceList`, { rule: 'fn.input', hint: 'run cozy-gw fn under kpt or kustomize, or pipe a config.kubernetes.io/v1 ResourceList into it' });
  if (typeof rl.apiVersion !== 'string' || !RESOURCE_LIST_VERSIONS.includes(rl.apiVersion)) {
    return error(`ResourceList apiVersion ${JSON.stringify(rl.apiVersion)} is not supported`, { rule: 'fn.input', field: 'apiVersion', hint: `use ${RESOURCE_LIST_VERSIONS.join(' or ')}` });
  }
  if (rl.items !== undefined && rl.items !== null && !Array.isArray(rl.items)) return error('ResourceList items must be a list', { rule: 'fn.input', field: 'items' });
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// text in, text out, comments kept

/** kpt's own layout (compact sequences), and no folding of long lines. */
const STRINGIFY = { lineWidth: 0, minContentWidth: 0, indentSeq: false } as const;

/** A node for a new object, written the YAML-1.1-safe way (js-yaml quotes `yes`, `0777`, ...). */
function newNode(doc: Document, value: unknown, failsafe: boolean): Node {
  const parsed = parseDocument(dumpYaml(value), failsafe ? { schema: 'failsafe' } : {});
  return (parsed.contents as Node | null) ?? (doc.createNode(value) as Node);
}

export interface TextRun {
  stdout: string;
  exitCode: number;
  findings: Finding[];
}

/**
 * The ResourceList protocol on text: the items that pass through keep their YAML nodes,
 * comments and quoting included, so kpt writes the user's files back as they were.
 */
export function processResourceListText(text: string, opts: FnOptions): TextRun {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const f = error(`standard input is not valid YAML: ${e.message.split('\n')[0]}`, { rule: 'fn.input', file: '<stdin>', line: e.linePos?.[0]?.line });
    return writeBare(f);
  }
  const rl = doc.toJS({ maxAliasCount: -1 }) as unknown;
  const { output, exitCode, findings } = processResourceList(rl, opts);
  if (!isObject(rl) || rl.kind !== 'ResourceList' || !isMap(doc.contents)) {
    return { stdout: dumpYaml(output), exitCode, findings };
  }
  // cli-contract `fn`, decisions §9: items that came in pass through unchanged, scalars included.
  // The output is written from the same text read with the failsafe schema, where every scalar
  // is its source text: a number such as `1e3`, `0x1F` or `012` is written back as it was, not
  // as the YAML 1.2 reader's number re-printed (`1e+3`, `0x1f`, `12`), which a YAML 1.1 reader
  // (PyYAML, kubectl) would load as another value.
  const raw = parseDocument(text, { keepSourceTokens: false, schema: 'failsafe' });
  const text1 = raw.errors.length === 0 && raw.warnings.length === 0 && isMap(raw.contents);
  return writeItems(text1 ? raw : doc, rl, output, exitCode, findings, text1);
}

function writeItems(doc: Document, rl: Record<string, unknown>, output: ResourceList, exitCode: number, findings: Finding[], failsafe: boolean): TextRun {
  const nodeOf = (_d: Document, value: unknown) => newNode(doc, value, failsafe);
  // Map every input item (as plain data) back to its node.
  const inItems = Array.isArray(rl.items) ? (rl.items as unknown[]) : [];
  const seqNode = doc.get('items', true);
  const nodes = new Map<unknown, Node>();
  if (isSeq(seqNode)) inItems.forEach((it, i) => nodes.set(it, seqNode.items[i] as Node));
  const seq = new YAMLSeq();
  for (const it of output.items) {
    const n = nodes.get(it);
    seq.items.push(n ? headCommentInside(n) : nodeOf(doc, it));
  }
  if (isSeq(seqNode)) {
    seq.commentBefore = seqNode.commentBefore;
    seq.comment = seqNode.comment;
  }
  doc.set('items', seq);
  if (output.results?.length) doc.set('results', nodeOf(doc, output.results));
  else doc.delete('results');
  return { stdout: doc.toString(STRINGIFY), exitCode, findings };
}

/**
 * A comment above an item's first key (`- # comment` then `  apiVersion: ...`, as kpt writes
 * it) stays on that key: written before the `-` instead, kpt would read it as a second comment
 * and write it into the user's file twice.
 */
function headCommentInside(n: Node): Node {
  if (isMap(n) && n.commentBefore && n.items.length > 0 && isScalar(n.items[0].key)) {
    const key = n.items[0].key as Scalar;
    key.commentBefore = key.commentBefore ? `${n.commentBefore}\n${key.commentBefore}` : n.commentBefore;
    n.commentBefore = undefined;
  }
  return n;
}

function writeBare(f: Finding): TextRun {
  const output: ResourceList = { apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [], results: [toResult(f, [], undefined)] };
  return { stdout: dumpYaml(output), exitCode: 1, findings: [f] };
}

// ---------------------------------------------------------------------------------------------
// the kustomize legacy exec plugin: config file as argument, manifests on stdin and stdout

/**
 * kustomize's exec plugin protocol (the one `kubectl kustomize --enable-alpha-plugins` runs):
 * the plugin's config (our CozyGateway) as a file, the resources as a YAML stream on stdin,
 * the resulting stream on stdout. Documents that pass through are written back as they came
 * (comments kept); new objects follow, without kpt's path annotations. On error nothing is
 * written (kustomize fails the build).
 */
export function processKustomizeStream(text: string, configText: string, opts: FnOptions): TextRun {
  const findings: Finding[] = [];
  let functionConfig: unknown;
  const cdoc = parseDocument(configText);
  if (cdoc.errors.length) findings.push(error(`plugin config is not valid YAML: ${cdoc.errors[0].message.split('\n')[0]}`, { rule: 'fn.config' }));
  else functionConfig = cdoc.toJS();
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const items: unknown[] = [];
  const docOf = new Map<unknown, Document>();
  for (const d of list) {
    if (d.errors.length) {
      findings.push(error(`standard input is not valid YAML: ${d.errors[0].message.split('\n')[0]}`, { rule: 'fn.input', file: '<stdin>', line: d.errors[0].linePos?.[0]?.line }));
      continue;
    }
    const v = d.toJS({ maxAliasCount: -1 }) as unknown;
    if (v === null || v === undefined) continue;
    if (isObject(v) && typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items)) {
      items.push(...v.items); // flattened; written back as plain objects
      continue;
    }
    items.push(v);
    docOf.set(v, d);
  }
  if (findings.length) return { stdout: '', exitCode: 1, findings };
  const run = runFunction(items, functionConfig, { ...opts, pathAnnotations: false });
  if (run.exitCode !== 0) return { stdout: '', exitCode: run.exitCode, findings: run.findings };
  const out = run.items.map((it) => {
    const d = docOf.get(it);
    return d ? stripDocMarkers(d.toString(STRINGIFY)) : dumpYaml(it);
  });
  return { stdout: out.join('---\n'), exitCode: 0, findings: run.findings };
}

function stripDocMarkers(s: string): string {
  return s.replace(/^---\n/, '').replace(/\n\.\.\.\n?$/, '\n');
}
