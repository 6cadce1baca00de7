/**
 * The TenantGateway CRD per Cozystack version (docs/versions.md §9, §X1, §X9): every release ships
 * the same CRD (schemas/tenantgateway.releases.crd.yaml): certMode http01, dns01 or existingSecret,
 * no bounds on apex or tlsPassthroughServices, no tlsPassthroughListeners (the API server prunes it:
 * a warning), no CEL rules. main's is the pack's (schemas/tenantgateway.crd.yaml). Render's input
 * check and self-check, reconcile's stored-object warning and `--validate` all apply the version's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { validateTenantGateway, tenantGatewayCrd, tenantGatewaySchema } from '../../src/validation/tenantGatewayCrd';
import { validatePublished } from '../../src/validation/publishedSchemas';
import { reconcile } from '../../src/pipelines/reconcile';
import { validateInputs } from '../../src/pipelines/render';
import { COZYSTACK_VERSIONS, type CozystackVersion } from '../../src/platform/cozystackVersions';
import type { KObject } from '../../src/k8s/model';
import type { Finding } from '../../src/k8s/diagnostics';

const version = (name: string): CozystackVersion => COZYSTACK_VERSIONS.find((v) => v.name === name)!;
/** One version of each behaviour class (docs/versions.md §0). */
const CLASSES = ['v1.5.0', 'v1.5.2', 'v1.5.4', 'v1.6.2', 'main'];

function tgw(spec: Record<string, unknown>): KObject {
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: { name: 'cozystack', namespace: 'tenant-root' },
    spec: { apex: 'example.org', ...spec },
  };
}

const errors = (fs: Finding[]) => fs.filter((f) => f.severity === 'error').map((f) => `${f.field}: ${f.message}`);
const LISTENERS = [{ name: 'redis', port: 443, hostname: 'redis.other.org' }];

describe('the CRD each version applies', () => {
  test("every release applies one CRD, main the pack's; they are different files", () => {
    const files = COZYSTACK_VERSIONS.map(
      (v) => `${v.name}: ${JSON.stringify(tenantGatewaySchema(v.behaviour)).length}`,
    );
    const releases = new Set(
      COZYSTACK_VERSIONS.filter((v) => v.name !== 'main').map((v) => JSON.stringify(tenantGatewayCrd(v.behaviour))),
    );
    expect({ files: files.length, releases: releases.size }).toEqual({ files: 9, releases: 1 });
    expect([...releases][0]).not.toBe(JSON.stringify(tenantGatewayCrd(version('main').behaviour)));
  });

  test("the releases' schema: certMode without edge, no tlsPassthroughListeners, no CEL rule, no bound on apex or the services", () => {
    const s = tenantGatewaySchema(version('v1.6.2').behaviour) as any;
    const spec = s.properties.spec;
    expect(spec.properties.certMode.enum).toEqual(['http01', 'dns01', 'existingSecret']);
    expect(Object.keys(spec.properties).sort()).toEqual([
      'apex',
      'attachedNamespaces',
      'certMode',
      'dns01',
      'gatewayClassName',
      'issuerName',
      'tlsPassthroughServices',
      'wildcardSecretRef',
    ]);
    expect(JSON.stringify(s)).not.toContain('x-kubernetes-validations');
    expect(spec.properties.apex).toEqual({ description: expect.any(String), type: 'string' });
    expect(spec.properties.tlsPassthroughServices).toEqual({
      description: expect.any(String),
      type: 'array',
      items: { type: 'string' },
    });
  });
});

