/**
 * `cozy-gw post-render`: a Helm post-renderer (docs/commands/post-render.md). Pure: the
 * manifests Helm rendered in, the same manifests plus the controller's objects for every
 * TenantGateway among them out.
 *
 * - Every input document goes out byte for byte: the input text is written first, unchanged,
 *   annotations (`postrenderer.helm.sh/postrender-filename` included) and comments with it.
 * - The controller pass runs once over the stream's objects; the objects it creates follow,
 *   each marked with the generated annotation. When Helm 4 named the input documents with
 *   `postrenderer.helm.sh/postrender-filename`, the new ones get a name of the same kind, so
 *   Helm files them under the release's manifests.
 * - A namespaced object without `metadata.namespace` (Helm charts usually omit it) is where Helm
 *   installs it, the release namespace (`namespace`: `--namespace`, else HELM_NAMESPACE): the
 *   pass reads it there and creates its objects there. A TenantGateway without one while the
 *   release namespace is unknown is an error, never a Gateway admitting routes from namespace "".
 * - Never empty output: an empty stream is an error (Helm would install nothing).
 * - Errors are findings (the edge prints them on stderr, exit 1, nothing on stdout).
 */
import * as jsyaml from 'js-yaml';
import { loadAllFast } from '../k8s/yamlFastRead';
import { checkParsed, checkText } from '../k8s/limits';
import { error, hasErrors, type Finding } from '../k8s/diagnostics';
import { isObject, refOf, type KObject } from '../k8s/model';
import { placeInNamespace } from '../k8s/scope';
import { isTenantGateway } from '../platform/kinds';
import { isList } from '../k8s/lists';
import { generate } from '../pipelines/generate';
import { GENERATED_ANNOTATION, generatedPath } from './krm/items';
import { LOAD_OPTIONS, toYamlStream } from '../k8s/yaml';
import { pushAll } from '../k8s/arrays';
import type { CozystackVersion } from '../platform/cozystackVersions';

export const HELM_FILENAME_ANNOTATION = 'postrenderer.helm.sh/postrender-filename';

export interface PostRenderOptions {
  /** Platform values layers (`--values`), merged left to right. */
  values: { file: string; values: Record<string, unknown> }[];
  now: string;
  ciliumVersion?: string;
  /** The Cozystack version whose controller runs (docs/versions.md §7); absent: main. */
  cozystack?: CozystackVersion;
  includeSecretData: boolean;
  /** Helm's release namespace: where a namespaced object without `metadata.namespace` lives. */
  namespace?: string;
}

export interface PostRenderResult {
  stdout: string;
  findings: Finding[];
  exitCode: number;
}

function objectsOfStream(text: string, findings: Finding[]): KObject[] {
  const out: KObject[] = [];
  let docs: unknown[] = [];
  const tooBig = checkText(text);
  if (tooBig) {
    findings.push(error(tooBig.message, { file: '<stdin>', line: tooBig.line, rule: 'input.limit' }));
    return out;
  }
  try {
    // The layout Helm writes is read by the fast reader with js-yaml's values; the rest by js-yaml.
    const fast = loadAllFast(text);
    if (fast) docs = fast;
    else jsyaml.loadAll(text, (d) => docs.push(d), { ...LOAD_OPTIONS, filename: '<stdin>' });
    const over = checkParsed(text, docs);
    if (over) {
      findings.push(error(over.message, { file: '<stdin>', line: over.line, rule: 'input.limit' }));
      return out;
    }
  } catch (e) {
    const ye = e as jsyaml.YAMLException;
    findings.push(
      error(`the manifests on standard input are not valid YAML: ${ye.reason ?? ye.message}`, {
        file: '<stdin>',
        line: ye.mark ? ye.mark.line + 1 : undefined,
        rule: 'post-render.input',
      }),
    );
    docs = [];
  }
  const visit = (d: unknown) => {
    if (!isObject(d)) return;
    if (isList(d)) return d.items.forEach(visit);
    const md = d.metadata;
    if (
      typeof d.apiVersion === 'string' &&
      typeof d.kind === 'string' &&
      isObject(md) &&
      typeof md.name === 'string' &&
      md.name
    )
      out.push(d as KObject);
  };
  docs.forEach(visit);
  return out;
}

/** The post-renderer over text. */
export function postRender(text: string, opts: PostRenderOptions): PostRenderResult {
  const findings: Finding[] = [];
  if (text.trim() === '') {
    findings.push(
      error('no manifests on standard input', {
        rule: 'post-render.input',
        hint: 'a post-renderer gets the manifests Helm rendered on standard input and must never write empty output',
      }),
    );
    return { stdout: '', findings, exitCode: 1 };
  }
  const read = objectsOfStream(text, findings);
  if (opts.namespace === undefined)
    for (const o of read)
      if (isTenantGateway(o) && !o.metadata.namespace)
        findings.push(
          error('has no namespace, and the release namespace is unknown: Helm installs it in the release namespace', {
            file: '<stdin>',
            object: refOf(o),
            field: 'metadata.namespace',
            rule: 'post-render.namespace',
            hint: 'pass the release namespace: --namespace NS, which Helm 3 passes on as --post-renderer-args --namespace=NS; or set HELM_NAMESPACE',
          }),
        );
  if (hasErrors(findings)) return { stdout: '', findings, exitCode: 1 };
  const objects = opts.namespace === undefined ? read : placeInNamespace(read, opts.namespace).objects;
  const res = generate(objects, {
    values: opts.values.map((v) => v.values),
    valuesFile: opts.values.length === 1 ? opts.values[0].file : opts.values.map((v) => v.file).join(','),
    render: false,
    reconcile: true,
    now: opts.now,
    ciliumVersion: opts.ciliumVersion,
    cozystack: opts.cozystack,
    includeSecretData: opts.includeSecretData,
  });
  pushAll(findings, res.findings);
  if (hasErrors(findings)) return { stdout: '', findings, exitCode: 1 };
  const helmNamed = objects.some((o) => typeof o.metadata.annotations?.[HELM_FILENAME_ANNOTATION] === 'string');
  const added = res.objects.map((o) => {
    const ann: Record<string, string> = { ...(o.metadata.annotations ?? {}), [GENERATED_ANNOTATION]: 'true' };
    if (helmNamed) ann[HELM_FILENAME_ANNOTATION] = generatedPath(o);
    return { ...o, metadata: { ...o.metadata, annotations: ann } };
  });
  if (added.length === 0) return { stdout: text, findings, exitCode: 0 };
  return { stdout: joinStreams(text, toYamlStream(added)), findings, exitCode: 0 };
}

/** The input text unchanged, then a document separator, then the new documents. */
export function joinStreams(input: string, more: string): string {
  const head = input.endsWith('\n') ? input : `${input}\n`;
  const endsWithSeparator = /(^|\n)---[ \t]*\n$/.test(head);
  return `${head}${endsWithSeparator ? '' : '---\n'}${more}`;
}
