import { fieldOf as fieldOfPointer } from '../../src/validation/ajvErrors';
import {
  validatePlatformValues as validatePlatformValuesCore,
  validateTenant as validateTenantCore,
  unsetByTypoFindings,
} from '../../src/validation/inputValidation';
import { objectsOf, parseDocuments, SourceMap } from '../../src/io/inputs';
import { locate } from '../../src/cli/context';
import { formatFinding, type Finding } from '../../src/k8s/diagnostics';
import { render as renderCore, type RenderInput } from '../../src/pipelines/render';
import type { KObject } from '../../src/k8s/model';

// The core names objects, values files and fields; the CLI edge places them at file and line
// from the readers' source map. These tests read as the CLI does and place as it does.
let sources = new SourceMap();
beforeEach(() => {
  sources = new SourceMap();
});

function read(text: string, file: string): KObject[] {
  const findings: Finding[] = [];
  const objs = objectsOf(parseDocuments(text, file, sources), file, findings, sources);
  expect(findings).toEqual([]);
  return objs;
}

function valuesFile(text: string, file: string) {
  const values = parseDocuments(text, file, sources)[0] as Record<string, unknown>;
  sources.addValues(file, values);
  return { file, values };
}

const placed = (fs: Finding[]) => fs.map((f) => locate(f, sources));
const validateTenant = (o: KObject) => placed(validateTenantCore(o));
const validatePlatformValues = (w: Parameters<typeof validatePlatformValuesCore>[0]) =>
  placed(validatePlatformValuesCore(w));
const render = (input: RenderInput) => {
  const r = renderCore(input);
  return { ...r, findings: placed(r.findings) };
};

describe('Tenant validation (schemas/tenant.schema.json)', () => {
  it('names the file, line, object and field', () => {
    const [t] = read(
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: bob\n  namespace: tenant-root\nspec:\n  host: example.org\n  gateway: "yes"\n',
      'tenants/bob.yaml',
    );
    const f = validateTenant(t);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({
      severity: 'error',
      file: 'tenants/bob.yaml',
      line: 8,
      field: 'spec.gateway',
      object: { kind: 'Tenant', name: 'bob', namespace: 'tenant-root' },
    });
    expect(formatFinding(f[0])).toBe(
      'error: tenants/bob.yaml:8: Tenant tenant-root/bob: spec.gateway: must be a boolean, got "yes" (write true or false, unquoted)',
    );
  });

  it('a missing metadata.namespace is an error with a hint', () => {
    const [t] = read('apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: bob\n', 't.yaml');
    const f = validateTenant(t);
    expect(f[0]).toMatchObject({ field: 'metadata.namespace', line: 3 });
    expect(f[0].hint).toMatch(/tenant-root/);
  });

  it('every problem at once, in a later document of a multi-document file', () => {
    const objs = read(
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: a, namespace: tenant-root}\nspec:\n  etcd: 1\n  resourceQuotas:\n    cpu: [1]\n',
      'm.yaml',
    );
    const f = validateTenant(objs[1]);
    expect(f.map((x) => [x.field, x.line])).toEqual([
      ['spec.etcd', 9],
      ['spec.resourceQuotas.cpu', 11],
    ]);
  });

  it('an unknown spec field is a warning, not an error', () => {
    const [t] = read(
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: a, namespace: tenant-root}\nspec:\n  gatway: true\n',
      'w.yaml',
    );
    expect(validateTenant(t)).toEqual([
      expect.objectContaining({ severity: 'warning', field: 'spec.gatway', line: 5 }),
    ]);
  });

  it('a JSON input gets lines too', () => {
    const [t] = read(
      '{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Tenant",\n "metadata": {"name": "a", "namespace": "tenant-root"},\n "spec": {"host": 5}}\n',
      'j.json',
    );
    expect(validateTenant(t)[0]).toMatchObject({ field: 'spec.host', line: 3 });
  });
});

