/**
 * A GitHub Actions runner, emulated closely enough to run the example workflows (examples/ci)
 * offline: the workflow's YAML parsed, each job's steps run in order as the runner runs them.
 *
 * - `run:` steps with bash as GitHub's ubuntu runners start it (`bash --noprofile --norc -eo
 *   pipefail`), in `working-directory` or the workspace, with the environment GitHub sets
 *   (GITHUB_WORKSPACE, GITHUB_SHA, GITHUB_REF, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, RUNNER_TEMP,
 *   GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STEP_SUMMARY, CI, ...) and the workflow's, job's and step's
 *   `env`; `${{ }}` expressions evaluated in `run`, `env`, `with`, `if` and `working-directory`
 *   (the contexts github, runner, env, steps; the status functions; ==, !=, &&, ||, !); step
 *   outputs read back from GITHUB_OUTPUT (both forms); a failed step skips the rest but for
 *   `always()` steps.
 * - `uses:` steps that need GitHub are stubbed, visibly (each stub's record says what it did):
 *   actions/checkout clones the test's origin repository at the event's commit (a pull request's
 *   merge ref, or the pushed branch), with the fetch depth asked for; actions/setup-node uses the
 *   node that runs the tests; actions/upload-artifact records the file; actions/github-script runs
 *   the script in node with a stub `github` client that records every call (listComments answers
 *   with the comments the test says exist).
 * - `npm` and `npx` are stubbed on PATH: `npm install ... cozy-gw@V` (or its package file) and `npx cozy-gw@V` give the
 *   CLI of this checkout (bin/cozy-gw.js); anything else fails the step, naming the call.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { BIN, tmpDir } from './kpt';

type Obj = Record<string, unknown>;

export interface Step {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  'working-directory'?: string;
}
export interface Workflow {
  on: Obj;
  env?: Record<string, unknown>;
  permissions?: Obj;
  jobs: Record<string, { env?: Record<string, unknown>; steps: Step[]; permissions?: Obj }>;
}

export interface StepRun {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  stdout: string;
  stderr: string;
  /** What a stubbed action did instead of the real one. */
  stub?: string;
}

export interface GithubCall {
  method: string;
  params: Obj;
}

export interface RunResult {
  steps: StepRun[];
  conclusion: 'success' | 'failure';
  /** The calls github-script made (listComments, deleteComment, createComment, ...). */
  calls: GithubCall[];
  /** Files upload-artifact was given, with their text. */
  artifacts: { name: string; path: string; text: string }[];
  /** Workflow commands the steps printed (`::error ...::...`), in order. */
  commands: string[];
  workspace: string;
  runnerTemp: string;
}

export interface RunnerEvent {
  name: 'pull_request' | 'push';
  /** The commit GitHub checks out (a pull request's merge commit, the pushed head). */
  sha: string;
  /** refs/pull/N/merge, refs/heads/main. */
  ref: string;
  payload: Obj;
}

export function loadWorkflow(file: string): Workflow {
  return jsyaml.load(fs.readFileSync(file, 'utf8')) as Workflow;
}

// ---- expressions ---------------------------------------------------------------------------

type Ctx = { github: Obj; runner: Obj; env: Obj; steps: Obj; status: 'success' | 'failure' };

function tokens(expr: string): string[] {
  const out = expr.match(/'(?:[^']|'')*'|==|!=|&&|\|\||[!()]|[A-Za-z_][\w.-]*(?:\(\))?|\d+|\S/g) ?? [];
  for (const t of out)
    if (!/^(?:'|==|!=|&&|\|\||[!()]|[A-Za-z_]|\d)/.test(t)) throw new Error(`expression not understood: ${expr}`);
  return out;
}

function lookup(name: string, ctx: Ctx): unknown {
  const [head, ...rest] = name.split('.');
  let v: unknown = (ctx as unknown as Obj)[head];
  if (v === undefined) throw new Error(`context not emulated: ${name}`);
  for (const k of rest) v = v && typeof v === 'object' ? (v as Obj)[k] : undefined;
  return v ?? '';
}

/** GitHub's expression language, as much of it as the example workflows use. */
export function evaluate(expr: string, ctx: Ctx): unknown {
  const ts = tokens(expr);
  let i = 0;
  const truthy = (v: unknown) => v !== '' && v !== false && v !== 0 && v !== null && v !== undefined;
  const primary = (): unknown => {
    const t = ts[i++];
    if (t === '!') return !truthy(primary());
    if (t === '(') {
      const v = or();
      i++;
      return v;
    }
    if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (/^\d+$/.test(t)) return Number(t);
    if (t === 'always()') return true;
    if (t === 'success()') return ctx.status === 'success';
    if (t === 'failure()') return ctx.status === 'failure';
    if (t === 'cancelled()') return false;
    if (t === 'true' || t === 'false') return t === 'true';
    return lookup(t, ctx);
  };
  const eq = (): unknown => {
    let v = primary();
    while (ts[i] === '==' || ts[i] === '!=') {
      const op = ts[i++];
      const w = primary();
      v = op === '==' ? String(v) === String(w) : String(v) !== String(w);
    }
    return v;
  };
  const and = (): unknown => {
    let v = eq();
    while (ts[i] === '&&') {
      i++;
      const w = eq();
      v = truthy(v) ? w : v;
    }
    return v;
  };
  const or = (): unknown => {
    let v = and();
    while (ts[i] === '||') {
      i++;
      const w = and();
      v = truthy(v) ? v : w;
    }
    return v;
  };
  const v = or();
  if (i !== ts.length) throw new Error(`expression not understood: ${expr}`);
  return v;
}

function interpolate(text: string, ctx: Ctx): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e: string) => String(evaluate(e, ctx)));
}

