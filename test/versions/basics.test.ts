/**
 * cozystack-basics per Cozystack version (docs/versions.md §5, §X4, §X5): the admission policies
 * each version renders (compared with the policies exported from each tag's own templates), what
 * they admit (§B5's case-sensitive comparisons, §X5's routes without hostnames, matchPolicy
 * Equivalent), the ClusterRoles (§B4) and the monitoring Services (§B3); and the upstream chart
 * tests of the tags (packages/system/cozystack-basics/tests), mirrored where they differ from
 * main's (test/charts/upstreamUnittests.test.ts holds main's).
 *
 * The fixtures testdata/versions/basics-policies/<tag>.json are the documents
 * gateway-hostname-policy.yaml, route-hostname-policy.yaml and ingress-hostname-policy.yaml render
 * at v1.5.0 (v1.5.1 to v1.5.4 render the same), v1.6.2 (v1.6.0 and v1.6.1 the same) and upstream
 * main 3c780acd, with `_cluster.root-host` example.org and the ValidatingAdmissionPolicy API served.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { admit } from '../../src/admission/admit';
import { denials, type UserInfo } from '../../src/admission/decision';
import { clusterRoles, monitoringExternalServices } from '../../src/charts/cozystackBasics';
import { clusterValues, platformDefaults } from '../../src/charts/platformValues';
import { renderPolicies, POLICY_NAMES } from '../../src/charts/policies';
import { getPath, type KObject } from '../../src/k8s/model';
import { COZYSTACK_VERSIONS, type Behaviour, type CozystackVersion } from '../../src/platform/cozystackVersions';
import { render } from '../../src/pipelines/render';
import { TESTDATA } from '../helpers/cli';

const version = (name: string): CozystackVersion => COZYSTACK_VERSIONS.find((v) => v.name === name)!;
const RELEASES = COZYSTACK_VERSIONS.filter((v) => v.name !== 'main').map((v) => v.name);
const V15 = RELEASES.filter((n) => n.startsWith('v1.5'));
const V16 = RELEASES.filter((n) => n.startsWith('v1.6'));
const exported = (file: string): KObject[] =>
  JSON.parse(fs.readFileSync(path.join(TESTDATA, 'versions', 'basics-policies', file), 'utf8')) as KObject[];
const cluster = (over: Record<string, string | null> = {}) => ({
  ...clusterValues(platformDefaults()).cluster,
  'root-host': 'example.org',
  ...over,
});
const policiesOf = (v: string | Behaviour, over: Record<string, string | null> = {}) =>
  renderPolicies(cluster(over), { behaviour: typeof v === 'string' ? version(v).behaviour : v });
const names = (objs: KObject[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`);

describe('the policies each version renders (docs/versions.md §B2, §X4, §X5)', () => {
  test.each(V15)('%s: what the tag renders, five policies, no Ingress policy', (v) => {
    expect(policiesOf(v)).toEqual(exported('v1.5.0.json'));
  });
  test.each(V16)('%s: what the tag renders, the Ingress policy last, the root host baked in', (v) => {
    expect(policiesOf(v)).toEqual(exported('v1.6.2.json'));
  });
  test('the variant comparing hosts without case is what upstream main 3c780acd renders (docs/versions.md §B5)', () => {
    const b: Behaviour = { ...version('v1.6.2').behaviour, hostComparisonsIgnoreCase: true };
    expect(policiesOf(b)).toEqual(exported('main-3c780acd.json'));
  });
  test.each(RELEASES)('%s: the policies in template order, each followed by its binding', (v) => {
    const want = [
      POLICY_NAMES.gateway,
      POLICY_NAMES.tenantHost,
      POLICY_NAMES.namespaceLabel,
      POLICY_NAMES.route,
      POLICY_NAMES.routeTls,
      ...(V16.includes(v) ? [POLICY_NAMES.ingress] : []),
    ].flatMap((n) => [`ValidatingAdmissionPolicy/${n}`, `ValidatingAdmissionPolicyBinding/${n}`]);
    expect(names(policiesOf(v))).toEqual(want);
  });
  test('main: the attached-namespaces policy (layer 3) and one route policy, no route-tls (docs/versions.md §X4)', () => {
    const n = names(policiesOf('main'));
    expect(n).toContain(`ValidatingAdmissionPolicy/${POLICY_NAMES.attachedNamespaces}`);
    expect(n).not.toContain(`ValidatingAdmissionPolicy/${POLICY_NAMES.routeTls}`);
  });
  test.each(V16)(
    '%s: no Ingress policy when the root host is empty or null; a blank one is baked in as written',
    (v) => {
      expect(names(policiesOf(v, { 'root-host': '' }))).not.toContain(
        `ValidatingAdmissionPolicy/${POLICY_NAMES.ingress}`,
      );
      expect(names(policiesOf(v, { 'root-host': null }))).not.toContain(
        `ValidatingAdmissionPolicy/${POLICY_NAMES.ingress}`,
      );
      const blank = policiesOf(v, { 'root-host': ' ' }).find((p) => p.metadata.name === POLICY_NAMES.ingress)!;
      expect(getPath(blank, 'spec.validations.0.expression')).toContain('r.host == " "');
    },
  );
  test.each(['main', 'v1.6.2'])('%s: the root host goes into the Ingress policy as written', (v) => {
    const p = policiesOf(v, { 'root-host': 'Corp.Example.NET' }).find(
      (x) => x.kind === 'ValidatingAdmissionPolicy' && x.metadata.name === POLICY_NAMES.ingress,
    )!;
    const text = JSON.stringify(p.spec);
    expect(text).toContain(v === 'main' ? 'corp.example.net' : 'Corp.Example.NET');
  });
});

describe('what the policies admit per version (docs/versions.md §B5, §X5)', () => {
  const FLUX: UserInfo = {
    username: 'system:serviceaccount:cozy-fluxcd:helm-controller',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:cozy-fluxcd', 'system:authenticated'],
  };
  const ns = (host: string): KObject => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'tenant-alice', labels: { 'namespace.cozystack.io/host': host } },
  });
  const route = (kind: string, apiVersion: string, hostnames?: string[]): KObject => ({
    apiVersion,
    kind,
    metadata: { name: 'r', namespace: 'tenant-alice' },
    spec: { parentRefs: [{ name: 'cozystack' }], ...(hostnames ? { hostnames } : {}) },
  });
  const ingress = (host: string): KObject => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'i', namespace: 'tenant-alice' },
    spec: { rules: [{ host }] },
  });
  /** The policies that deny the last object, with their messages. */
  const denied = (v: string, objs: KObject[], over: Record<string, string> = {}): string[] => {
    const last = objs[objs.length - 1];
    return denials(admit(objs, policiesOf(v, over), FLUX))
      .filter((d) => d.object.kind === last.kind)
      .flatMap((d) => d.messages.map((m) => `${d.policy}: ${m}`));
  };
  const UPPER = ns('Alice.Example.Org');

  test.each(RELEASES)('%s: an upper-case host label denies the tenant its own lower-case route hostname', (v) => {
    expect(denied(v, [UPPER, route('HTTPRoute', 'gateway.networking.k8s.io/v1', ['app.alice.example.org'])])).toEqual([
      `${POLICY_NAMES.route}: HTTPRoute hostnames must equal the namespace's namespace.cozystack.io/host label or be subdomains of it (namespace tenant-alice)`,
    ]);
  });
  test('main: the same route is admitted (both sides lowercased)', () => {
    expect(
      denied('main', [UPPER, route('HTTPRoute', 'gateway.networking.k8s.io/v1', ['app.alice.example.org'])]),
    ).toEqual([]);
  });
  test.each(RELEASES)('%s: an upper-case host label denies the tenant its own Gateway listener hostname', (v) => {
    const gw: KObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'tenant-alice' },
      spec: { listeners: [{ name: 'l', port: 443, protocol: 'HTTPS', hostname: 'alice.example.org' }] },
    };
    expect(denied(v, [UPPER, gw])).toEqual([
      `${POLICY_NAMES.gateway}: Gateway listener hostname must equal Alice.Example.Org or end with .Alice.Example.Org (namespace tenant-alice carries label namespace.cozystack.io/host=Alice.Example.Org)`,
    ]);
    expect(denied('main', [UPPER, gw])).toEqual([]);
  });
  test.each(V16)('%s: an upper-case publishing.host makes every platform name "outside the platform apex"', (v) => {
    const objs = [ns('alice.example.org'), ingress('dashboard.example.org')];
    expect(denied(v, objs, { 'root-host': 'Example.Org' })).toEqual([]);
    expect(denied(v, objs)).toHaveLength(1);
    expect(denied('main', objs, { 'root-host': 'Example.Org' })).toHaveLength(1);
  });
  test.each(V15)('%s: an Ingress is admitted, whatever its host: no policy matches Ingresses', (v) => {
    expect(denied(v, [ns('alice.example.org'), ingress('dashboard.example.org')])).toEqual([]);
    const decisions = admit([ns('alice.example.org'), ingress('dashboard.example.org')], policiesOf(v), FLUX);
    expect(decisions.filter((d) => d.object.kind === 'Ingress')).toEqual([]);
  });
  test.each(RELEASES)('%s: a route without hostnames is admitted; main requires them', (v) => {
    const bare = route('HTTPRoute', 'gateway.networking.k8s.io/v1');
    expect(denied(v, [ns('alice.example.org'), bare])).toEqual([]);
    expect(denied('main', [ns('alice.example.org'), bare])).toHaveLength(1);
  });
  test.each(RELEASES)('%s: a route in a namespace without the host label is denied (fail-closed)', (v) => {
    const bare: KObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-alice' } };
    expect(denied(v, [bare, route('HTTPRoute', 'gateway.networking.k8s.io/v1', ['x.org'])])).toHaveLength(1);
  });
  // The release's TLSRoute policy lists v1alpha2 only; the API server converts the versions the
  // CRD bundle serves of one resource (matchPolicy Equivalent).
  test.each([
    ['v1alpha2', 1],
    ['v1alpha3', 1],
    ['v1', 1],
  ] as const)('v1.6.2: a TLSRoute written as %s outside the apex is judged by the v1alpha2 rule', (ver, n) => {
    const objs = [ns('alice.example.org'), route('TLSRoute', `gateway.networking.k8s.io/${ver}`, ['evil.org'])];
    const d = denied('v1.6.2', objs);
    expect(d).toHaveLength(n);
    expect(d[0]).toMatch(/^cozystack-route-hostname-policy-tls: TLSRoute hostnames must equal/);
  });
  test('v1.6.2: no policy matches a GRPCRoute', () => {
    const objs = [ns('alice.example.org'), route('GRPCRoute', 'gateway.networking.k8s.io/v1', ['evil.org'])];
    expect(admit(objs, policiesOf('v1.6.2'), FLUX).filter((d) => d.object.kind === 'GRPCRoute')).toEqual([]);
  });
});