describe('platform values validation (schemas/platform-values.schema.json)', () => {
  it('names the values file, line and field', () => {
    const v = valuesFile(
      'publishing:\n  host: example.org\n  exposedServices: [api, 3]\ngateway:\n  enabled: "yes"\n',
      'values.yaml',
    );
    const f = validatePlatformValues(v);
    expect(f.map((x) => [x.file, x.line, x.field])).toEqual([
      ['values.yaml', 3, 'publishing.exposedServices[1]'],
      ['values.yaml', 5, 'gateway.enabled'],
    ]);
    expect(f[1].message).toBe('must be a boolean, got "yes"');
  });

  it('null deletes a key and is not an error; unknown top-level keys are ignored', () => {
    expect(
      validatePlatformValues(valuesFile('gateway:\n  className: null\nsomethingElse: {a: 1}\n', 'n.yaml')),
    ).toEqual([]);
  });

  it('Package values: the Package object and the full field path', () => {
    const [p] = read(
      'apiVersion: cozystack.io/v1alpha1\nkind: Package\nmetadata:\n  name: cozystack.cozystack-platform\nspec:\n  components:\n    platform:\n      values:\n        gateway:\n          attachedNamespaces: cozy-system\n',
      'pkg.yaml',
    );
    const f = validatePlatformValues({ pkg: p });
    expect(f[0]).toMatchObject({
      file: 'pkg.yaml',
      line: 10,
      field: 'spec.components.platform.values.gateway.attachedNamespaces',
      object: { kind: 'Package' },
    });
  });

  it('render stops at invalid input and reports every invalid input', () => {
    const [t] = read(
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: a, namespace: tenant-root}\nspec: {gateway: 1}\n',
      'a.yaml',
    );
    const v = valuesFile('gateway:\n  enabled: 1\n', 'v.yaml');
    const r = render({ objects: [t], valuesFiles: [v] });
    expect(r.objects).toEqual([]);
    expect(r.findings.map((x) => `${x.file}:${x.line}`)).toEqual(['v.yaml:2', 'a.yaml:4']);
  });

  it('an input TenantGateway is checked against the CRD', () => {
    const [g] = read(
      'apiVersion: gateway.cozystack.io/v1alpha1\nkind: TenantGateway\nmetadata: {name: cozystack, namespace: tenant-a}\nspec:\n  apex: a.example.org\n  certMode: bogus\n',
      'tgw.yaml',
    );
    const r = render({ objects: [g], valuesFiles: [] });
    expect(r.objects).toEqual([]);
    expect(r.findings[0]).toMatchObject({
      severity: 'error',
      file: 'tgw.yaml',
      object: { kind: 'TenantGateway', name: 'cozystack' },
    });
  });
});

describe('fieldOfPointer', () => {
  it('turns JSON pointers into dotted paths with indexes', () => {
    expect(fieldOfPointer('/spec/items/3/name')).toBe('spec.items[3].name');
    expect(fieldOfPointer('/metadata/labels/a~1b')).toBe('metadata.labels.a/b');
    expect(fieldOfPointer('')).toBe('');
  });
});

describe('inputs are read with the YAML core schema, as Kubernetes reads them', () => {
  it('an unquoted date or timestamp stays the string it was, and is written back quoted', async () => {
    const { runCli } = require('../helpers/cli') as typeof import('../helpers/cli');
    const stdin =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n  creationTimestamp: 2024-05-01T10:00:00Z\ndata:\n  when: 2024-05-01\n';
    const r = await runCli(['reconcile', '-f', '-', '--all', '--now', '2026-01-01T00:00:00Z'], { stdin });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('creationTimestamp: "2024-05-01T10:00:00Z"');
    expect(r.stdout).toContain('when: "2024-05-01"');
  });
});

describe('values a typo left unset (unsetByTypoFindings)', () => {
  const pkg = (values: unknown): KObject =>
    ({
      apiVersion: 'cozystack.io/v1alpha1',
      kind: 'Package',
      metadata: { name: 'cozystack.cozystack-platform' },
      spec: { components: { platform: { values } } },
    }) as unknown as KObject;

  it('names each defaulted key below the typo that no source sets, with its default and the value written', () => {
    const f = unsetByTypoFindings([
      {
        file: 'v.yaml',
        values: { publishing: { certificate: { solver: 'dns01', issuerName: 'letsencrypt-prod' } } },
      },
    ]);
    expect(f.map((x) => [x.field, x.message])).toEqual([
      [
        'publishing.certificate',
        'not read, so publishing.certificates.solver is unset and gets the charts\' default "http01" (not "dns01")',
      ],
    ]);
  });

  it('no warning where another source sets the key, where the value written is the default, or for a key with no near miss', () => {
    expect(
      unsetByTypoFindings([
        { file: 'a.yaml', values: { publising: { host: 'acme.io' } } },
        { file: 'b.yaml', values: { publishing: { host: 'acme.io' } } },
      ]),
    ).toEqual([]);
    expect(unsetByTypoFindings([{ file: 'a.yaml', values: { publising: { host: 'example.org' } } }])).toEqual([]);
    expect(unsetByTypoFindings([{ file: 'a.yaml', values: { networking: { host: 'acme.io' } } }])).toEqual([]);
  });

  it("a Package's values are a source too: the finding names the Package and its field", () => {
    const f = unsetByTypoFindings([{ pkg: pkg({ gateway: { enabeld: true } }) }]);
    expect(f.map((x) => [x.object?.name, x.field])).toEqual([
      ['cozystack.cozystack-platform', 'spec.components.platform.values.gateway.enabeld'],
    ]);
    expect(f[0].message).toBe("not read, so gateway.enabled is unset and gets the charts' default false (not true)");
  });
});
