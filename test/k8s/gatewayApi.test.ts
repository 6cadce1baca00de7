import {
  hostnamesOverlap,
  listenerAdmitsNamespace,
  listenerNamespaces,
  parentRefNamespace,
  parentRefPort,
  parentRefSection,
  parentRefSelectsListener,
  parentRefTargets,
  routeHostnames,
  routeParentRefs,
  strictlyNarrower,
} from '../../src/k8s/gatewayApi';
import type { KObject } from '../../src/k8s/model';

const gw = { namespace: 'tenant-root', name: 'cozystack' };
const route = (spec: unknown): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'r', namespace: 'tenant-alice' },
  spec,
});

describe('SNI overlap (docs/behaviour.md §5.8)', () => {
  test.each([
    ['a.example.org', 'a.example.org', true],
    ['A.Example.org', 'a.example.org', true],
    ['*.example.org', 'a.example.org', true],
    ['*.example.org', 'a.b.example.org', true],
    ['*.example.org', '*.db.example.org', true],
    ['*.example.org', '*.example.org', true],
    ['*.example.org', 'example.org', false],
    ['*.example.org', 'badexample.org', false],
    ['*.a.example.org', '*.b.example.org', false],
    ['a.example.org', 'b.example.org', false],
  ])('%s / %s -> %s (both ways)', (a, b, want) => {
    expect(hostnamesOverlap(a, b)).toBe(want);
    expect(hostnamesOverlap(b, a)).toBe(want);
  });
  test('a listener without a hostname matches every name', () => {
    expect(hostnamesOverlap(undefined, 'x.example.org')).toBe(true);
    expect(hostnamesOverlap('*.example.org', undefined)).toBe(true);
  });
});

describe('strictly narrower', () => {
  test.each([
    ['api.example.org', '*.example.org', true],
    ['a.b.example.org', '*.example.org', true],
    ['*.db.example.org', '*.example.org', true],
    ['api.example.org', 'api.example.org', false],
    ['*.example.org', '*.example.org', false],
    ['*.example.org', 'api.example.org', false],
    ['example.org', '*.example.org', false],
  ])('%s narrower than %s -> %s', (n, w, want) => expect(strictlyNarrower(n, w)).toBe(want));
  test('absent hostnames: nothing is narrower than absent-narrow; anything is narrower than an absent wide', () => {
    expect(strictlyNarrower(undefined, '*.example.org')).toBe(false);
    expect(strictlyNarrower('a.example.org', undefined)).toBe(true);
  });
});

describe('parentRef targets a Gateway', () => {
  test.each([
    [{ name: 'cozystack', namespace: 'tenant-root' }, 'tenant-alice', true],
    [{ name: 'cozystack' }, 'tenant-root', true],
    [{ name: 'cozystack' }, 'cozy-harbor', false],
    // The spec: the namespace defaults to the route's; an empty one is no namespace (one definition: its copies once disagreed).
    [{ name: 'cozystack', namespace: '' }, 'tenant-root', true],
    [{ name: 'cozystack', namespace: '' }, 'tenant-alice', false],
    [{ group: '', kind: 'Gateway', name: 'cozystack', namespace: 'tenant-root' }, 'x', true],
    [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'cozystack', namespace: 'tenant-root' }, 'x', true],
    [{ group: 'example.com', name: 'cozystack', namespace: 'tenant-root' }, 'x', false],
    [{ kind: 'Service', name: 'cozystack', namespace: 'tenant-root' }, 'x', false],
    [{ kind: '', name: 'cozystack', namespace: 'tenant-root' }, 'x', false],
    [{ name: 'other', namespace: 'tenant-root' }, 'x', false],
    [{ namespace: 'tenant-root' }, 'x', false],
    ['cozystack', 'tenant-root', false],
    [null, 'tenant-root', false],
  ])('%j from %s -> %s', (ref, routeNs, want) => expect(parentRefTargets(ref, routeNs, gw)).toBe(want));

  test('the namespace a parentRef names', () => {
    expect(parentRefNamespace({ namespace: 'a' }, 'b')).toBe('a');
    expect(parentRefNamespace({ namespace: '' }, 'b')).toBe('b');
    expect(parentRefNamespace({}, 'b')).toBe('b');
    expect(parentRefNamespace({ namespace: 7 }, 'b')).toBe('b');
  });

  test('sectionName and port are read only when well-typed', () => {
    expect(parentRefSection({ sectionName: 'tls-api' })).toBe('tls-api');
    expect(parentRefSection({ sectionName: '' })).toBeUndefined();
    expect(parentRefSection({ sectionName: 3 })).toBeUndefined();
    expect(parentRefPort({ port: 443 })).toBe(443);
    expect(parentRefPort({ port: '443' })).toBeUndefined();
  });

  test.each([
    [{}, true],
    [{ sectionName: 'tls-pg' }, true],
    [{ sectionName: 'tls-api' }, false],
    [{ port: 5432 }, true],
    [{ port: 443 }, false],
    [{ sectionName: 'tls-pg', port: 5432 }, true],
    [{ sectionName: 'tls-pg', port: 443 }, false],
  ])('%j selects listener tls-pg on 5432 -> %s', (ref, want) =>
    expect(parentRefSelectsListener(ref, { name: 'tls-pg', port: 5432 })).toBe(want),
  );
});

