/**
 * `cozy-gw post-render` places a namespace-less object where Helm installs it: the release
 * namespace (docs/commands/post-render.md). Helm charts usually omit `metadata.namespace`; the
 * TenantGateway lives in the release namespace, so its Gateway admits routes from there and its
 * Issuer and redirect route are created there. The release namespace is `--namespace`, else
 * `HELM_NAMESPACE` (Helm sets it for a plugin); neither is an error naming the object, never a
 * Gateway in namespace "".
 */
import * as jsyaml from 'js-yaml';
import { postRender } from '../../src/protocols/postRender';
import type { KObject } from '../../src/k8s/model';
import { runCli, STACK_FRAME } from '../helpers/cli';

const NOW = '2026-01-01T00:00:00Z';
const TGW = `# Source: gateway/templates/tenantgateway.yaml
apiVersion: gateway.cozystack.io/v1alpha1
kind: TenantGateway
metadata:
  name: cozystack
spec:
  apex: alice.example.org
  gatewayClassName: cilium
  certMode: http01
  issuerName: letsencrypt-prod
`;

const docs = (s: string) => (jsyaml.loadAll(s) as KObject[]).filter(Boolean);
/** Each object the pass added, as `Kind namespace/name` (namespace '' when it has none). */
const added = (stdout: string) =>
  docs(stdout.slice(TGW.length)).map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);

describe('post-render of a TenantGateway without metadata.namespace', () => {
  it('--namespace: every object the pass creates is in the release namespace, the input is kept byte for byte', () => {
    const r = postRender(TGW, { values: [], now: NOW, includeSecretData: false, namespace: 'tenant-alice' });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(r.stdout.startsWith(TGW)).toBe(true);
    const objs = added(r.stdout);
    expect(objs).toEqual(
      expect.arrayContaining([
        'Gateway tenant-alice/cozystack',
        'Issuer tenant-alice/cozystack-gateway',
        'HTTPRoute tenant-alice/cozystack-http-redirect',
      ]),
    );
    expect(objs.filter((o) => / \//.test(o))).toEqual([]);
    const gw = docs(r.stdout).find((o) => o.kind === 'Gateway')!;
    const from = JSON.stringify((gw.spec as { listeners: unknown[] }).listeners);
    expect(from).not.toContain('""');
    expect(from).toContain('tenant-alice');
  });

  it('the CLI takes HELM_NAMESPACE (what Helm sets for a plugin); --namespace wins over it', async () => {
    const env = await runCli(['post-render', '--now', NOW], { stdin: TGW, env: { HELM_NAMESPACE: 'tenant-alice' } });
    expect(env.code).toBe(0);
    expect(added(env.stdout)).toContain('Gateway tenant-alice/cozystack');
    const flag = await runCli(['post-render', '--now', NOW, '--namespace', 'tenant-bob'], {
      stdin: TGW,
      env: { HELM_NAMESPACE: 'tenant-alice' },
    });
    expect(flag.code).toBe(0);
    expect(added(flag.stdout)).toContain('Gateway tenant-bob/cozystack');
  });

  it('an object that names its namespace keeps it', async () => {
    const own = TGW.replace('  name: cozystack\n', '  name: cozystack\n  namespace: tenant-carol\n');
    const r = await runCli(['post-render', '--now', NOW, '-n', 'tenant-alice'], { stdin: own });
    expect(r.code).toBe(0);
    expect(docs(r.stdout.slice(own.length)).map((o) => o.metadata.namespace)).not.toContain('tenant-alice');
    expect(docs(r.stdout.slice(own.length)).map((o) => `${o.kind} ${o.metadata.namespace}`)).toContain(
      'Gateway tenant-carol',
    );
  });

  it('neither given: an error naming the object and the field, nothing on stdout', async () => {
    const r = await runCli(['post-render', '--now', NOW], { stdin: TGW, env: {} });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(
      /error: <stdin>: TenantGateway cozystack: metadata\.namespace: has no namespace, and the release namespace is unknown/,
    );
    expect(r.stderr).toContain('--namespace');
    expect(r.stderr).toContain('HELM_NAMESPACE');
    expect(r.stderr).not.toMatch(STACK_FRAME);
  });

  it('an invalid release namespace is a usage error', async () => {
    const r = await runCli(['post-render', '--now', NOW, '--namespace', '..'], { stdin: TGW });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('..');
  });
});
