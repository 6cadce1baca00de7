/**
 * `admit` never fails open (docs/decisions.md §13 and docs/commands/admit.md): the API server always
 * judges a namespaced object with its Namespace, so an object whose Namespace a matching policy
 * reads, and the inputs lack, is an input error that says to pass the rendered Namespaces, never
 * an admission (and never a denial about something else, such as its hostnames).
 */
import * as path from 'node:path';
import { ROOT, useScratch } from '../helpers/cli';

const VALUES = path.join(ROOT, 'examples/platform/values.yaml');
const GATEWAY = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: mine, namespace: tenant-alice}
spec:
  gatewayClassName: cilium
  listeners:
    - {name: https, protocol: HTTPS, port: 443, hostname: dashboard.example.org}
`;
const ALICE_NS = `apiVersion: v1
kind: Namespace
metadata:
  name: tenant-alice
  labels: {namespace.cozystack.io/host: alice.example.org}
`;
const ROUTE_IN_APEX = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app, namespace: tenant-alice}
spec:
  parentRefs: [{name: cozystack, namespace: tenant-root}]
  hostnames: [app.alice.example.org]
`;
const NOT_JUDGED =
  /error: gateway\.yaml:3: Gateway tenant-alice\/mine: metadata\.namespace: cannot be judged: ValidatingAdmissionPolicy 'cozystack-gateway-hostname-policy' reads Namespace tenant-alice \(its labels\), which is not among the inputs \(pass the rendered Namespaces too/;

describe('admit without the Namespace a policy needs', () => {
  const s = useScratch('cozy-gw-admit-ns-', {
    'gateway.yaml': GATEWAY,
    'alice-ns.yaml': ALICE_NS,
    'route.yaml': ROUTE_IN_APEX,
  });

  it('a Gateway in tenant-alice claiming dashboard.example.org: an input error, not an admission', async () => {
    const r = await s.cli(['admit', '--values', VALUES, '-f', 'gateway.yaml']);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(NOT_JUDGED);
  });

  it('-o json: the same error, no verdict printed', async () => {
    const r = await s.cli(['admit', '--values', VALUES, '-f', 'gateway.yaml', '-o', 'json']);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(NOT_JUDGED);
  });

  it('with its Namespace the same Gateway is denied, on its hostnames', async () => {
    const r = await s.cli(['admit', '--values', VALUES, '-f', 'gateway.yaml', '-f', 'alice-ns.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^Gateway tenant-alice\/mine: .*dashboard\.example\.org must equal alice\.example\.org/);
  });

  it('a route inside the apex is not admitted without its Namespace either', async () => {
    const r = await s.cli(['admit', '--values', VALUES, '-f', 'route.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "ValidatingAdmissionPolicy 'cozystack-route-hostname-policy' reads Namespace tenant-alice",
    );
    const withNs = await s.cli([
      'admit',
      '--values',
      VALUES,
      '-f',
      'route.yaml',
      '-f',
      'alice-ns.yaml',
      '--as-group',
      'system:masters',
    ]);
    expect({ code: withNs.code, stdout: withNs.stdout }).toEqual({ code: 0, stdout: '' });
  });

  it('admit -f examples/admission/ alone says to pass the rendered Namespaces, not something about hostnames', async () => {
    const r = await s.cli(['admit', '--values', VALUES, '-f', path.join(ROOT, 'examples/admission')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('reads Namespace tenant-alice (its labels), which is not among the inputs');
    expect(r.stderr).toContain('pass the rendered Namespaces too');
    expect(r.stderr).not.toMatch(/host label|hostnames/);
  });

  it('an object no policy needs the Namespace for (outside tenant-*) is judged as before', async () => {
    s.write('default.yaml', GATEWAY.replace('namespace: tenant-alice', 'namespace: default'));
    const r = await s.cli(['admit', '--values', VALUES, '-f', 'default.yaml']);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
