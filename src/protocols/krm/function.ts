/**
 * `cozy-gw fn`: the KRM function (KRM Functions Specification, as kpt and kustomize run it).
 *
 * Pure: a ResourceList in, a ResourceList out, findings as data. The command module
 * (src/cli/commands/fn.ts) reads standard input and writes standard output.
 *
 * The rules it keeps (docs/commands/fn.md, docs/decisions.md §9, and what kpt does with a
 * function's output):
 * - functionConfig is a `fn.cozystack.io/v1alpha1 CozyGateway` (schemas/cozygateway.schema.json)
 *   or a ConfigMap as `kpt fn eval -- key=value` makes one (see configFromConfigMap).
 * - Items that came in pass through unchanged, annotations included (kpt rewrites a file whose
 *   items lost their path annotations), in their order; they are the user's own files.
 * - The Kptfile, local-config objects and the function's own config are passed through and
 *   never read as inputs.
 * - Items a previous run generated (annotation GENERATED_ANNOTATION, in a file under the function's
 *   own folder `cozy-gw/`) are dropped and generated afresh, so a pipeline run twice gives the same
 *   package; a marked item elsewhere (a user's customised copy) is the user's and passes through.
 * - New items carry the generated marker and a path annotation, internal and legacy forms.
 * - New items come tenant by tenant (ARCHITECTURE.md "Rules of the house", Deterministic output; generateGroups), each
 *   made as it is written: the render runs once for the findings and again while the items go out.
 * - Every finding becomes a `results` entry (severity, resourceRef, field, file); an error
 *   makes exit code 1 (kpt shows [PASS] for error results with exit 0), and the output list
 *   is still written: on failure it holds the items exactly as they came in.
 */
import { error, hasErrors, warning, type Finding } from '../../k8s/diagnostics';
import { isObject, keyOf, type KObject } from '../../k8s/model';
import { isList, flattenList } from '../../k8s/lists';
import { generateGroups, type GenerateOptions } from '../../pipelines/generate';
import { parseFunctionConfig } from './config';
import {
  generatedMarker,
  withMarks,
  itemPathOf,
  isKObject,
  isMetaOrLocal,
  isOwnItem,
  normalPath,
  refOfLoose,
} from './items';
import { toResult, type KrmResult } from './results';
import { pushAll } from '../../k8s/arrays';
import { DEFAULT_COZYSTACK_VERSION, resolveCozystackVersion } from '../../platform/cozystackVersions';

export const RESOURCE_LIST_VERSIONS = ['config.kubernetes.io/v1', 'config.kubernetes.io/v1beta1'];

export interface ResourceList {
  apiVersion: string;
  kind: string;
  items: unknown[];
  functionConfig?: unknown;
  results?: KrmResult[];
  [key: string]: unknown;
}

export interface FnOptions {
  /** The clock for the controller pass when the config names none (the edge supplies it). */
  defaultNow: string;
  /** Add path annotations to new items (ResourceList mode: yes; kustomize plugin mode: no). */
  pathAnnotations?: boolean;
  /** The Cozystack version when the config names none (the edge reads COZY_GW_COZYSTACK_VERSION). */
  defaultCozystackVersion?: string;
}

/** The clock of a pipeline that names none and has no SOURCE_DATE_EPOCH. */
export { EPOCH as DEFAULT_NOW } from '../../k8s/time';

/** A new item: the rendered object and the annotations it goes out with (items.ts withMarks). */
export interface NewItem {
  object: KObject;
  marks: Record<string, string>;
}

/** A run whose new items are made as they are read (runFunctionStream). */
export interface FnStream {
  /** Items that pass through (the same objects as came in), in their order; on failure every item. */
  kept: unknown[];
  /**
   * The new items with their marks, made afresh (rendered again) on each walk and handed on one by
   * one: a caller writing them out holds one release's objects at a time, not the whole tree's.
   */
  generated: () => Iterable<NewItem>;
  findings: Finding[];
  exitCode: number;
}

export interface FnRun {
  /** Items that go out: the pass-through ones (the same objects as came in) and the new ones. */
  items: unknown[];
  /** The new items only, annotated. */
  generated: KObject[];
  findings: Finding[];
  exitCode: number;
}

/** The function over plain items, its output items all at once (runFunctionStream). */
export function runFunction(items: unknown[], functionConfig: unknown, opts: FnOptions): FnRun {
  const run = runFunctionStream(items, functionConfig, opts);
  const generated = [...run.generated()].map((n) => withMarks(n.object, n.marks));
  return { items: [...run.kept, ...generated], generated, findings: run.findings, exitCode: run.exitCode };
}

