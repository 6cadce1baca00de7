import fc from 'fast-check';
import type { KObject } from '../../src/k8s/model';
import { Store } from '../../src/k8s/store';
import {
  ANNOTATION_WILDCARD_SOURCE,
  LABEL_WILDCARD_COPY,
  reconcileWildcardSecrets,
  replicationTargets,
} from '../../src/controller/wildcardSecrets';
import { redactSecret, REDACTED_ANNOTATION } from '../../src/k8s/secretRedaction';

const CRT = Buffer.from('cert').toString('base64');
const KEY = Buffer.from('key').toString('base64');

function ns(name: string, labels: Record<string, string> = {}, extra: Partial<KObject> = {}): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } },
    ...extra,
  };
}
/** A tenant namespace that owns a Gateway (label gateway = own name). */
const gwNs = (name: string) =>
  ns(name, { 'namespace.cozystack.io/gateway': name, 'namespace.cozystack.io/ingress': 'tenant-root' });
/** A tenant namespace that owns an ingress controller. */
const ingNs = (name: string) =>
  ns(name, { 'namespace.cozystack.io/gateway': 'tenant-root', 'namespace.cozystack.io/ingress': name });
/** A tenant namespace that inherits both. */
const plainNs = (name: string) =>
  ns(name, { 'namespace.cozystack.io/gateway': 'tenant-root', 'namespace.cozystack.io/ingress': 'tenant-root' });

function tgw(namespace: string, certMode: string, name = 'cozystack'): KObject {
  return {
    apiVersion: 'gateway.cozystack.io/v1alpha1',
    kind: 'TenantGateway',
    metadata: { name, namespace },
    spec: { apex: `${namespace}.example.org`, certMode },
  };
}

function secret(
  namespace: string,
  name: string,
  extra: Partial<KObject> = {},
  md: Partial<KObject['metadata']> = {},
): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ...md },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': CRT, 'tls.key': KEY },
    ...extra,
  };
}

function replica(
  namespace: string,
  name = 'wildcard-tls',
  source = `tenant-root/${name}`,
  data = { 'tls.crt': CRT, 'tls.key': KEY },
): KObject {
  return secret(
    namespace,
    name,
    { data },
    { labels: { [LABEL_WILDCARD_COPY]: 'true' }, annotations: { [ANNOTATION_WILDCARD_SOURCE]: source } },
  );
}

const ACTIVE = { 'wildcard-secret-name': 'wildcard-tls', 'expose-ingress': 'tenant-root' };
const root = ns('tenant-root', { 'namespace.cozystack.io/gateway': 'tenant-root' });

function run(objs: KObject[], channel: Record<string, string> | undefined) {
  const store = new Store(objs);
  const findings = reconcileWildcardSecrets(store, channel);
  return { store, findings, changes: store.changes() };
}

const secretAt = (store: Store, namespace: string, name = 'wildcard-tls') => store.get('', 'Secret', namespace, name);

