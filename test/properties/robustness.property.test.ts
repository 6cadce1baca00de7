/**
 * Bad input gets findings, never a crash: objects of the right kinds with any field replaced by any
 * JSON value (a string where a list was, a number for a name, null, a nested object...) go through
 * render, reconcile and admit without an exception escaping the core (the CLI would print an
 * internal error instead of naming the file, object and field).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import fc from 'fast-check';
import { render } from '../../src/pipelines/render';
import { reconcile } from '../../src/pipelines/reconcile';
import { admit } from '../../src/admission/admit';
import { renderPolicies } from '../../src/charts/policies';
import { clone, isObject, type KObject } from '../../src/k8s/model';
import { ROOT } from '../helpers/cli';

function load(file: string): KObject[] {
  const out: KObject[] = [];
  for (const d of jsyaml.loadAll(fs.readFileSync(path.join(ROOT, file), 'utf8'), undefined, {
    schema: jsyaml.CORE_SCHEMA,
  })) {
    if (!isObject(d)) continue;
    if (Array.isArray(d.items)) out.push(...(d.items as KObject[]));
    else out.push(d as unknown as KObject);
  }
  return out;
}

const tenantsDir = 'examples/platform/tenants';
const tenants = fs.readdirSync(path.join(ROOT, tenantsDir)).flatMap((f) => load(path.join(tenantsDir, f)));
const values = jsyaml.load(fs.readFileSync(path.join(ROOT, 'examples/platform/values.yaml'), 'utf8')) as Record<
  string,
  unknown
>;
const rendered = render({ objects: tenants, valuesFiles: [{ file: 'values.yaml', values }] }).objects;
const state = [
  ...tenants.filter((t) => t.kind !== 'Tenant'),
  ...rendered.filter((o) => !o.kind.startsWith('ValidatingAdmission')),
];

/** Every path to a value inside an object, below its identity (apiVersion, kind, metadata.name/namespace stay). */
function paths(o: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(o)) o.forEach((x, i) => out.push([...prefix, i], ...paths(x, [...prefix, i])));
  else if (isObject(o)) {
    for (const [k, x] of Object.entries(o)) {
      const p = [...prefix, k];
      const identity =
        prefix.length === 0
          ? ['apiVersion', 'kind', 'metadata'].includes(k)
          : prefix.length === 1 && prefix[0] === 'metadata' && ['name', 'namespace'].includes(k);
      if (!identity) out.push(p);
      out.push(...paths(x, p));
    }
  }
  return out;
}

function setAt(o: KObject, p: (string | number)[], v: unknown): KObject {
  const c = clone(o) as unknown as Record<string | number, unknown>;
  let cur: Record<string | number, unknown> = c;
  for (const k of p.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[p[p.length - 1]] = v;
  return c as unknown as KObject;
}

const corruption = (objs: KObject[]) =>
  fc
    .tuple(
      fc.nat(objs.length - 1),
      fc.nat(10_000),
      fc.jsonValue({ maxDepth: 2 }),
      fc.nat(10_000),
      fc.nat(objs.length - 1),
      fc.jsonValue({ maxDepth: 1 }),
    )
    .map(([i, j, v, j2, i2, v2]) => {
      const out = [...objs];
      for (const [idx, pick, val] of [
        [i, j, v],
        [i2, j2, v2],
      ] as [number, number, unknown][]) {
        const ps = paths(out[idx]);
        if (ps.length) out[idx] = setAt(out[idx], ps[pick % ps.length], val);
      }
      return out;
    });

const NOW = '2026-01-01T00:00:00Z';

describe('no input crashes the core', () => {
  it('reconcile over a corrupted cluster state returns, with findings', () => {
    fc.assert(
      fc.property(corruption(state), (objs) => {
        const r = reconcile({ objects: objs, valuesFiles: [{ file: 'values.yaml', values }] }, { now: NOW });
        expect(Array.isArray(r.findings)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('render over corrupted Tenants returns, with findings for what it refuses', () => {
    fc.assert(
      fc.property(corruption(tenants.filter((t) => t.kind === 'Tenant')), (objs) => {
        const r = render({ objects: objs, valuesFiles: [{ file: 'values.yaml', values }] });
        expect(Array.isArray(r.objects)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('admit over corrupted objects returns decisions', () => {
    const policies = renderPolicies({ 'root-host': 'example.org' });
    fc.assert(
      fc.property(corruption(state), (objs) => {
        expect(Array.isArray(admit(objs, policies, { username: 'alice', groups: ['system:authenticated'] }))).toBe(
          true,
        );
      }),
      { numRuns: 100 },
    );
  });
});
