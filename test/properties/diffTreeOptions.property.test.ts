/**
 * A tree remembers how it was written (docs/decisions.md §C14): for generated
 * platforms (test/helpers/platformArbitrary.ts) and every option that shapes a tree
 * (`--include-hooks`, `--gateway-only`, `-o json`, `--with-controller`, and none), `diff` of the
 * inputs against the tree `render --output-dir` wrote from them is no difference (exit 0, nothing
 * printed); and against a `reconcile --all` of the platform (its cozystack-values written whole), a
 * change of the platform values that rewrites every tenant's values (`--set
 * networking.clusterDomain=...`) is a difference (exit 3). Through the CLI, as a user runs it.
 * Seed: FC_SEED replays a run (fast-check prints seed and path on failure).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { runCli, STACK_FRAME } from '../helpers/cli';
import { render } from '../../src/pipelines/render';
import { clone, keyOf } from '../../src/k8s/model';
import { arbPlatformCase, clusterStateOf, renderInputOf, type PlatformCase } from '../helpers/platformArbitrary';

const NOW = '2026-01-01T00:00:00Z';
const RUNS = Number(process.env.DIFF_TREE_RUNS ?? 8);
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

const OPTIONS: Record<string, string[]> = {
  plain: [],
  'include-hooks': ['--include-hooks'],
  'gateway-only': ['--gateway-only'],
  json: ['-o', 'json'],
  'with-controller': ['--with-controller', '--now', NOW],
};

/** A case the charts render without an error (the property is about diff, not about render's guards). */
const renders = (c: PlatformCase) => {
  const r = render(clone(renderInputOf(c)));
  return r.objects.length > 0 && !r.findings.some((f) => f.severity === 'error');
};

/** The case's inputs as files in a fresh directory: tenants.yaml, values.yaml (or the Package), cluster.yaml. */
function inputsOf(c: PlatformCase): { dir: string; change: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-tree-options-'));
  const input = renderInputOf(c);
  const rendered = render(clone(input)).objects;
  const keys = new Set(rendered.map(keyOf));
  const cluster = clusterStateOf(c, rendered).filter((o) => !keys.has(keyOf(o)));
  fs.writeFileSync(
    path.join(dir, 'tenants.yaml'),
    jsyaml.dump({ apiVersion: 'v1', kind: 'List', items: input.objects }),
  );
  fs.writeFileSync(path.join(dir, 'cluster.yaml'), jsyaml.dump({ apiVersion: 'v1', kind: 'List', items: cluster }));
  const change = ['-f', 'tenants.yaml', '-f', 'cluster.yaml'];
  if (input.valuesFiles.length) {
    fs.writeFileSync(path.join(dir, 'values.yaml'), jsyaml.dump(input.valuesFiles[0].values));
    change.unshift('--values', 'values.yaml');
  }
  return { dir, change };
}

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await runCli(args, { cwd: dir });
  if (STACK_FRAME.test(r.stderr)) throw new Error(`${args.join(' ')}: a stack trace\n${r.stderr}`);
  return r;
}

describe('diff against what the inputs wrote', () => {
  it('a tree written with any shaping option: the same inputs are no difference', async () => {
    await fc.assert(
      fc.asyncProperty(arbPlatformCase.filter(renders), async (c) => {
        const { dir, change } = inputsOf(c);
        try {
          for (const [name, option] of Object.entries(OPTIONS)) {
            const w = await cli(dir, ['render', ...change, ...option, '--output-dir', name]);
            expect({ option: name, write: w.code, stderr: w.code ? w.stderr : '' }).toEqual({
              option: name,
              write: 0,
              stderr: '',
            });
            const d = await cli(dir, ['diff', '--state', name, ...change, '--now', NOW]);
            expect({ option: name, code: d.code, stdout: d.stdout.slice(0, 2000) }).toEqual({
              option: name,
              code: 0,
              stdout: '',
            });
          }
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS, seed },
    );
  }, 600_000);

  it('a reconcile --all state: the same inputs are no difference, a values change that rewrites every tenant’s values is one', async () => {
    await fc.assert(
      fc.asyncProperty(arbPlatformCase.filter(renders), async (c) => {
        const { dir, change } = inputsOf(c);
        try {
          const r = await cli(dir, ['render', ...change]);
          fs.writeFileSync(path.join(dir, 'rendered.yaml'), r.stdout);
          const s = await cli(dir, ['reconcile', '--all', ...change, '-f', 'rendered.yaml', '--now', NOW]);
          expect({ reconcile: s.code, stderr: s.code ? s.stderr : '' }).toEqual({ reconcile: 0, stderr: '' });
          fs.writeFileSync(path.join(dir, 'state.yaml'), s.stdout);
          const same = await cli(dir, ['diff', '--state', 'state.yaml', ...change, '--now', NOW]);
          expect({ code: same.code, stdout: same.stdout.slice(0, 2000) }).toEqual({ code: 0, stdout: '' });
          const other = await cli(dir, [
            'diff',
            '--state',
            'state.yaml',
            ...change,
            '--set',
            'networking.clusterDomain=other.local',
            '--now',
            NOW,
            '-o',
            'json',
          ]);
          expect({ code: other.code, stderr: other.code === 3 ? '' : other.stderr }).toEqual({ code: 3, stderr: '' });
          const changed = (
            JSON.parse(other.stdout) as { changed: { after: { kind: string; metadata: { name: string } } }[] }
          ).changed;
          expect(
            changed.filter((x) => x.after.kind === 'Secret' && x.after.metadata.name === 'cozystack-values').length,
          ).toBeGreaterThan(0);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS, seed },
    );
  }, 600_000);
});