describe('channel outcomes (docs/behaviour.md §6)', () => {
  const world = () => [
    root,
    secret('tenant-root', 'wildcard-tls'),
    gwNs('tenant-alice'),
    replica('tenant-alice'),
    gwNs('tenant-new'),
    plainNs('tenant-gone'),
    replica('tenant-gone'),
  ];

  it('channel absent: keeps every replica and creates none', () => {
    const r = run(world(), undefined);
    expect(r.changes).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('key missing: keeps every replica and creates none', () => {
    const r = run(world(), { 'expose-ingress': 'tenant-root' });
    expect(r.changes).toEqual([]);
  });

  it('key present and "": deletes every replica, the one at the old source slot included, and nothing else', () => {
    const objs = [
      ...world(),
      replica('tenant-root', 'old-name', 'tenant-root/old-name'),
      secret('tenant-bob', 'wildcard-tls'),
    ];
    const r = run(
      [...objs, secret('tenant-root', 'wildcard-tls-copy', {}, { labels: { [LABEL_WILDCARD_COPY]: 'true' } })],
      { ...ACTIVE, 'wildcard-secret-name': '' },
    );
    expect(r.changes.filter((c) => c.op !== 'delete')).toEqual([]);
    expect(r.changes.map((c) => `${c.ref.namespace}/${c.ref.name}`).sort()).toEqual([
      'tenant-alice/wildcard-tls',
      'tenant-gone/wildcard-tls',
      'tenant-root/old-name',
      'tenant-root/wildcard-tls-copy',
    ]);
    expect(secretAt(r.store, 'tenant-root')).toBeDefined(); // the operator's source has no label
    expect(secretAt(r.store, 'tenant-bob')).toBeDefined(); // foreign
  });

  it('source missing: keeps every replica, creates none, and says so', () => {
    const objs = world().filter((o) => !(o.kind === 'Secret' && o.metadata.namespace === 'tenant-root'));
    const r = run(objs, ACTIVE);
    expect(r.changes).toEqual([]);
    expect(r.findings).toEqual([expect.objectContaining({ severity: 'warning', rule: 'wildcard.source-missing' })]);
    expect(r.findings[0].message).toContain('tenant-root/wildcard-tls');
  });

  it('source not kubernetes.io/tls: keeps every replica, creates none, and says so', () => {
    const objs = world().map((o) =>
      o.kind === 'Secret' && o.metadata.namespace === 'tenant-root' ? { ...o, type: 'Opaque' } : o,
    );
    const r = run(objs, ACTIVE);
    expect(r.changes).toEqual([]);
    expect(r.findings).toEqual([expect.objectContaining({ rule: 'wildcard.source-not-tls', field: 'type' })]);
  });

  it('expose-ingress names the source namespace; empty means tenant-root', () => {
    const objs = [
      ns('tenant-pub', { 'namespace.cozystack.io/ingress': 'tenant-pub' }),
      secret('tenant-pub', 'wildcard-tls'),
      gwNs('tenant-alice'),
      root,
    ];
    const r = run(objs, { 'wildcard-secret-name': 'wildcard-tls', 'expose-ingress': 'tenant-pub' });
    expect(secretAt(r.store, 'tenant-alice')?.metadata.annotations?.[ANNOTATION_WILDCARD_SOURCE]).toBe(
      'tenant-pub/wildcard-tls',
    );
    expect(secretAt(r.store, 'tenant-pub')?.metadata.labels).toBeUndefined(); // the source is not replicated onto itself
    const r2 = run([root, secret('tenant-root', 'wildcard-tls'), gwNs('tenant-alice')], {
      'wildcard-secret-name': 'wildcard-tls',
      'expose-ingress': '',
    });
    expect(secretAt(r2.store, 'tenant-alice')?.metadata.annotations?.[ANNOTATION_WILDCARD_SOURCE]).toBe(
      'tenant-root/wildcard-tls',
    );
  });
});

describe('targets: namespaces that own a termination point', () => {
  const targets = (objs: KObject[], src = 'tenant-root') => replicationTargets(new Store(objs), src);

  it('a namespace whose ingress label is its own name', () => {
    expect(targets([ingNs('tenant-bob')])).toEqual(['tenant-bob']);
  });
  it('a namespace whose gateway label is its own name and has no TenantGateway', () => {
    expect(targets([gwNs('tenant-alice')])).toEqual(['tenant-alice']);
  });
  it('a gateway-owning namespace whose TenantGateway terminates (http01, dns01, existingSecret)', () => {
    for (const m of ['http01', 'dns01', 'existingSecret'])
      expect(targets([gwNs('tenant-alice'), tgw('tenant-alice', m)])).toEqual(['tenant-alice']);
  });
  it('the edge exception: a gateway-owning namespace whose every TenantGateway is edge is not a target', () => {
    expect(targets([gwNs('tenant-dave'), tgw('tenant-dave', 'edge')])).toEqual([]);
  });
  it('one non-edge TenantGateway beside an edge one keeps the namespace a target', () => {
    expect(targets([gwNs('tenant-dave'), tgw('tenant-dave', 'edge'), tgw('tenant-dave', 'dns01', 'other')])).toEqual([
      'tenant-dave',
    ]);
  });
  it('a namespace that also owns an ingress controller still terminates locally on an edge class', () => {
    expect(
      targets([
        ns('tenant-eve', {
          'namespace.cozystack.io/gateway': 'tenant-eve',
          'namespace.cozystack.io/ingress': 'tenant-eve',
        }),
        tgw('tenant-eve', 'edge'),
      ]),
    ).toEqual(['tenant-eve']);
  });
  it('inheriting namespaces, the source namespace and terminating namespaces are not targets', () => {
    expect(
      targets([
        plainNs('tenant-carol'),
        ns('tenant-root', {
          'namespace.cozystack.io/gateway': 'tenant-root',
          'namespace.cozystack.io/ingress': 'tenant-root',
        }),
      ]),
    ).toEqual([]);
    expect(targets([{ ...gwNs('tenant-x'), status: { phase: 'Terminating' } }])).toEqual([]);
    const del = gwNs('tenant-y');
    del.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(targets([del])).toEqual([]);
  });
});

describe('replicas', () => {
  it('carry the source name, the copy label, the source annotation, the source type and data, and no ownerReferences', () => {
    const src = secret(
      'tenant-root',
      'wildcard-tls',
      {},
      {
        labels: { team: 'ops' },
        annotations: { note: 'x' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'y' }],
      },
    );
    const r = run([root, src, gwNs('tenant-alice')], ACTIVE);
    expect(secretAt(r.store, 'tenant-alice')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'wildcard-tls',
        namespace: 'tenant-alice',
        labels: { [LABEL_WILDCARD_COPY]: 'true' },
        annotations: { [ANNOTATION_WILDCARD_SOURCE]: 'tenant-root/wildcard-tls' },
      },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': CRT, 'tls.key': KEY },
    });
    expect(r.changes).toEqual([
      expect.objectContaining({ op: 'create', reasons: [expect.stringContaining('owns a termination point')] }),
    ]);
  });

  it('copy the stringData of a source written by hand, base64-encoded as the apiserver stores it', () => {
    const src = secret('tenant-root', 'wildcard-tls', {
      data: undefined,
      stringData: { 'tls.crt': 'cert', 'tls.key': 'key' },
    });
    const r = run([root, src, gwNs('tenant-alice')], ACTIVE);
    expect(secretAt(r.store, 'tenant-alice')?.data).toEqual({ 'tls.crt': CRT, 'tls.key': KEY });
  });

  it('are left alone when data and annotation match', () => {
    const r = run([root, secret('tenant-root', 'wildcard-tls'), gwNs('tenant-alice'), replica('tenant-alice')], ACTIVE);
    expect(r.changes).toEqual([]);
  });

  it('are updated when the data differs, keeping their other labels and annotations', () => {
    const stale = replica('tenant-alice', 'wildcard-tls', 'tenant-root/wildcard-tls', {
      'tls.crt': 'b2xk',
      'tls.key': 'b2xk',
    });
    stale.metadata.labels!.extra = 'kept';
    const r = run([root, secret('tenant-root', 'wildcard-tls'), gwNs('tenant-alice'), stale], ACTIVE);
    const s = secretAt(r.store, 'tenant-alice')!;
    expect(s.data).toEqual({ 'tls.crt': CRT, 'tls.key': KEY });
    expect(s.metadata.labels).toEqual({ [LABEL_WILDCARD_COPY]: 'true', extra: 'kept' });
    expect(r.changes[0].reasons[0]).toContain('data differs');
  });

  it('are updated when the source annotation differs', () => {
    const r = run(
      [
        root,
        secret('tenant-root', 'wildcard-tls'),
        gwNs('tenant-alice'),
        replica('tenant-alice', 'wildcard-tls', 'elsewhere/wildcard-tls'),
      ],
      ACTIVE,
    );
    expect(secretAt(r.store, 'tenant-alice')?.metadata.annotations?.[ANNOTATION_WILDCARD_SOURCE]).toBe(
      'tenant-root/wildcard-tls',
    );
    expect(r.changes[0].reasons[0]).toContain('source annotation');
  });

  it('a foreign same-named Secret is never touched, with a WildcardReplicaSkipped warning', () => {
    const foreign = secret('tenant-alice', 'wildcard-tls', { data: { 'tls.crt': 'b3du' } });
    const r = run([root, secret('tenant-root', 'wildcard-tls'), gwNs('tenant-alice'), foreign], ACTIVE);
    expect(r.changes).toEqual([]);
    expect(secretAt(r.store, 'tenant-alice')).toEqual(foreign);
    expect(r.findings).toEqual([
      expect.objectContaining({
        severity: 'warning',
        rule: 'wildcard.replica-skipped',
        object: expect.objectContaining({ namespace: 'tenant-alice' }),
      }),
    ]);
    expect(r.findings[0].message).toMatch(/WildcardReplicaSkipped/);
  });

  it('a Secret with the copy label set to anything but "true" counts as foreign', () => {
    const other = secret('tenant-alice', 'wildcard-tls', {}, { labels: { [LABEL_WILDCARD_COPY]: 'false' } });
    const r = run([root, secret('tenant-root', 'wildcard-tls'), gwNs('tenant-alice'), other], ACTIVE);
    expect(r.changes).toEqual([]);
    expect(r.findings[0].rule).toBe('wildcard.replica-skipped');
  });
});

