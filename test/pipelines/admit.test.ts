import {
  admitFails,
  admitJson,
  admitRefusals,
  admitRequest,
  callerOf,
  DENIAL_HINTS,
  denialHint,
  formatAdmissionWarning,
  formatDenial,
  placementNote,
  platformPolicies,
  type AdmitOutcome,
} from '../../src/pipelines/admit';
import { POLICY_NAMES, renderPolicies } from '../../src/charts/policies';
import { admit } from '../../src/admission/admit';
import { denials, type Decision } from '../../src/admission/decision';
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
    expect(d.map((x) => formatDenial(x))).toEqual([
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

describe('admitRequest: the decisions and whether the run fails, without the CLI', () => {
  const values = [{ file: 'v.yaml', values: { publishing: { host: 'example.org' } } }];
  const aliceNs: KObject = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'tenant-alice', labels: { 'namespace.cozystack.io/host': 'alice.example.org' } },
  };
  const route = (name: string, namespace: string | undefined, host: string): KObject => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { hostnames: [host] },
  });

  it('a namespaced object without a namespace is judged in the request namespace, and said so', () => {
    const o = admitRequest({
      objects: [aliceNs, route('app', undefined, 'bob.example.org')],
      valuesFiles: values,
      namespace: 'tenant-alice',
      as: 'kubernetes-admin',
      asGroups: ['system:masters'],
    });
    expect(o.placed.map((p) => `${p.original.metadata.namespace ?? '-'} -> ${p.placed.metadata.namespace}`)).toEqual([
      '- -> tenant-alice',
    ]);
    expect(o.denied.map((d) => `${d.object.namespace}/${d.object.name} ${d.policy}`)).toEqual([
      'tenant-alice/app cozystack-route-hostname-policy',
    ]);
    expect(admitFails(o, false)).toBe(true);
    expect(placementNote(o.placed[0], 'tenant-alice')).toBe(
      'HTTPRoute app has no metadata.namespace: judged in namespace tenant-alice (set -n/--namespace to choose another)',
    );
    expect(Object.entries(admitJson(o)).map(([k, v]) => [k, Array.isArray(v) ? v.length : v])).toEqual([
      ['allowed', false],
      ['user', o.caller],
      ['decisions', o.decisions.length],
    ]);
  });

  it('two objects with one identity are a duplicate finding at each copy; a clean request does not fail', () => {
    const ok = route('app', 'tenant-alice', 'www.alice.example.org');
    const o = admitRequest({ objects: [aliceNs, ok, ok], valuesFiles: values, namespace: 'default', asGroups: [] });
    expect(o.duplicates.map((f) => [f.severity, f.message])).toEqual([
      ['error', 'given 2 times in the inputs; this is copy 1 of 2'],
      ['error', 'given 2 times in the inputs; this is copy 2 of 2'],
    ]);
    const clean = admitRequest({
      objects: [aliceNs, ok],
      valuesFiles: values,
      namespace: 'default',
      as: 'kubernetes-admin',
      asGroups: ['system:masters'],
    });
    expect([clean.duplicates, clean.denied, admitFails(clean, true)]).toEqual([[], [], false]);
  });

  it('--strict fails on an admission warning, and the warning line says error', () => {
    const warned = {
      ...({} as Decision),
      object: { apiVersion: 'v1', kind: 'Namespace', name: 'x' },
      policy: 'p',
      messages: ['m'],
    };
    const o = { unjudged: [], denied: [], warned: [warned] } as unknown as AdmitOutcome;
    expect([admitFails(o, false), admitFails(o, true)]).toEqual([false, true]);
    expect(formatAdmissionWarning(warned, 'm', true)).toBe("error: Namespace x: ValidatingAdmissionPolicy 'p': m");
    expect(formatAdmissionWarning(warned, 'm', false)).toBe("warning: Namespace x: ValidatingAdmissionPolicy 'p': m");
  });

  it('the refusals in the order they are checked: duplicates, the values then the unknown keys, the objects not judged', () => {
    const f = (message: string) => ({ severity: 'error' as const, message });
    const outcome = {
      ...({} as AdmitOutcome),
      unjudged: [f('unjudged')],
      inputWarnings: [f('unknown key')],
      valueFindings: [f('values')],
      duplicates: [f('duplicate')],
    };
    expect(admitRefusals(outcome).map((group) => group.map((x) => x.message))).toEqual([
      ['duplicate'],
      ['values', 'unknown key'],
      ['unjudged'],
    ]);
  });
});
