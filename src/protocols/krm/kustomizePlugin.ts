/**
 * The kustomize legacy exec plugin: config file as argument, manifests on stdin and stdout.
 * Pure: text in, text out.
 */
import { CST, Parser, parseAllDocuments, parseDocument } from 'yaml';
import { error, type Finding } from '../../k8s/diagnostics';
import { flattenList, isList } from '../../k8s/lists';
import { dumpYaml } from '../../k8s/yaml';
import { runFunction, type FnOptions } from './function';
import type { TextRun } from './text';
import { yamlProblem } from './config';
import { checkParsed, checkText, documentSpans, exceedsLimits } from '../../k8s/limits';
import { pushAll } from '../../k8s/arrays';

/**
 * kustomize's exec plugin protocol (the one `kubectl kustomize --enable-alpha-plugins` runs):
 * the plugin's config (our CozyGateway) as a file, the resources as a YAML stream on stdin,
 * the resulting stream on stdout. Documents that pass through are written back as the very
 * bytes they came as (comments, flow style, quoting); new objects follow, without kpt's path
 * annotations. On error nothing is written (kustomize fails the build).
 */
export function processKustomizeStream(text: string, configText: string, opts: KustomizeOptions): TextRun {
  const { configFile, ...fnOptions } = opts;
  const run = kustomizeRun(text, configText, fnOptions);
  if (configFile === undefined) return run;
  return {
    ...run,
    findings: run.findings.map((f) => (isConfigFinding(f) && !f.file ? { ...f, file: configFile } : f)),
  };
}

export interface KustomizeOptions extends FnOptions {
  /**
   * The file the plugin config was read from (kustomize passes it as the first argument; absent
   * when the config came in KUSTOMIZE_PLUGIN_CONFIG_STRING): a config finding names it.
   */
  configFile?: string;
}

/** A finding about the plugin config: fn.config and its sub-rules (fn.config.limit, fn.config.schema). */
function isConfigFinding(f: Finding): boolean {
  return Boolean(f.rule?.startsWith('fn.config'));
}

function kustomizeRun(text: string, configText: string, opts: FnOptions): TextRun {
  const findings: Finding[] = [];
  let functionConfig: unknown;
  // docs/decisions.md §13, as on every other channel: a document too large is refused before it is
  // parsed, one that expands past the bounds (an alias bomb) after parsing, aliases kept shared.
  const configTooBig = checkText(configText);
  if (configTooBig)
    return refused(
      error(`plugin config: ${configTooBig.message}`, { rule: 'fn.config.limit', line: configTooBig.line }),
    );
  const cdoc = parseDocument(configText);
  if (cdoc.errors.length)
    findings.push(
      error(`plugin config is not valid YAML: ${yamlProblem(cdoc.errors[0])}`, {
        rule: 'fn.config',
        line: cdoc.errors[0].linePos?.[0]?.line,
      }),
    );
  else {
    functionConfig = cdoc.toJS({ maxAliasCount: -1 });
    const over = checkParsed(configText, [functionConfig]);
    if (over) return refused(error(`plugin config: ${over.message}`, { rule: 'fn.config.limit', line: over.line }));
  }
  const tooBig = checkText(text);
  if (tooBig)
    return refused(
      error(`standard input: ${tooBig.message}`, { rule: 'input.limit', file: '<stdin>', line: tooBig.line }),
    );
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const sources = documentSources(text);
  const items: unknown[] = [];
  const sourceOf = new Map<unknown, string>();
  for (const [i, d] of list.entries()) {
    if (d.errors.length) {
      findings.push(
        error(`standard input is not valid YAML: ${yamlProblem(d.errors[0])}`, {
          rule: 'fn.input',
          file: '<stdin>',
          line: d.errors[0].linePos?.[0]?.line,
        }),
      );
      continue;
    }
    const v = d.toJS({ maxAliasCount: -1 }) as unknown;
    if (v === null || v === undefined) continue;
    const why = exceedsLimits(v);
    if (why) {
      // Placed as every channel places a document: at its `---` line (documentSpans).
      findings.push(
        error(`standard input: the YAML document ${why}`, {
          rule: 'input.limit',
          file: '<stdin>',
          line: documentSpans(text)[i]?.line ?? 1,
        }),
      );
      continue;
    }
    if (isList(v)) {
      pushAll(items, flattenList(v)); // flattened; written back as plain objects
      continue;
    }
    items.push(v);
    sourceOf.set(v, sources.length === list.length ? sources[i] : stripDocMarkers(d.toString()));
  }
  if (findings.length) return { stdout: '', exitCode: 1, findings };
  const run = runFunction(items, functionConfig, { ...opts, pathAnnotations: false });
  if (run.exitCode !== 0) return { stdout: '', exitCode: run.exitCode, findings: run.findings };
  const out = run.items.map((it) => {
    const src = sourceOf.get(it);
    return src !== undefined ? src : dumpYaml(it);
  });
  return { stdout: out.join('---\n'), exitCode: 0, findings: run.findings };
}

function refused(f: Finding): TextRun {
  return { stdout: '', exitCode: 1, findings: [f] };
}

/**
 * The source text of each document of a stream, the comments above it included, without its
 * `---` and `...` markers, ending in a newline.
 */
function documentSources(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const tok of new Parser().parse(text)) {
    if (tok.type === 'document') {
      const src = stripDocMarkers(pending + CST.stringify(tok));
      out.push(src.endsWith('\n') ? src : `${src}\n`);
      pending = '';
    } else if (tok.type === 'comment' || tok.type === 'newline' || tok.type === 'space') {
      pending += CST.stringify(tok);
    }
  }
  return out;
}

function stripDocMarkers(s: string): string {
  return s.replace(/^((?:[ \t]*(?:#.*)?\n)*)---[ \t]*\n/, '$1').replace(/\n\.\.\.\n?$/, '\n');
}