describe('pruning', () => {
  it('prunes replicas of an old name and replicas in namespaces that stopped terminating', () => {
    const objs = [
      root,
      secret('tenant-root', 'wildcard-tls-2'),
      gwNs('tenant-alice'),
      replica('tenant-alice'),
      plainNs('tenant-carol'),
      replica('tenant-carol', 'wildcard-tls-2', 'tenant-root/wildcard-tls-2'),
      gwNs('tenant-dave'),
      tgw('tenant-dave', 'edge'),
      replica('tenant-dave', 'wildcard-tls-2', 'tenant-root/wildcard-tls-2'),
    ];
    const r = run(objs, { ...ACTIVE, 'wildcard-secret-name': 'wildcard-tls-2' });
    const del = r.changes
      .filter((c) => c.op === 'delete')
      .map((c) => `${c.ref.namespace}/${c.ref.name}`)
      .sort();
    expect(del).toEqual(['tenant-alice/wildcard-tls', 'tenant-carol/wildcard-tls-2', 'tenant-dave/wildcard-tls-2']);
    expect(secretAt(r.store, 'tenant-alice', 'wildcard-tls-2')).toBeDefined();
    const reasons = Object.fromEntries(r.changes.map((c) => [`${c.ref.namespace}/${c.ref.name}`, c.reasons.join(' ')]));
    expect(reasons['tenant-alice/wildcard-tls']).toMatch(/renamed/);
    expect(reasons['tenant-dave/wildcard-tls-2']).toMatch(/no longer owns a termination point/);
  });

  it('never prunes the labelled Secret at the source slot while the feature is active', () => {
    const r = run([root, replica('tenant-root'), ingNs('tenant-bob')], ACTIVE);
    expect(secretAt(r.store, 'tenant-root')).toBeDefined();
    expect(secretAt(r.store, 'tenant-bob')).toBeDefined();
  });

  it('a replica whose namespace no longer exists is pruned', () => {
    const r = run([root, secret('tenant-root', 'wildcard-tls'), replica('tenant-ghost')], ACTIVE);
    expect(r.changes).toEqual([
      expect.objectContaining({ op: 'delete', ref: expect.objectContaining({ namespace: 'tenant-ghost' }) }),
    ]);
  });
});