describe.each(CLASSES)('validateTenantGateway as %s', (name) => {
  const b = version(name).behaviour;
  const main = name === 'main';
  const check = (spec: Record<string, unknown>) => errors(validateTenantGateway(tgw(spec), b));

  test("docs/versions.md §X1: certMode edge is main's only", () => {
    expect(check({ certMode: 'edge' })).toEqual(
      main ? [] : ['spec.certMode: Unsupported value: supported values: "http01", "dns01", "existingSecret"'],
    );
  });

  test('docs/versions.md §X9: no bound on apex or tlsPassthroughServices in a release', () => {
    const tooMany = Array.from({ length: 63 }, (_, i) => `s${i}`);
    expect(check({ apex: `${'a'.repeat(250)}.org` }).length).toBe(main ? 1 : 0);
    expect(check({ tlsPassthroughServices: tooMany }).length).toBe(main ? 1 : 0);
    expect(check({ tlsPassthroughServices: ['API', 'x'.repeat(250)] }).length).toBe(main ? 2 : 0);
  });

  test("docs/versions.md §X9: tlsPassthroughListeners is judged by main's CEL rules, pruned with a warning by a release's CRD", () => {
    const found = validateTenantGateway(tgw({ tlsPassthroughListeners: LISTENERS }), b);
    if (main) {
      expect(errors(found)).toEqual([
        'spec.tlsPassthroughListeners: tlsPassthroughListeners hostname(s) redis.other.org must equal the apex example.org or end with .example.org',
        "spec.tlsPassthroughListeners[0].port: port 443 belongs to the Gateway's own listeners (80 and 443 are reserved)",
      ]);
    } else {
      expect(found.map((f) => [f.severity, f.rule, f.field])).toEqual([
        ['warning', 'tenantgateway.pruned-field', 'spec.tlsPassthroughListeners'],
      ]);
      expect(found[0].message).toMatch(/prunes it on write/);
    }
  });

  test("a release's secret selectors keep `optional`; main's CRD has no such field", () => {
    const spec = {
      certMode: 'dns01',
      dns01: { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { name: 'cf', key: 'k', optional: true } } },
    };
    expect(check(spec).length).toBe(main ? 1 : 0);
  });

  test('the object given is not changed (the pruning works on a copy)', () => {
    const o = tgw({ tlsPassthroughListeners: LISTENERS });
    validateTenantGateway(o, b);
    expect((o.spec as Record<string, unknown>).tlsPassthroughListeners).toEqual(LISTENERS);
  });
});

describe("the CRD's callers follow the version", () => {
  const stored = tgw({
    certMode: 'http01',
    tlsPassthroughListeners: [{ name: 'redis', port: 6379, hostname: 'redis.example.org' }],
  });
  const edge = tgw({ certMode: 'edge' });

  test.each(CLASSES)("reconcile's stored-object warnings, as %s", (name) => {
    const r = reconcile(
      { objects: [stored, { ...edge, metadata: { name: 'cozystack', namespace: 'tenant-bob' } }] },
      {
        now: '2026-01-01T00:00:00Z',
        cozystack: version(name),
      },
    );
    const crd = r.findings.filter(
      (f) => f.rule?.startsWith('tenantgateway.schema') || f.rule === 'tenantgateway.pruned-field',
    );
    expect(crd.map((f) => [f.severity, f.rule, f.object?.namespace, f.field])).toEqual(
      name === 'main'
        ? []
        : [
            ['warning', 'tenantgateway.pruned-field', 'tenant-root', 'spec.tlsPassthroughListeners'],
            ['warning', 'tenantgateway.schema', 'tenant-bob', 'spec.certMode'],
          ],
    );
  });

  test.each(CLASSES)("render's input check, as %s", (name) => {
    const found = validateInputs({ objects: [stored, edge], valuesFiles: [] }, version(name).behaviour).findings;
    expect(found.map((f) => [f.severity, f.rule])).toEqual(
      name === 'main'
        ? []
        : [
            ['warning', 'tenantgateway.pruned-field'],
            ['error', 'tenantgateway.schema'],
          ],
    );
  });

  test.each(CLASSES)('--validate, as %s', (name) => {
    expect(validatePublished([edge], version(name).behaviour).map((f) => f.field)).toEqual(
      name === 'main' ? [] : ['spec.certMode'],
    );
  });
});

describe('schemas/tenantgateway.releases.crd.yaml', () => {
  test('is the CRD object the version table reads', () => {
    const file = yaml.load(
      fs.readFileSync(path.join(__dirname, '..', '..', 'schemas', 'tenantgateway.releases.crd.yaml'), 'utf8'),
    );
    expect(tenantGatewayCrd(version('v1.5.0').behaviour)).toEqual(file);
  });
});
