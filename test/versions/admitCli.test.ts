/**
 * `cozy-gw admit --cozystack-version` judges with the version's own policies (docs/versions.md
 * §B2, §B5, §X5): the command, as a user runs it.
 */
import { useScratch } from '../helpers/cli';

const VALUES = 'publishing:\n  host: example.org\n';
const NS = (host: string) =>
  `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-alice\n  labels:\n    namespace.cozystack.io/host: ${host}\n`;
const ROUTE =
  'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: app\n  namespace: tenant-alice\nspec:\n  hostnames: [app.alice.example.org]\n';
const INGRESS =
  'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: tenant-alice\nspec:\n  rules:\n    - host: dashboard.example.org\n';
const FLUX = ['--as-group', 'system:serviceaccounts:cozy-fluxcd'];

describe('admit per version', () => {
  const scratch = useScratch('cozy-gw-versions-admit-', {
    'values.yaml': VALUES,
    'upper.yaml': `${NS('Alice.Example.Org')}---\n${ROUTE}`,
    'ingress.yaml': `${NS('alice.example.org')}---\n${INGRESS}`,
  });
  const admit = (v: string, file: string) =>
    scratch.cli(['admit', '--cozystack-version', v, '--values', 'values.yaml', '-f', file, ...FLUX]);

  test.each(['v1.5.0', 'v1.6.2'])(
    '%s: an upper-case host label denies the tenant its own lower-case route hostname',
    async (v) => {
      const r = await admit(v, 'upper.yaml');
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        "HTTPRoute tenant-alice/app: ValidatingAdmissionPolicy 'cozystack-route-hostname-policy' with binding 'cozystack-route-hostname-policy' denied request: HTTPRoute hostnames must equal the namespace's namespace.cozystack.io/host label or be subdomains of it (namespace tenant-alice)\n",
      );
    },
  );
  test('main: the same route is admitted', async () => {
    const r = await admit('main', 'upper.yaml');
    expect([r.code, r.stdout]).toEqual([0, '']);
  });
  test.each(['v1.5.0', 'v1.5.4'])(
    '%s: an Ingress under a foreign platform name is admitted: no Ingress policy',
    async (v) => {
      const r = await admit(v, 'ingress.yaml');
      expect([r.code, r.stdout]).toEqual([0, '']);
    },
  );
  test.each(['v1.6.2', 'main'])('%s: the same Ingress is denied by the Ingress policy', async (v) => {
    const r = await admit(v, 'ingress.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^Ingress tenant-alice\/web: ValidatingAdmissionPolicy 'cozystack-ingress-hostname-policy'/,
    );
  });
});