/**
 * The function over plain items: split the inputs from what passes through, render (and
 * reconcile), and assemble the output items. On any error the items go out as they came in.
 * Every finding is known before the first new item is made (generateGroups).
 */
export function runFunctionStream(items: unknown[], functionConfig: unknown, opts: FnOptions): FnStream {
  const findings: Finding[] = [];
  const { config, findings: cf } = parseFunctionConfig(functionConfig);
  pushAll(findings, cf);
  const inputs: KObject[] = [];
  const keep: unknown[] = [];
  items.forEach((it, i) => {
    if (isOwnItem(it)) return; // replaced by this run's output
    keep.push(it);
    if (isMetaOrLocal(it)) return;
    // docs/commands/render.md: `kind: List` and any `*List` kind are flattened into their items;
    // the List itself passes through untouched, its items are read as inputs.
    if (isList(it)) {
      flattenList(it).forEach((sub, j) => {
        if (isKObject(sub)) inputs.push(sub);
        else
          findings.push(
            error('item is not a Kubernetes object (it needs apiVersion, kind and metadata.name)', {
              field: `items[${i}].items[${j}]`,
              file: itemPathOf(it)?.path,
              rule: 'fn.item',
            }),
          );
      });
      return;
    }
    if (!isKObject(it)) {
      const f = itemPathOf(it);
      findings.push(
        error('item is not a Kubernetes object (it needs apiVersion, kind and metadata.name)', {
          field: `items[${i}]`,
          file: f?.path,
          rule: 'fn.item',
        }),
      );
      return;
    }
    inputs.push(it);
  });
  // Every failure at once: the engine runs even when the config or an item was refused.

  const eo: GenerateOptions = {
    cozystack: fnCozystackVersion(config.cozystackVersion, opts.defaultCozystackVersion, findings),
    values: config.values,
    valuesFile: configFileOf(functionConfig, items)?.path ?? 'functionConfig',
    render: true,
    reconcile: config.reconcile,
    now: config.now ?? opts.defaultNow,
    gatewayApiVersion: config.gatewayApiVersion,
    ciliumVersion: config.ciliumVersion,
    noteOmittedHooks: true,
    includeSecretData: config.includeSecretData,
    includeHint: 'set includeSecretData: true in the CozyGateway spec (includeSecretData=true as a kpt argument)',
  };
  const res = generateGroups(inputs, eo);
  pushAll(
    findings,
    res.findings.map((f) => attributeValuesFinding(f, eo.valuesFile, functionConfig, items)),
  );
  if (hasErrors(findings)) return { kept: items, generated: () => [], findings, exitCode: 1 };
  const withPath = opts.pathAnnotations !== false;
  const generated = function* () {
    // The files of what passes through: a new item never goes into one of them.
    const taken = new Set<string>();
    for (const it of keep) {
      const f = itemPathOf(it);
      const p = f && normalPath(f.path);
      if (p) taken.add(p);
    }
    const marksOf = generatedMarker(withPath, taken);
    for (const group of res.groups()) for (const object of group) yield { object, marks: marksOf(object) };
  };
  return { kept: keep, generated, findings, exitCode: 0 };
}

/**
 * The file of the functionConfig: its own path annotation, or that of the item it was read
 * from (kpt fn render passes a `configPath` file in as an item too, with its path).
 */
function configFileOf(functionConfig: unknown, items: unknown[]): { path: string; index?: number } | undefined {
  const own = itemPathOf(functionConfig);
  if (own || !isKObject(functionConfig)) return own;
  const k = keyOf(functionConfig);
  const item = items.find((it) => isKObject(it) && keyOf(it) === k);
  return item ? itemPathOf(item) : undefined;
}

/** A finding about the platform values names the functionConfig and the field inside it. */
function attributeValuesFinding(f: Finding, valuesFile: string, functionConfig: unknown, items: unknown[]): Finding {
  if (f.file !== valuesFile || f.object || !isObject(functionConfig)) return f;
  const out: Finding = { ...f, object: refOfLoose(functionConfig) };
  const isCm = functionConfig.kind === 'ConfigMap';
  if (f.field) {
    const data = isObject(functionConfig.data) ? functionConfig.data : {};
    out.field = !isCm
      ? `spec.values.${f.field}`
      : f.field in data || !('values' in data)
        ? `data.${f.field}`
        : 'data.values';
  }
  const file = configFileOf(functionConfig, items);
  if (file) out.file = file.path;
  else delete out.file;
  delete out.line;
  return out;
}

