import { applyNamespaceLabels, attachSet, childApexes, planAttachment } from '../../src/controller/namespaceAttachment';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import { Store } from '../../src/k8s/store';
import { ns, tgw } from './tgwFixtures';

const GW = 'namespace.cozystack.io/gateway';
const BY = 'cozystack.io/gateway-attached-by';
const get = (s: Store, n: string) => s.get('', 'Namespace', undefined, n)!;

describe('attached-namespace labels (docs/behaviour.md §5.6)', () => {
  test('labels and annotates the TGW namespace and every existing attached namespace, overwriting; skips missing ones', () => {
    const store = new Store([ns('tenant-root'), ns('cozy-harbor', { [GW]: 'tenant-other' })]);
    const v = viewOf(tgw({ attachedNamespaces: ['cozy-harbor', 'cozy-missing', ''] }));
    const plan = planAttachment(store, [v], 'tenant-root');
    applyNamespaceLabels(store, plan, v);
    for (const n of ['tenant-root', 'cozy-harbor']) {
      expect(get(store, n).metadata.labels?.[GW]).toBe('tenant-root');
      expect(get(store, n).metadata.annotations?.[BY]).toBe('tenant-root');
    }
    expect(store.get('', 'Namespace', undefined, 'cozy-missing')).toBeUndefined();
    // The missing one is still in the attach set: its routes claim in the same pass.
    expect(attachSet(plan, v)).toEqual(['cozy-harbor', 'cozy-missing', 'tenant-root']);
  });

  test('garbage-collects label and annotation it wrote on a dropped entry; never strips an unannotated label', () => {
    const store = new Store([
      ns('tenant-root', { [GW]: 'tenant-root' }, { [BY]: 'tenant-root' }),
      ns('cozy-harbor', { [GW]: 'tenant-root', keep: 'x' }, { [BY]: 'tenant-root', other: 'y' }),
      ns('tenant-alice', { [GW]: 'tenant-root' }),
    ]);
    const v = viewOf(tgw({}));
    const plan = planAttachment(store, [v], 'tenant-root');
    expect(attachSet(plan, v)).toEqual(['tenant-alice', 'tenant-root']);
    applyNamespaceLabels(store, plan, v);
    expect(get(store, 'cozy-harbor').metadata.labels).toEqual({
      'kubernetes.io/metadata.name': 'cozy-harbor',
      keep: 'x',
    });
    expect(get(store, 'cozy-harbor').metadata.annotations).toEqual({ other: 'y' });
    expect(get(store, 'tenant-alice').metadata.labels?.[GW]).toBe('tenant-root');
    expect(get(store, 'tenant-root').metadata.labels?.[GW]).toBe('tenant-root');
  });

  test('an inactive TenantGateway (failed validation) garbage-collects nothing', () => {
    const store = new Store([ns('cozy-harbor', { [GW]: 'tenant-root' }, { [BY]: 'tenant-root' })]);
    const plan = planAttachment(store, [], 'tenant-root');
    expect(plan.finalLabel('cozy-harbor')).toBe('tenant-root');
  });

  test("two TenantGateways listing one namespace: the publishing tenant's wins, then the smallest namespace (docs/decisions.md §3)", () => {
    const store = new Store([ns('tenant-root'), ns('tenant-a'), ns('tenant-b'), ns('cozy-harbor'), ns('cozy-x')]);
    const root = viewOf(tgw({ attachedNamespaces: ['cozy-harbor'] }));
    const a = viewOf(
      tgw(
        { apex: 'a.example.org', attachedNamespaces: ['cozy-harbor', 'cozy-x'] },
        { namespace: 'tenant-a', uid: 'ua' },
      ),
    );
    const b = viewOf(
      tgw({ apex: 'b.example.org', attachedNamespaces: ['cozy-x', 'tenant-a'] }, { namespace: 'tenant-b', uid: 'ub' }),
    );
    const plan = planAttachment(store, [a, b, root], 'tenant-root');
    expect(plan.finalLabel('cozy-harbor')).toBe('tenant-root');
    expect(plan.finalLabel('cozy-x')).toBe('tenant-a');
    expect(plan.finalLabel('tenant-a')).toBe('tenant-a'); // its own namespace always stays with it
    expect(plan.lost('tenant-a')).toEqual([{ namespace: 'cozy-harbor', winner: 'tenant-root' }]);
    expect(plan.lost('tenant-b')).toEqual([
      { namespace: 'cozy-x', winner: 'tenant-a' },
      { namespace: 'tenant-a', winner: 'tenant-a' },
    ]);
    expect(attachSet(plan, b)).toEqual(['tenant-b']);
    for (const v of [a, b, root]) applyNamespaceLabels(store, plan, v);
    expect(get(store, 'cozy-x').metadata.annotations?.[BY]).toBe('tenant-a');
    // With another publishing namespace the order changes.
    expect(planAttachment(store, [a, b, root], 'tenant-b').finalLabel('cozy-x')).toBe('tenant-b');
  });

  test('child apexes: host labels of namespaces labelled for the TGW, minus its own, the apex, empties and duplicates, sorted', () => {
    const store = new Store([
      ns('tenant-root', { [GW]: 'tenant-root', 'namespace.cozystack.io/host': 'example.org' }),
      ns('tenant-b', { [GW]: 'tenant-root', 'namespace.cozystack.io/host': 'b.example.org' }),
      ns('tenant-a', { [GW]: 'tenant-root', 'namespace.cozystack.io/host': 'a.example.org' }),
      ns('tenant-a2', { [GW]: 'tenant-root', 'namespace.cozystack.io/host': 'a.example.org' }),
      ns('tenant-same', { [GW]: 'tenant-root', 'namespace.cozystack.io/host': 'example.org' }),
      ns('tenant-empty', { [GW]: 'tenant-root', 'namespace.cozystack.io/host': '' }),
      ns('tenant-other', { [GW]: 'tenant-other', 'namespace.cozystack.io/host': 'o.example.org' }),
    ]);
    const v = viewOf(tgw({}));
    expect(childApexes(store, planAttachment(store, [v], 'tenant-root'), v)).toEqual([
      'a.example.org',
      'b.example.org',
    ]);
  });
});