function runsIf(step: Step, ctx: Ctx): boolean {
  const cond = (step.if ?? '').replace(/^\$\{\{([\s\S]*)\}\}$/, '$1').trim();
  if (!cond) return ctx.status === 'success';
  const v = evaluate(cond, ctx);
  const truthy = v !== '' && v !== false && v !== 0 && v !== null && v !== undefined;
  return /\b(always|success|failure|cancelled)\(\)/.test(cond) ? truthy : ctx.status === 'success' && truthy;
}

// ---- files GitHub reads back ----------------------------------------------------------------

/** GITHUB_OUTPUT / GITHUB_ENV: `name=value` lines and `name<<DELIMITER` blocks. */
export function readKeyValues(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(file)) return out;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const heredoc = /^([^=<]+)<<(.+)$/.exec(l);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]);
      out[heredoc[1]] = body.join('\n');
    } else if (l.includes('=')) out[l.slice(0, l.indexOf('='))] = l.slice(l.indexOf('=') + 1);
  }
  return out;
}

// ---- the stubs -------------------------------------------------------------------------------

/**
 * `npm` and `npx` on PATH: this checkout's CLI for cozy-gw@VERSION or a package file named
 * cozy-gw-VERSION.tgz that exists (its first line is printed: a test tells whose file was
 * installed), a failure for anything else. `npm install -g` puts the CLI on PATH (this folder).
 */
function stubTools(dir: string, version: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const cli = `exec '${process.execPath}' '${BIN}' "$@"`;
  fs.writeFileSync(
    path.join(dir, 'npm'),
    `#!/bin/bash
# stub npm (test/helpers/actionsRunner.ts): npm install [-g | --prefix DIR] cozy-gw@${version} or a cozy-gw-${version}.tgz installs this checkout's CLI
echo "stub npm $*" >&2
prefix=""; pkg=""
while [ $# -gt 0 ]; do case "$1" in --prefix) prefix="$2"; shift ;; -g) prefix="-g" ;; install|--no-save|--no-package-lock|--no-audit|--no-fund|--ignore-scripts) ;; cozy-gw@${version}) pkg="$1" ;; */cozy-gw-${version}.tgz) [ -f "$1" ] || { echo "stub npm: no package file $1" >&2; exit 97; }; echo "stub npm: package $(head -n 1 "$1")" >&2; pkg="$1" ;; *) echo "stub npm: unexpected argument $1" >&2; exit 97 ;; esac; shift; done
[ -n "$prefix" ] && [ -n "$pkg" ] || { echo "stub npm: want install -g or --prefix DIR, and cozy-gw@${version} or its package file" >&2; exit 97; }
if [ "$prefix" = -g ]; then bin="$(dirname "$0")"; else bin="$prefix/node_modules/.bin"; fi
mkdir -p "$bin"
cat > "$bin/cozy-gw" <<'WRAPPER'
#!/bin/sh
${cli}
WRAPPER
chmod +x "$bin/cozy-gw"
`,
    { mode: 0o755 },
  );
  fs.writeFileSync(
    path.join(dir, 'npx'),
    `#!/bin/bash
# stub npx (test/helpers/actionsRunner.ts): npx --yes cozy-gw@${version} ARGS runs this checkout's CLI
echo "stub npx $1 $2" >&2
[ "$1" = --yes ] && [ "$2" = cozy-gw@${version} ] || { echo "stub npx: unexpected call $*" >&2; exit 97; }
shift 2
${cli}
`,
    { mode: 0o755 },
  );
}

