/**
 * Spec audit, the render half (docs/behaviour.md §1-§3): sentences whose
 * behaviour no other test pinned down, each test citing the sentence it holds the code to.
 */
import { renderGateway } from '../../src/charts/gatewayChart';
import type { KObject } from '../../src/k8s/model';
import { clusterValues, resolvePlatformValues } from '../../src/charts/platformValues';
import { type ClusterMap } from '../../src/platform/tenancy';
import { render } from '../../src/pipelines/render';
import { inheritNamespace } from '../../src/charts/namespaceTemplate';
import { rootNamespaceValues } from '../../src/charts/cozystackBasics';
import type { TenantRelease } from '../../src/charts/tenantRelease';

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'apps.cozystack.io/v1alpha1',
  kind: 'Tenant',
  metadata: { name, namespace },
  spec,
});
const values = (v: Record<string, unknown>) => ({ file: 'values.yaml', values: v });

function cluster(v: Record<string, unknown> = {}): ClusterMap {
  return clusterValues(
    resolvePlatformValues({
      files: [
        { file: 'b', values: { gateway: { enabled: true } } },
        { file: 'v', values: v },
      ],
      objects: [],
    }).values,
  ).cluster;
}
function release(c: ClusterMap, name: string, gatewayClassName?: string): TenantRelease {
  const T = name === 'root' ? 'tenant-root' : `tenant-${name}`;
  const ns =
    name === 'root' ? rootNamespaceValues(c) : inheritNamespace(T, name, { gateway: true }, rootNamespaceValues(c));
  return {
    tenant: tenant(name, 'tenant-root', { gateway: true }),
    name,
    namespace: T,
    parentNamespace: 'tenant-root',
    releaseName: 'tenant-x',
    spec: {},
    values: { _cluster: c, _namespace: ns },
    ownsGateway: true,
    gatewayClassName,
  };
}
const rules = (r: TenantRelease) =>
  renderGateway(r)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.rule);

