/**
 * Nothing recursive over input, no spread over input-sized arrays (docs/performance.md,
 * eslint.config.mjs, src/k8s/arrays.ts): the CLI runs in real processes with a sixteenth of V8's
 * default stack (`node --stack-size=64`: about 800 frames, and a spread into a call of about 5,000
 * elements overflows), over inputs of 10,000 objects, routes and hostnames, and 1,000 Tenants. A
 * recursive walk over a list, or a `push(...xs)` of the objects, a plan's rows or a diff's changes,
 * throws "Maximum call stack size exceeded" here at sizes a test runs in seconds, where at the
 * default stack it took 150,000 objects, 50,000 routes or 70,000 Tenants. The full sizes (500,000
 * objects read, 200,000 hostnames planned) are the bench's scale row (bench/run.js).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, ensureBuilt, tmpDir } from '../helpers/kpt';
import { STACK_FRAME } from '../helpers/cli';
import { writeScale } from '../../bench/generate.js';

const N = 10_000;
const TENANTS = 1_000;
const NOW = '2026-01-01T00:00:00Z';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI with a small stack, its stdout kept as a string (the plans, the diff). */
function smallStack(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--stack-size=64', BIN, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on('data', (b: Buffer) => out.push(b));
    p.stderr.on('data', (b: Buffer) => err.push(b));
    p.on('error', reject);
    p.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

const count = (text: string, re: RegExp) => text.split('\n').filter((l) => re.test(l)).length;

describe(`a sixteenth of the default stack: ${N} objects, routes and hostnames, ${TENANTS} Tenants`, () => {
  let dir = '';
  const runs: Record<string, Promise<Run>> = {};
  beforeAll(() => {
    ensureBuilt();
    dir = tmpDir('small-stack');
    writeScale(dir, { objects: N, routes: N });
    fs.writeFileSync(path.join(dir, 'values.yaml'), 'publishing: {host: example.org}\ngateway: {enabled: true}\n');
    fs.writeFileSync(path.join(dir, 'empty.yaml'), '');
    const tenant = (name: string, spec: string) =>
      `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: ${name}, namespace: tenant-root}\nspec: ${spec}\n`;
    const tenants: string[] = [];
    for (let i = 0; i < TENANTS; i++) tenants.push(tenant(`t${i}`, '{}'));
    fs.writeFileSync(path.join(dir, 'tenants.yaml'), tenants.join('---\n'));
    // diff renders the Tenants: tenant-root's own Gateway serves the routes.
    const routes: string[] = [tenant('root', '{gateway: true}')];
    for (let i = 0; i < N; i++)
      routes.push(
        `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r${i}, namespace: tenant-root}\nspec:\n  parentRefs: [{name: cozystack, namespace: tenant-root}]\n  hostnames: [h${i}.example.org]\n`,
      );
    fs.writeFileSync(path.join(dir, 'diff-routes.yaml'), routes.join('---\n'));
    // The four run side by side; each test awaits its own.
    runs.read = smallStack(['reconcile', '--all', '-o', 'json', '--now', NOW, '-f', 'scale-objects.yaml'], dir);
    runs.plan = smallStack(['reconcile', '-o', 'plan', '--now', NOW, '-f', 'scale-routes.yaml'], dir);
    const diff = ['diff', '--state', 'empty.yaml', '--values', 'values.yaml', '--now', NOW];
    runs.diffPlan = smallStack([...diff, '-f', 'diff-routes.yaml', '-o', 'plan'], dir);
    runs.diffTenants = smallStack([...diff, '-f', 'tenants.yaml'], dir);
  }, 240_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const clean = (r: Run) => {
    expect(r.stderr).not.toMatch(/Maximum call stack/);
    expect(r.stderr).not.toMatch(STACK_FRAME);
  };

  it(`reconcile --all reads and writes one file of ${N} objects`, async () => {
    const r = await runs.read;
    clean(r);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { objects: unknown[] }).objects.length).toBe(N);
  }, 240_000);

  it(`reconcile -o plan: ${N} hostnames start`, async () => {
    const r = await runs.plan;
    clean(r);
    expect(r.code).toBe(0);
    expect(count(r.stdout, /^\s+h\d+\.example\.org\b/)).toBe(N);
  }, 240_000);

  it(`diff -o plan: ${N} routes`, async () => {
    const r = await runs.diffPlan;
    clean(r);
    expect(r.code).toBe(3);
    expect(count(r.stdout, /^\s+h\d+\.example\.org\b/)).toBe(N);
  }, 240_000);

  it(`diff: ${TENANTS} Tenants, each with its namespace created`, async () => {
    const r = await runs.diffTenants;
    clean(r);
    expect(r.code).toBe(3);
    expect(count(r.stdout, /^\+\+\+ Namespace tenant-t\d+ \(after\)$/)).toBe(TENANTS);
  }, 240_000);
});