describe('Secrets printed without their data (docs/decisions.md §9) read back as input', () => {
  it('a redacted source creates no replica (its bytes are unknown) and leaves existing ones alone', () => {
    const objs = [
      root,
      redactSecret(secret('tenant-root', 'wildcard-tls')),
      gwNs('tenant-alice'),
      redactSecret(replica('tenant-alice')),
      gwNs('tenant-new'),
    ];
    const r = run(objs, ACTIVE);
    expect(r.changes).toEqual([]);
    expect(r.findings).toEqual([expect.objectContaining({ rule: 'wildcard.source-redacted' })]);
  });
  it('a redacted replica is refilled from a known source, and loses the redaction annotation', () => {
    const r = run(
      [root, secret('tenant-root', 'wildcard-tls'), gwNs('tenant-alice'), redactSecret(replica('tenant-alice'))],
      ACTIVE,
    );
    const s = secretAt(r.store, 'tenant-alice')!;
    expect(s.data).toEqual({ 'tls.crt': CRT, 'tls.key': KEY });
    expect(s.metadata.annotations?.[REDACTED_ANNOTATION]).toBeUndefined();
  });
});

describe('the pass is idempotent (property)', () => {
  const kinds = ['gw', 'ing', 'plain', 'edge', 'term'] as const;
  it('a second pass over the first pass’s state changes nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...kinds), fc.boolean(), fc.boolean(), fc.boolean()), { maxLength: 6 }),
        fc.constantFrom('wildcard-tls', 'other', ''),
        (spec, name) => {
          const objs: KObject[] = [root, secret('tenant-root', 'wildcard-tls'), secret('tenant-root', 'other')];
          spec.forEach(([k, hasReplica, stale, foreign], i) => {
            const n = `tenant-t${i}`;
            if (k === 'gw') objs.push(gwNs(n));
            else if (k === 'ing') objs.push(ingNs(n));
            else if (k === 'plain') objs.push(plainNs(n));
            else if (k === 'edge') objs.push(gwNs(n), tgw(n, 'edge'));
            else objs.push({ ...gwNs(n), status: { phase: 'Terminating' } });
            if (foreign) objs.push(secret(n, name || 'wildcard-tls'));
            else if (hasReplica) objs.push(replica(n, 'wildcard-tls', stale ? 'x/y' : 'tenant-root/wildcard-tls'));
          });
          const channel = { 'wildcard-secret-name': name, 'expose-ingress': 'tenant-root' };
          const first = run(objs, channel);
          const second = run(first.store.all(), channel);
          expect(second.changes).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