describe('what the chart chain renders', () => {
  // "Helm does not render Gateway or Certificate directly — that prevents the Helm-vs-controller
  // race": render emits tenant Namespaces and Secrets, TenantGateways and the policies, nothing of
  // what the controller owns.
  it('no Gateway, Certificate, Issuer or route: the gateway slice is only Namespaces, Secrets, TenantGateways and the policies', () => {
    const input = {
      objects: [
        tenant('root', 'tenant-root', { gateway: true }),
        tenant('alice', 'tenant-root', { gateway: true }),
        tenant('bob', 'tenant-alice'),
      ],
      valuesFiles: [values({ gateway: { enabled: true }, publishing: { certificates: { solver: 'dns01' } } })],
    };
    const slice = render(input, { gatewayOnly: true });
    expect(slice.findings).toEqual([]);
    expect([...new Set(slice.objects.map((o) => o.kind))].sort()).toEqual([
      'Namespace',
      'Secret',
      'TenantGateway',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    // The whole tenant adds the apps/tenant and cozystack-basics objects, still none of the controller's.
    const r = render(input);
    expect(r.findings).toEqual([]);
    const kinds = new Set(r.objects.map((o) => o.kind));
    for (const k of ['Gateway', 'Certificate', 'Issuer', 'HTTPRoute']) expect([k, kinds.has(k)]).toEqual([k, false]);
    // "The chart renders one ... TenantGateway CR per tenant" that owns a Gateway; bob inherits.
    expect(r.objects.filter((o) => o.kind === 'TenantGateway').map((o) => o.metadata.namespace)).toEqual([
      'tenant-alice',
      'tenant-root',
    ]);
  });

  // "Other tenants under that tenant inherit through the publishing Gateway without opting in" and
  // "A tenant that needs its own LB IP ... Otherwise leave gateway unset and inherit": a tenant
  // with gateway: false renders no TenantGateway and carries the nearest owner's name.
  it('an inheriting grandchild carries the nearest owning ancestor on its gateway label', () => {
    const r = render({
      objects: [
        tenant('root', 'tenant-root', { gateway: true }),
        tenant('alice', 'tenant-root', { gateway: true }),
        tenant('bob', 'tenant-alice', { gateway: false }),
        tenant('carol', 'tenant-root'),
      ],
      valuesFiles: [values({ gateway: { enabled: true } })],
    });
    const label = (ns: string) =>
      r.objects.find((o) => o.kind === 'Namespace' && o.metadata.name === ns)?.metadata.labels?.[
        'namespace.cozystack.io/gateway'
      ];
    expect(label('tenant-alice-bob')).toBe('tenant-alice');
    expect(label('tenant-carol')).toBe('tenant-root');
    expect(label('tenant-alice')).toBe('tenant-alice');
  });
});

describe('guard 5: the publishing tenant cannot cross the edge line', () => {
  // "which namespace counts as the publishing tenant comes from publishing.ingressName": the guard
  // follows the publishing tenant wherever ingressName puts it, and releases tenant-root.
  const c = cluster({
    publishing: { ingressName: 'tenant-pub' },
    gateway: { edgeTerminatedClasses: ['cf'], tenantSelectableClasses: ['cf'] },
  });
  it('applies to the tenant publishing.ingressName names', () => {
    expect(rules(release(c, 'pub', 'cf'))).toEqual(['gateway.publishing-edge-line']);
  });
  it('no longer applies to tenant-root once it is not the publishing tenant', () => {
    expect(rules(release(c, 'root', 'cf'))).toEqual([]);
    expect(renderGateway(release(c, 'root', 'cf')).object?.spec).toMatchObject({ certMode: 'edge' });
  });
  // "whether the solver pins sectionName: http is decided from gateway.className alone": the
  // guard compares the chosen class with gateway.className, not with the tenant's previous class.
  it('a non-edge class other than the default is not a crossing', () => {
    const d = cluster({ gateway: { tenantSelectableClasses: ['envoy'], edgeTerminatedClasses: ['cf'] } });
    expect(rules(release(d, 'root', 'envoy'))).toEqual([]);
  });
  // "Move gateway.className instead": moving the platform default onto the edge class moves the
  // publishing tenant with it, and it renders certMode edge without tlsPassthroughServices.
  it('moving gateway.className onto an edge class renders the publishing tenant as edge', () => {
    const d = cluster({ gateway: { className: 'cf', edgeTerminatedClasses: ['cf'] } });
    const g = renderGateway(release(d, 'root'));
    expect(g.findings).toEqual([]);
    expect(g.object?.spec).toMatchObject({ gatewayClassName: 'cf', certMode: 'edge' });
    expect(g.object?.spec).not.toHaveProperty('tlsPassthroughServices');
  });
});

describe('edge reads none of the certificate inputs', () => {
  // "The mode wins over wildcardSecretName and over solver; the solver, provider, issuer and
  // wildcard-secret inputs are not read": guard 7 (route53 region, rfc2136 nameserver) included.
  it.each(['route53', 'rfc2136', 'bogus'])(
    'dns01 provider %s without its required keys does not fail an edge tenant',
    (provider) => {
      const c = cluster({
        gateway: { className: 'cf', edgeTerminatedClasses: ['cf'] },
        publishing: { certificates: { solver: 'dns01', issuerName: 'zerossl', dns01: { provider } } },
      });
      const g = renderGateway(release(c, 'alice'));
      expect(g.findings).toEqual([]);
      expect(g.object?.spec).toEqual({ apex: 'alice.example.org', gatewayClassName: 'cf', certMode: 'edge' });
    },
  );
});

describe('the values channel carries only names', () => {
  // "The platform chart writes the value into _cluster.wildcard-secret-name (the name only — the
  // certificate and private key never travel on the values channel)".
  it('existingSecret puts only the Secret name on the TenantGateway and in the tenant Secrets', () => {
    const r = render({
      objects: [tenant('root', 'tenant-root', { gateway: true })],
      valuesFiles: [
        values({ gateway: { enabled: true }, publishing: { certificates: { wildcardSecretName: 'corp-wildcard' } } }),
      ],
    });
    expect(r.findings).toEqual([]);
    const tgw = r.objects.find((o) => o.kind === 'TenantGateway') as KObject;
    expect(tgw.spec).toMatchObject({ certMode: 'existingSecret', wildcardSecretRef: { name: 'corp-wildcard' } });
    const secret = r.objects.find((o) => o.kind === 'Secret') as KObject;
    expect(Object.keys(secret.stringData as object)).toEqual(['values.yaml']);
    expect((secret.stringData as Record<string, string>)['values.yaml']).toContain(
      'wildcard-secret-name: corp-wildcard',
    );
    expect(secret).not.toHaveProperty('data');
  });
});

describe('gatewayClassName parameter', () => {
  // "gatewayClassName — set from tenant.spec.gatewayClass. Empty means the platform default
  // (_cluster.gateway-class-name, itself defaulting to the bundled cilium class)".
  it('an empty tenant class is the platform default; an unset platform default is cilium', () => {
    const r = render({
      objects: [
        tenant('root', 'tenant-root', { gateway: true, gatewayClass: '' }),
        tenant('alice', 'tenant-root', { gateway: true }),
      ],
      valuesFiles: [values({ gateway: { enabled: true, className: null } })],
    });
    expect(r.findings).toEqual([]);
    expect(
      r.objects
        .filter((o) => o.kind === 'TenantGateway')
        .map((o) => (o.spec as Record<string, unknown>).gatewayClassName),
    ).toEqual(['cilium', 'cilium']);
  });
});

describe('DNS-01 provider table: required keys', () => {
  // "AWS Route53 | route53 | route53.region, route53.secretName (and route53.accessKeyID if not
  // using IRSA)"; "RFC 2136 | rfc2136 | rfc2136.nameserver, rfc2136.tsigKeyName,
  // rfc2136.secretName". region and nameserver fail the render (guard 7); the others have no
  // default and upstream renders them empty, so an empty one warns and the render goes on.
  const dns01 = (provider: string, block: Record<string, unknown>) =>
    cluster({ publishing: { certificates: { solver: 'dns01', dns01: { provider, [provider]: block } } } });
  const warned = (c: ClusterMap) => {
    const g = renderGateway(release(c, 'alice'));
    expect(g.object).toBeDefined();
    return g.findings.map((f) => `${f.severity} ${f.rule}: ${f.message.replace(/^.*?: /, '')}`);
  };
  it('route53 without secretName warns', () => {
    expect(warned(dns01('route53', { region: 'eu-west-1' }))).toEqual([
      "warning gateway.dns01-required-key: DNS-01 provider route53 requires publishing.certificates.dns01.route53.secretName, which is empty: the tenant's Issuer would name no credentials Secret",
    ]);
    expect(warned(dns01('route53', { region: 'eu-west-1', secretName: 'r53' }))).toEqual([]);
  });
  it('rfc2136 without tsigKeyName or secretName warns for each', () => {
    expect(warned(dns01('rfc2136', { nameserver: 'ns:53' })).map((w) => w.split(',')[0])).toEqual([
      'warning gateway.dns01-required-key: DNS-01 provider rfc2136 requires publishing.certificates.dns01.rfc2136.tsigKeyName',
      'warning gateway.dns01-required-key: DNS-01 provider rfc2136 requires publishing.certificates.dns01.rfc2136.secretName',
    ]);
    expect(warned(dns01('rfc2136', { nameserver: 'ns:53', tsigKeyName: 'k', secretName: 's' }))).toEqual([]);
  });
  it('cloudflare and digitalocean have defaults for every required key', () => {
    expect(warned(dns01('cloudflare', {}))).toEqual([]);
    expect(warned(dns01('digitalocean', {}))).toEqual([]);
  });
  it('no warning where the provider is not read (existingSecret, http01)', () => {
    expect(
      warned(
        cluster({
          publishing: {
            certificates: {
              solver: 'dns01',
              wildcardSecretName: 'w',
              dns01: { provider: 'rfc2136', rfc2136: { nameserver: 'ns' } },
            },
          },
        }),
      ),
    ).toEqual([]);
    expect(warned(cluster({ publishing: { certificates: { dns01: { provider: 'route53' } } } }))).toEqual([]);
  });
  it('a warning does not stop the render', () => {
    const r = render({
      objects: [tenant('root', 'tenant-root', { gateway: true })],
      valuesFiles: [
        values({
          gateway: { enabled: true },
          publishing: {
            certificates: { solver: 'dns01', dns01: { provider: 'route53', route53: { region: 'us-east-1' } } },
          },
        }),
      ],
    });
    expect(r.findings.map((f) => f.severity)).toEqual(['warning']);
    expect(r.objects.some((o) => o.kind === 'TenantGateway')).toBe(true);
  });
});

describe('guard 1 wording', () => {
  // docs/behaviour.md §3.1 guard 1: "`_namespace.host` is empty. The message says to set
  // `tenant.spec.host` or inherit one." — the message itself, for tenant-root as for a child.
  it.each(['root', 'alice'])('an empty host on %s: the message says to set tenant.spec.host or inherit one', (name) => {
    const f = renderGateway(release(cluster({ publishing: { host: '' } }), name)).findings;
    expect(f).toHaveLength(1);
    expect(f[0].message).toMatch(/set tenant\.spec\.host or inherit one/);
  });
});

describe("tenant-root's host label", () => {
  // docs/behaviour.md §2.2: "a label value over 63 characters breaks the Namespace write"; §2.7:
  // tenant-root's Namespace carries namespace.cozystack.io/host: <root-host>. A child tenant with
  // such a host already fails the render; tenant-root fails it too, naming publishing.host.
  it('a publishing.host over 63 characters fails the render at the values file', () => {
    const host = `${'a'.repeat(60)}.example.org`;
    const r = render({ objects: [], valuesFiles: [values({ publishing: { host } })] });
    expect(r.objects).toEqual([]);
    expect(r.findings).toEqual([
      expect.objectContaining({
        severity: 'error',
        rule: 'tenant.label-value',
        file: 'values.yaml',
        field: 'publishing.host',
      }),
    ]);
    expect(r.findings[0].message).toMatch(
      /72 characters long.*namespace\.cozystack\.io\/host of Namespace tenant-root/,
    );
  });
  it('a host of 63 characters renders', () => {
    const host = `${'a'.repeat(51)}.example.org`;
    expect(host).toHaveLength(63);
    expect(render({ objects: [], valuesFiles: [values({ publishing: { host } })] }).findings).toEqual([]);
  });
});
