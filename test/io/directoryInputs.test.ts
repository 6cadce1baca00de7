/**
 * A directory given with -f (render, reconcile, admit, diff) or --state is read for its object
 * files, recursively, without a tree's bookkeeping (src/io/treeFiles.ts isTreeBookkeeping):
 * kustomization.yaml, which render writes into every tree and GitOps repositories keep beside
 * their manifests, and hidden names (`.git`, `.github`, cozy-gw's record). Before, `admit -f TREE`
 * and `render -f TREE` over a tree render wrote failed on its kustomization.yaml. A file named
 * with -f is read whatever its name. A name in it that is not UTF-8 is an error that says so.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FindingsError } from '../../src/k8s/diagnostics';
import { readInputs } from '../../src/io/inputs';
import { isTreeBookkeeping } from '../../src/io/treeFiles';
import { EXAMPLE_INPUTS, ROOT, runCli } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';
import { testUnless } from '../helpers/skip';

const ns = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;
const KUSTOMIZATION = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- a.yaml\n';
const WORKFLOW = 'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n';

function repo(): string {
  const d = tmpDir('directory-inputs');
  const files: Record<string, string> = {
    'a.yaml': ns('a'),
    'kustomization.yaml': KUSTOMIZATION,
    'sub/b.yml': ns('b'),
    'sub/Kustomization': KUSTOMIZATION,
    'sub/kustomization.yml': KUSTOMIZATION,
    '.github/workflows/ci.yaml': WORKFLOW,
    '.cozy-gw-files': 'not yaml: [',
    'sub/.hidden.yaml': WORKFLOW,
  };
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
    fs.writeFileSync(path.join(d, f), text);
  }
  return d;
}

test('a directory: its object files, not kustomization.yaml nor hidden names, at any depth', () => {
  const d = repo();
  const { objects } = readInputs(['.'], { cwd: d });
  expect(objects.map((o) => o.metadata.name)).toEqual(['a', 'b']);
});

test('a file named with -f is read whatever its name: a kustomization is no object, and says so', () => {
  const d = repo();
  let message = '';
  try {
    readInputs(['kustomization.yaml'], { cwd: d });
  } catch (e) {
    message = (e as FindingsError).findings.map((f) => f.message).join('\n');
  }
  expect(message).toMatch(/lacks .*metadata\.name/);
});

test.each([
  ['kustomization.yaml', true],
  ['deploy/kustomization.yml', true],
  ['Kustomization', true],
  ['.git', true],
  ['tree/.cozy-gw-files', true],
  ['kustomization-patch.yaml', false],
  ['namespace-kustomization.yaml', false],
  ['tenant-a/namespace.yaml', false],
])('isTreeBookkeeping(%s) is %s', (file, expected) => {
  expect(isTreeBookkeeping(file)).toBe(expected);
});

test('admit and render over a tree render wrote: its objects read, its kustomization.yaml left out', async () => {
  const d = tmpDir('tree-inputs');
  const tree = path.join(d, 'deploy');
  expect((await runCli(['render', ...EXAMPLE_INPUTS, '--output-dir', tree], { cwd: ROOT })).code).toBe(0);
  expect(fs.existsSync(path.join(tree, 'kustomization.yaml'))).toBe(true);
  const flux = ['--as', 'system:serviceaccount:cozy-fluxcd:flux', '--as-group', 'system:serviceaccounts:cozy-fluxcd'];
  const admitted = await runCli(['admit', '--values', 'examples/platform/values.yaml', '-f', tree, ...flux], {
    cwd: ROOT,
  });
  expect({ code: admitted.code, stderr: admitted.stderr }).toEqual({ code: 0, stderr: '' });
  const again = await runCli(['render', ...EXAMPLE_INPUTS, '-f', tree], { cwd: ROOT });
  const once = await runCli(['render', ...EXAMPLE_INPUTS], { cwd: ROOT });
  expect(again.code).toBe(0);
  expect(again.stdout).toBe(once.stdout);
});

/** A directory holding ok.yaml and a file whose name has the byte 0xff, or undefined where the file system refuses such a name. */
function withNonUtf8Name(): string | undefined {
  const d = tmpDir('not-utf8');
  fs.writeFileSync(path.join(d, 'ok.yaml'), ns('ok'));
  try {
    fs.writeFileSync(Buffer.concat([Buffer.from(`${d}/r`), Buffer.from([0xff]), Buffer.from('oot.yaml')]), ns('x'));
    return d;
  } catch {
    return undefined;
  }
}
const nonUtf8Dir = withNonUtf8Name();

testUnless(nonUtf8Dir ? undefined : 'a file system that keeps names that are not UTF-8 (Linux)')(
  'a name in a directory that is not UTF-8: an error naming it, not "no such file"',
  () => {
    let findings: { message: string; file?: string; rule?: string }[] = [];
    try {
      readInputs(['.'], { cwd: nonUtf8Dir! });
    } catch (e) {
      findings = (e as FindingsError).findings;
    }
    expect(findings.map((f) => [f.file, f.rule])).toEqual([['r\uFFFDoot.yaml', 'input.name-not-utf8']]);
    expect(findings[0].message).toMatch(/not UTF-8/);
  },
);