describe('route hostnames and parentRefs', () => {
  test('hostnames: string entries, de-duplicated, in order', () => {
    expect(
      routeHostnames(
        route({ hostnames: ['b.example.org', 'a.example.org', 'b.example.org', 7, null, 'a.example.org'] }),
      ),
    ).toEqual(['b.example.org', 'a.example.org']);
    expect(routeHostnames(route({}))).toEqual([]);
    expect(routeHostnames(route({ hostnames: 'a.example.org' }))).toEqual([]);
    expect(routeHostnames(route(undefined))).toEqual([]);
  });
  test('parentRefs as written; none when absent or not a list', () => {
    expect(routeParentRefs(route({ parentRefs: [{ name: 'a' }, 'x'] }))).toEqual([{ name: 'a' }, 'x']);
    expect(routeParentRefs(route({ parentRefs: {} }))).toEqual([]);
    expect(routeParentRefs(route(null))).toEqual([]);
  });
});

describe("a listener's allowedRoutes.namespaces (Same, All, Selector)", () => {
  const labels: Record<string, Record<string, string>> = { 'tenant-bob': { team: 'web' } };
  const admits = (listener: Record<string, unknown>, routeNs: string) =>
    listenerAdmitsNamespace(listenerNamespaces(listener), 'tenant-root', routeNs, (ns) => labels[ns]);
  const cases: [string, Record<string, unknown>, string, boolean][] = [
    ["unset: Same, the Gateway's own namespace", {}, 'tenant-root', true],
    ['unset: Same, another namespace', {}, 'tenant-bob', false],
    ['Same', { allowedRoutes: { namespaces: { from: 'Same' } } }, 'tenant-bob', false],
    ['All', { allowedRoutes: { namespaces: { from: 'All' } } }, 'tenant-bob', true],
    [
      'Selector on a label',
      { allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'web' } } } } },
      'tenant-bob',
      true,
    ],
    [
      'Selector on another value',
      { allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'db' } } } } },
      'tenant-bob',
      false,
    ],
    [
      'Selector on the name label of an unknown namespace',
      {
        allowedRoutes: {
          namespaces: { from: 'Selector', selector: { matchLabels: { 'kubernetes.io/metadata.name': 'tenant-x' } } },
        },
      },
      'tenant-x',
      true,
    ],
    ['Selector without a selector', { allowedRoutes: { namespaces: { from: 'Selector' } } }, 'tenant-root', false],
    ['an unknown from', { allowedRoutes: { namespaces: { from: 'Nearby' } } }, 'tenant-root', false],
  ];
  it.each(cases)('%s', (_name, listener, ns, want) => {
    expect(admits(listener, ns)).toBe(want);
  });
});
