/**
 * Spec audit, the admission policies on UPDATE (docs/behaviour.md §7.4, §7.5). `cozy-gw admit` judges every object as a CREATE, so the UPDATE
 * half of these layers (oldObject set) is exercised here by evaluating the rendered policy's own
 * matchConditions, variables and validations with the CEL engine, as the apiserver would.
 */
import { evalBool, evalCel, evalString, toCel } from '../../src/cel/cel';
import type { KObject } from '../../src/k8s/model';
import { clusterValues, platformDefaults } from '../../src/charts/platformValues';
import { attachedNamespacesGuard, POLICY_NAMES, renderPolicies } from '../../src/charts/policies';

const POLICIES = renderPolicies(clusterValues(platformDefaults()).cluster);
const vap = (name: string) =>
  POLICIES.find((p) => p.kind === 'ValidatingAdmissionPolicy' && p.metadata.name === name) as KObject;

type Named = { name: string; expression: string };
/** 'skip' when a matchCondition is false, else the messages of the failed validations. */
function judge(
  policy: string,
  object: KObject,
  oldObject: KObject | null,
  groups: string[],
  username = 'someone',
): 'skip' | string[] {
  const spec = vap(policy).spec as {
    matchConditions?: Named[];
    variables?: Named[];
    validations: { expression: string; messageExpression: string }[];
  };
  const base = {
    object: toCel(object),
    oldObject: oldObject ? toCel(oldObject) : null,
    namespaceObject: null,
    params: null,
    request: toCel({
      operation: oldObject ? 'UPDATE' : 'CREATE',
      namespace: object.metadata.namespace ?? '',
      userInfo: { username, groups },
    }),
  };
  for (const c of spec.matchConditions ?? []) if (!evalBool(c.expression, { ...base, variables: {} })) return 'skip';
  const variables: Record<string, unknown> = {};
  for (const v of spec.variables ?? []) variables[v.name] = evalCel(v.expression, { ...base, variables });
  return spec.validations
    .filter((v) => !evalBool(v.expression, { ...base, variables }))
    .map((v) => evalString(v.messageExpression, { ...base, variables }));
}

const TENANT_USER = ['tenant-alice-admin', 'system:authenticated'];
const FLUX = ['system:serviceaccounts', 'system:serviceaccounts:cozy-fluxcd', 'system:authenticated'];

describe('layer 4 on UPDATE: "Rejects setting or changing spec.host unless the caller is trusted"', () => {
  const t = (host?: string, extra: Record<string, unknown> = {}): KObject => ({
    apiVersion: 'apps.cozystack.io/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'alice', namespace: 'tenant-root' },
    spec: { ...(host !== undefined ? { host } : {}), ...extra },
  });
  it('an unchanged host passes an untrusted update of another field', () => {
    expect(
      judge(POLICY_NAMES.tenantHost, t('alice.example.org', { etcd: true }), t('alice.example.org'), TENANT_USER),
    ).toEqual([]);
  });
  it('changing the host is denied for an untrusted caller, naming the user and both values', () => {
    const m = judge(POLICY_NAMES.tenantHost, t('dashboard.example.org'), t('alice.example.org'), TENANT_USER, 'alice');
    expect(m).toEqual([
      expect.stringMatching(
        /^spec\.host can only be set by cluster-admins or cozystack\/Flux service accounts: user alice .*alice\.example\.org.*dashboard\.example\.org/,
      ),
    ]);
  });
  it('setting a host on an update (none before) is denied; clearing one is a change too', () => {
    expect(judge(POLICY_NAMES.tenantHost, t('x.example.org'), t(), TENANT_USER)).toHaveLength(1);
    expect(judge(POLICY_NAMES.tenantHost, t(''), t('alice.example.org'), TENANT_USER)).toHaveLength(1);
  });
  it('a trusted caller may change it', () => {
    expect(judge(POLICY_NAMES.tenantHost, t('dashboard.example.org'), t('alice.example.org'), FLUX)).toEqual([]);
  });
  it('an update that never had a host is not judged at all', () => {
    expect(judge(POLICY_NAMES.tenantHost, t(undefined, { etcd: true }), t(), TENANT_USER)).toBe('skip');
  });
});

describe('layer 5 on UPDATE: "closes both first-time label writes on CREATE and first-time adds on UPDATE"', () => {
  const n = (labels?: Record<string, string>): KObject => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'tenant-alice', ...(labels ? { labels } : {}) },
  });
  const host = (v: string) => ({ 'namespace.cozystack.io/host': v });
  it('a first-time add on UPDATE is denied for an untrusted caller', () => {
    expect(judge(POLICY_NAMES.namespaceLabel, n(host('alice.example.org')), n(), TENANT_USER)).toEqual([
      expect.stringMatching(/immutable.*old "", new "alice\.example\.org", user someone/),
    ]);
  });
  it('a change or a removal is denied; an untouched label passes an update of other labels', () => {
    expect(
      judge(POLICY_NAMES.namespaceLabel, n(host('evil.example.org')), n(host('alice.example.org')), TENANT_USER),
    ).toHaveLength(1);
    expect(judge(POLICY_NAMES.namespaceLabel, n({}), n(host('alice.example.org')), TENANT_USER)).toHaveLength(1);
    expect(
      judge(
        POLICY_NAMES.namespaceLabel,
        n({ ...host('alice.example.org'), team: 'a' }),
        n(host('alice.example.org')),
        TENANT_USER,
      ),
    ).toEqual([]);
  });
  it('only cozystack/Flux service accounts (and cluster-admins) can stamp the label', () => {
    expect(judge(POLICY_NAMES.namespaceLabel, n(host('alice.example.org')), n(), FLUX)).toEqual([]);
    expect(judge(POLICY_NAMES.namespaceLabel, n(host('alice.example.org')), n(), ['system:masters'])).toEqual([]);
  });
  it('a namespace that never carried the label is not judged', () => {
    expect(judge(POLICY_NAMES.namespaceLabel, n({ team: 'a' }), n(), TENANT_USER)).toBe('skip');
  });
});

describe('layer 6 wording', () => {
  // docs/behaviour.md §7.6: "Any gateway-attached-namespaces entry (split and trimmed) starting
  // with tenant-. The message names it and points to tenant.spec.gateway=true." — the message
  // itself, not only the hint.
  it('the message names the entry and points to tenant.spec.gateway=true', () => {
    const f = attachedNamespacesGuard({
      ...clusterValues(platformDefaults()).cluster,
      'gateway-attached-namespaces': 'cozy-system, tenant-alice ',
    });
    expect(f).toHaveLength(1);
    expect(f[0].message).toMatch(/"tenant-alice".*tenant\.spec\.gateway=true/);
  });
});
