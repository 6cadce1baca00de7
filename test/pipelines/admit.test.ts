import { callerOf, DENIAL_HINTS, denialHint, formatDenial, platformPolicies } from '../../src/pipelines/admit';
import { POLICY_NAMES, renderPolicies } from '../../src/charts/policies';
import { admit, denials } from '../../src/admission/admit';
import type { KObject } from '../../src/k8s/model';

describe('the admit request', () => {
  it('the caller gets the group the apiserver adds on impersonation, once', () => {
    expect(callerOf()).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect(callerOf('alice', ['tenant-alice-admin'])).toEqual({
      username: 'alice',
      groups: ['tenant-alice-admin', 'system:authenticated'],
    });
    expect(callerOf('alice', ['system:authenticated'])).toEqual({
      username: 'alice',
      groups: ['system:authenticated'],
    });
    const given = ['g'];
    callerOf('bob', given);
    expect(given).toEqual(['g']);
  });

  it('every denial hint names a policy render emits, and every policy has a hint', () => {
    const emitted = renderPolicies({ 'expose-ingress': 'tenant-root', 'root-host': 'example.org' })
      .filter((p) => p.kind === 'ValidatingAdmissionPolicy')
      .map((p) => p.metadata.name);
    expect(emitted.length).toBeGreaterThanOrEqual(5);
    for (const name of emitted) expect(DENIAL_HINTS[name]).toBeDefined();
    expect(Object.keys(DENIAL_HINTS).sort()).toEqual(Object.values(POLICY_NAMES).sort());
    expect(denialHint('unknown').hint).toMatch(/--as-group/);
  });

  it('the policies are those of the platform values given; no policies when the values fail', () => {
    const ns: KObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'tenant-alice', labels: { 'namespace.cozystack.io/host': 'alice.example.org' } },
    };
    const route: KObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'app', namespace: 'tenant-alice' },
      spec: { hostnames: ['bob.example.org'] },
    };
    const platform = platformPolicies({
      objects: [ns, route],
      valuesFiles: [{ file: 'v.yaml', values: { publishing: { host: 'example.org' } } }],
    });
    expect(platform.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const d = denials(admit([ns, route], platform.policies, callerOf('alice')));
    // alice may not set the host label herself, nor publish a hostname outside her apex
    expect(d.map((x) => formatDenial(x, x.messages.join('; ')))).toEqual([
      expect.stringMatching(
        /^Namespace tenant-alice: ValidatingAdmissionPolicy 'cozystack-namespace-host-label-policy'/,
      ),
      expect.stringMatching(
        /^HTTPRoute tenant-alice\/app: ValidatingAdmissionPolicy 'cozystack-route-hostname-policy' with binding '[^']+' denied request: /,
      ),
    ]);
    expect(
      platformPolicies({ objects: [], valuesFiles: [{ file: 'v.yaml', values: { gateway: { className: '   ' } } }] }),
    ).toEqual({ policies: [], findings: [expect.objectContaining({ severity: 'error' })] });
  });
});