describe('ClusterRoles and the monitoring Services (docs/versions.md §B3, §B4)', () => {
  const ruleCounts = (b: Behaviour) =>
    Object.fromEntries(clusterRoles(b).map((r) => [r.metadata.name, (r.rules as unknown[] | undefined)?.length ?? 0]));
  const sgRule = (r: KObject) =>
    ((r.rules ?? []) as Record<string, string[]>[]).filter((x) => x.apiGroups?.includes('sdn.cozystack.io'));
  test.each(V15)('%s: no SecurityGroup rules; base 7, view:base 7, admin:base 3 rules', (v) => {
    const counts = ruleCounts(version(v).behaviour);
    expect([counts['cozy:tenant:base'], counts['cozy:tenant:view:base'], counts['cozy:tenant:admin:base']]).toEqual([
      7, 7, 3,
    ]);
    expect(clusterRoles(version(v).behaviour).flatMap((r) => sgRule(r).map(() => r.metadata.name))).toEqual([]);
  });
  test.each([...V16, 'main'])('%s: the SecurityGroup rules; base 8, view:base 8, admin:base 4 rules', (v) => {
    const counts = ruleCounts(version(v).behaviour);
    expect([counts['cozy:tenant:base'], counts['cozy:tenant:view:base'], counts['cozy:tenant:admin:base']]).toEqual([
      8, 8, 4,
    ]);
  });
  test.each(COZYSTACK_VERSIONS.map((v) => v.name))('%s: the other roles keep their rules', (v) => {
    const counts = ruleCounts(version(v).behaviour);
    expect([counts['cozy:tenant:use:base'], counts['cozy:tenant:super-admin:base']]).toEqual([4, 2]);
  });
  test.each(V15)('%s: the three monitoring Services render even with monitoring-enabled "false"', (v) => {
    expect(monitoringExternalServices({ 'monitoring-enabled': 'false' }, version(v).behaviour)).toHaveLength(3);
  });
  test.each([...V16, 'main'])('%s: monitoring-enabled "false" leaves them out', (v) => {
    expect(monitoringExternalServices({ 'monitoring-enabled': 'false' }, version(v).behaviour)).toEqual([]);
  });
});

describe('no tenant namespace guard under a release (docs/versions.md §X4)', () => {
  const values = { gateway: { enabled: true, attachedNamespaces: ['cozy-system', 'tenant-alice'] } };
  const input = { objects: [], valuesFiles: [{ file: 'values.yaml', values }] };
  test.each(RELEASES)('%s: a tenant-* entry renders, and no layer-3 policy', (v) => {
    const r = render(input, { cozystack: version(v) });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(r.objects.map((o) => o.metadata.name)).not.toContain(POLICY_NAMES.attachedNamespaces);
  });
  test('main: the render refuses it (layer 6)', () => {
    const r = render(input, { cozystack: version('main') });
    expect(r.findings.map((f) => f.rule)).toContain('basics.attached-namespaces');
  });
});