/**
 * Notes for whoever runs the function, printed on stderr but not written as `results`: the same on
 * every run and about no item (the Helm hooks the render left out, docs/decisions.md §Q5), they
 * would pile up in a package's ResourceList run after run.
 */
const NOTES_FOR_STDERR: ReadonlySet<string> = new Set(['render.hooks-omitted']);

/** The pure entry point over a parsed ResourceList. */
export function processResourceList(
  rl: unknown,
  opts: FnOptions,
): { output: ResourceList; exitCode: number; findings: Finding[] } {
  const run = processResourceListStream(rl, opts);
  const generated = [...run.generated()].map((n) => withMarks(n.object, n.marks));
  if (generated.length) run.output.items = [...run.output.items, ...generated];
  return { output: run.output, exitCode: run.exitCode, findings: run.findings };
}

/**
 * processResourceList with the new items apart, made as they are read (runFunctionStream): the
 * output's `items` are those that pass through, and the new ones follow them.
 */
export function processResourceListStream(
  rl: unknown,
  opts: FnOptions,
): { output: ResourceList; generated: () => Iterable<NewItem>; exitCode: number; findings: Finding[] } {
  const check = checkResourceList(rl);
  if (check) {
    const output: ResourceList = {
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: isObject(rl) && Array.isArray(rl.items) ? rl.items : [],
    };
    output.results = [toResult(check, [], undefined)];
    return { output, generated: () => [], exitCode: 1, findings: [check] };
  }
  const list = rl as ResourceList;
  const run = runFunctionStream(list.items ?? [], list.functionConfig, opts);
  const output: ResourceList = { ...list, items: run.kept };
  const mine = run.findings
    .filter((f) => !NOTES_FOR_STDERR.has(f.rule ?? ''))
    .map((f) => toResult(f, list.items ?? [], list.functionConfig));
  const results = [...(Array.isArray(list.results) ? list.results : []), ...mine];
  if (results.length) output.results = results;
  else delete output.results;
  // The same file on stderr as in the results: the item's file in the package.
  let i = 0;
  const findings = run.findings.map((f) => {
    if (NOTES_FOR_STDERR.has(f.rule ?? '')) return f;
    const m = mine[i++];
    return m.file && m.file.path !== f.file ? { ...f, file: m.file.path, line: undefined } : f;
  });
  return { output, generated: run.generated, exitCode: run.exitCode, findings };
}

function checkResourceList(rl: unknown): Finding | undefined {
  if (!isObject(rl))
    return error('standard input is not a ResourceList (expected a YAML or JSON object of kind ResourceList)', {
      rule: 'fn.input',
    });
  if (rl.kind !== 'ResourceList')
    return error(`standard input is a ${String(rl.kind)}, not a ResourceList`, {
      rule: 'fn.input',
      hint: 'run cozy-gw fn under kpt or kustomize, or pipe a config.kubernetes.io/v1 ResourceList into it',
    });
  if (typeof rl.apiVersion !== 'string' || !RESOURCE_LIST_VERSIONS.includes(rl.apiVersion)) {
    return error(`ResourceList apiVersion ${JSON.stringify(rl.apiVersion)} is not supported`, {
      rule: 'fn.input',
      field: 'apiVersion',
      hint: `use ${RESOURCE_LIST_VERSIONS.join(' or ')}`,
    });
  }
  if (rl.items !== undefined && rl.items !== null && !Array.isArray(rl.items))
    return error('ResourceList items must be a list', { rule: 'fn.input', field: 'items' });
  return undefined;
}

/**
 * The Cozystack version of a run (docs/versions.md "Choosing a version"): the config's
 * `cozystackVersion`, else COZY_GW_COZYSTACK_VERSION (the edge's default), else the newest release.
 * A value cozy-gw cannot resolve is a config error listing the versions; an unknown patch warns.
 */
function fnCozystackVersion(given: string | undefined, fallback: string | undefined, findings: Finding[]) {
  const text = given ?? (fallback || undefined);
  if (text === undefined) return DEFAULT_COZYSTACK_VERSION;
  const what = given !== undefined ? 'cozystackVersion' : 'COZY_GW_COZYSTACK_VERSION';
  const r = resolveCozystackVersion(text);
  if (!r.ok) {
    findings.push(error(`${what}: ${r.error}`, { field: given !== undefined ? what : undefined, rule: 'fn.config' }));
    return DEFAULT_COZYSTACK_VERSION;
  }
  if (r.warning) findings.push(warning(r.warning, { rule: 'version.unknown-patch' }));
  return r.version;
}
