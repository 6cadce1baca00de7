/**
 * The kustomize legacy exec plugin: config file as argument, manifests on stdin and stdout.
 * Pure: text in, text out.
 */
import { parseAllDocuments, parseDocument, type Document } from 'yaml';
import { error, type Finding } from '../../k8s/diagnostics';
import { flattenList, isList } from '../../k8s/lists';
import { dumpYaml } from '../../k8s/yaml';
import { runFunction, type FnOptions } from './function';
import { STRINGIFY, type TextRun } from './text';


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
    if (isList(v)) {
      items.push(...flattenList(v)); // flattened; written back as plain objects
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