function sh(cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: env ?? process.env, timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** actions/checkout: the origin cloned at the event's commit, `fetch-depth` commits deep (1 by default, 0 all). */
function checkout(origin: string, event: RunnerEvent, workspace: string, w: Obj): { code: number; text: string } {
  const dir = path.join(workspace, String(w.path ?? ''));
  const depth = Number(w['fetch-depth'] ?? 1);
  fs.rmSync(dir, { recursive: true, force: true });
  const git = (...a: string[]) => sh('git', a, dir);
  fs.mkdirSync(dir, { recursive: true });
  const steps = [
    git('init', '-q'),
    git('remote', 'add', 'origin', `file://${origin}`),
    git(
      'fetch',
      '-q',
      ...(depth > 0 ? [`--depth=${depth}`] : []),
      'origin',
      `+${String(w.ref ?? event.ref)}:refs/remotes/checkout`,
    ),
    event.name === 'push' && !w.ref
      ? git('checkout', '-q', '-B', event.ref.replace('refs/heads/', ''), 'refs/remotes/checkout')
      : git('checkout', '-q', '--detach', 'refs/remotes/checkout'),
  ];
  if (event.name === 'push' && !w.ref) {
    const branch = event.ref.replace('refs/heads/', '');
    steps.push(
      git(
        'fetch',
        '-q',
        ...(depth > 0 ? [`--depth=${depth}`] : []),
        'origin',
        `${branch}:refs/remotes/origin/${branch}`,
      ),
    );
    steps.push(git('branch', '-q', `--set-upstream-to=origin/${branch}`));
  }
  const failed = steps.find((s) => s.code !== 0);
  return {
    code: failed ? failed.code : 0,
    text: `stub actions/checkout: git fetch of ${String(w.ref ?? event.ref)} from the test's origin, depth ${depth || 'all'}, into ${path.relative(workspace, dir) || '.'}${failed ? `: ${failed.stderr}` : ''}`,
  };
}

/** actions/github-script: the script in node, `github` a client that records calls. */
function githubScript(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  existing: Obj[],
  payload: Obj,
  temp: string,
) {
  const callsFile = path.join(temp, `github-calls-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const harness = `
const fs = require('node:fs');
const calls = [];
const existing = ${JSON.stringify(existing)};
const rec = (method) => async (params) => { calls.push({ method, params }); return { data: method === 'issues.listComments' ? existing : {} }; };
const github = {
  paginate: async (fn, params) => (await fn(params)).data,
  rest: { issues: { listComments: rec('issues.listComments'), createComment: rec('issues.createComment'), deleteComment: rec('issues.deleteComment'), updateComment: rec('issues.updateComment') } },
};
const context = { repo: { owner: 'example', repo: 'platform' }, payload: ${JSON.stringify(payload)}, eventName: process.env.GITHUB_EVENT_NAME, sha: process.env.GITHUB_SHA };
const core = { setFailed: (m) => { console.error('::error::' + m); process.exitCode = 1; }, info: console.log, warning: (m) => console.log('::warning::' + m) };
(async () => { await (async (require, github, context, core) => {
${script}
})(require, github, context, core); })()
  .catch((e) => { console.error('::error::' + (e && e.message)); process.exitCode = 1; })
  .finally(() => fs.writeFileSync(${JSON.stringify(callsFile)}, JSON.stringify(calls)));
`;
  const file = path.join(temp, `github-script-${Date.now()}.js`);
  fs.writeFileSync(file, harness);
  const r = sh(process.execPath, [file], cwd, env);
  const calls = fs.existsSync(callsFile) ? (JSON.parse(fs.readFileSync(callsFile, 'utf8')) as GithubCall[]) : [];
  return { ...r, calls };
}

// ---- the run ---------------------------------------------------------------------------------

export interface RunOptions {
  origin: string;
  event: RunnerEvent;
  /** The version the workflow installs (its COZY_GW_VERSION or npx pin). */
  cozyGwVersion: string;
  /** Comments the pull request already has (what listComments answers). */
  comments?: Obj[];
}

/** Run every job of the workflow (one after the other), each in a fresh workspace and RUNNER_TEMP. */
export function runWorkflow(wf: Workflow, opts: RunOptions): RunResult {
  const [jobName, job] = Object.entries(wf.jobs)[0];
  const root = tmpDir(`runner-${jobName}`);
  const workspace = path.join(root, 'work', 'platform', 'platform');
  const runnerTemp = path.join(root, 'work', '_temp');
  const bin = path.join(root, 'stub-bin');
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(runnerTemp, { recursive: true });
  stubTools(bin, opts.cozyGwVersion);
  const eventPath = path.join(root, 'event.json');
  fs.writeFileSync(eventPath, JSON.stringify(opts.event.payload));
  const github: Obj = {
    event: opts.event.payload,
    event_name: opts.event.name,
    sha: opts.event.sha,
    ref: opts.event.ref,
    workspace,
    repository: 'example/platform',
  };
  const base: NodeJS.ProcessEnv = {
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    HOME: path.join(root, 'home'),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_SHA: opts.event.sha,
    GITHUB_REF: opts.event.ref,
    GITHUB_EVENT_NAME: opts.event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'example/platform',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '1',
    GITHUB_JOB: jobName,
    RUNNER_OS: 'Linux',
    RUNNER_TEMP: runnerTemp,
    ...(opts.event.name === 'pull_request'
      ? {
          GITHUB_BASE_REF: String(((opts.event.payload.pull_request as Obj).base as Obj).ref),
          GITHUB_HEAD_REF: String(((opts.event.payload.pull_request as Obj).head as Obj).ref),
        }
      : {}),
  };
  fs.mkdirSync(base.HOME!, { recursive: true });
  const result: RunResult = {
    steps: [],
    conclusion: 'success',
    calls: [],
    artifacts: [],
    commands: [],
    workspace,
    runnerTemp,
  };
  const steps: Obj = {};
  let exported: Record<string, string> = {};
  const ctxOf = (env: Obj): Ctx => ({
    github,
    runner: { temp: runnerTemp, os: 'Linux' },
    env,
    steps,
    status: result.conclusion,
  });
  const evalMap = (m: Record<string, unknown> | undefined, ctx: Ctx) =>
    Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, interpolate(String(v), ctx)]));
  job.steps.forEach((step, n) => {
    const name = step.name ?? step.uses ?? (step.run ?? '').split('\n')[0];
    const outerEnv = { ...evalMap(wf.env, ctxOf({})), ...exported };
    const jobEnv = { ...outerEnv, ...evalMap(job.env, ctxOf(outerEnv)) };
    const env = { ...jobEnv, ...evalMap(step.env, ctxOf(jobEnv)) };
    const ctx = ctxOf(env);
    if (!runsIf(step, ctx)) {
      result.steps.push({ name, outcome: 'skipped', stdout: '', stderr: '' });
      return;
    }
    const outputFile = path.join(runnerTemp, `_output_${n}`);
    const envFile = path.join(runnerTemp, `_env_${n}`);
    fs.writeFileSync(outputFile, '');
    fs.writeFileSync(envFile, '');
    const procEnv: NodeJS.ProcessEnv = {
      ...base,
      ...env,
      GITHUB_OUTPUT: outputFile,
      GITHUB_ENV: envFile,
      GITHUB_STEP_SUMMARY: path.join(runnerTemp, `_summary_${n}`),
    };
    let r: { code: number; stdout: string; stderr: string };
    let stub: string | undefined;
    const w = evalMap(step.with, ctx);
    if (step.run !== undefined) {
      const script = path.join(runnerTemp, `_step_${n}.sh`);
      fs.writeFileSync(script, interpolate(step.run, ctx));
      const cwd = step['working-directory']
        ? path.resolve(workspace, interpolate(step['working-directory'], ctx))
        : workspace;
      r = sh('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], cwd, procEnv);
    } else {
      const action = step.uses!.replace(/@.*$/, '');
      if (action === 'actions/checkout') {
        const c = checkout(opts.origin, opts.event, workspace, w);
        r = { code: c.code, stdout: '', stderr: '' };
        stub = c.text;
      } else if (action === 'actions/setup-node') {
        r = { code: 0, stdout: '', stderr: '' };
        stub = `stub actions/setup-node: the tests' node ${process.version} (asked for ${w['node-version'] ?? 'any'})`;
      } else if (action === 'actions/upload-artifact') {
        const file = path.resolve(workspace, w.path);
        const there = fs.existsSync(file);
        if (there) result.artifacts.push({ name: w.name, path: file, text: fs.readFileSync(file, 'utf8') });
        r = {
          code: 0,
          stdout: there ? '' : `::warning::No files were found with the provided path: ${w.path}\n`,
          stderr: '',
        };
        stub = `stub actions/upload-artifact: ${w.name} = ${w.path}${there ? '' : ' (no file)'}`;
      } else if (action === 'actions/github-script') {
        const g = githubScript(w.script, workspace, procEnv, opts.comments ?? [], opts.event.payload, runnerTemp);
        result.calls.push(...g.calls);
        r = g;
        stub = `stub actions/github-script: the script in node ${process.version}, github calls recorded (${g.calls.length})`;
      } else throw new Error(`no emulation of ${step.uses}`);
    }
    for (const line of r.stdout.split('\n')) if (/^::[a-z-]+( [^:]*)?::/.test(line)) result.commands.push(line);
    const outcome = r.code === 0 ? 'success' : 'failure';
    result.steps.push({ name, outcome, stdout: r.stdout, stderr: r.stderr, ...(stub ? { stub } : {}) });
    if (step.id) steps[step.id] = { outputs: readKeyValues(outputFile), outcome, conclusion: outcome };
    exported = { ...exported, ...readKeyValues(envFile) };
    if (outcome === 'failure') result.conclusion = 'failure';
  });
  return result;
}
