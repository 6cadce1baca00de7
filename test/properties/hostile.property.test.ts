/**
 * Hostile input through every command (docs/decisions.md §13). Whole documents are generated (not mutations of
 * the examples): every kind cozy-gw reads, with wrong types at every level, arbitrary YAML values,
 * modest anchors and aliases (no alias bombs), odd names and keys (`..`, `/`, NUL, control
 * characters, unicode, very long, and `__proto__`, `constructor`, `prototype` in every input that
 * becomes an object key: platform values, Tenants, the function config in both its forms, `--set`)
 * and control characters in values. Each case is written to temp
 * files once and run in-process through render (plain, --with-controller --output-dir), reconcile
 * (-o yaml/json/plan, --all), admit, fn (a ResourceList on stdin, and the kustomize exec plugin form:
 * a config file and a stream on stdin), post-render and diff (--state). A third of the cases
 * are a platform that renders with the shapes of the change a pull request could bring against
 * the reviewer: ValidatingAdmissionPolicies of expensive CEL or reaching for Secret data (in the
 * change and the state, over a state Secret holding the marker), Secrets forging cozy-gw's
 * redaction marks, many routes sharing one hostname (diff -o json and the comment in parts of 4,096
 * characters too), and a temporary file planted where `snapshot -o` writes.
 *
 * Asserted: exit 0, 1 or 2 (diff also 3), no stack trace or JavaScript error name on stderr, bounded
 * time per command, no input key reaching a built-in prototype (their own property names unchanged), nothing written outside the output directory, and the secret marker put in
 * every generated Secret's data/stringData never printed (fn and post-render pass their input items
 * through byte for byte, so there it may appear no more often than in the input); every standard
 * output linear in the input, every comment part within its limit, nothing planted written
 * through.
 *
 * FC_RUNS sets the number of runs of every property here (HOSTILE_RUNS, HOSTILE_TREE_RUNS each one's;
 * defaults 200 and 40, for `npm test`); FC_SEED replays a failure (the seed is printed).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { readTree } from '../../src/io/outputDir';
import { ROOT, runCli } from '../helpers/cli';
import { inProcessKubectl } from '../helpers/fakeKubectl';

const RUNS = Number(process.env.HOSTILE_RUNS ?? process.env.FC_RUNS ?? 200);
const SEED =
  process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
const PER_COMMAND_MS = Number(process.env.HOSTILE_COMMAND_MS ?? 5000);
const NOW = '2026-01-01T00:00:00Z';

const MARKER = 'HOSTILE-SECRET';
const MARKER_B64 = Buffer.from(MARKER).toString('base64');

// ---------------------------------------------------------------------------------------------
// A YAML tree with anchors and aliases, emitted in flow style (JSON strings are YAML double-quoted
// scalars, so every control character and unicode code point is representable).

type Y =
  | { t: 'scalar'; v: string | number | boolean | null }
  | { t: 'raw'; v: string }
  | { t: 'seq'; v: Y[]; anchor?: boolean }
  | { t: 'map'; v: [Y | string, Y][]; anchor?: boolean }
  | { t: 'alias' };

function emit(doc: Y): string {
  const anchors: string[] = [];
  const go = (y: Y): string => {
    switch (y.t) {
      case 'scalar':
        return typeof y.v === 'number' && !Number.isFinite(y.v) ? '.nan' : JSON.stringify(y.v);
      case 'raw':
        return y.v;
      case 'alias':
        // An alias only to an anchor already emitted (earlier in the document): no forward refs,
        // and every alias expands at most one anchored node (no nesting bombs: anchored nodes
        // hold no aliases themselves, see `anchorable`).
        return anchors.length ? `*${anchors[anchors.length - 1]}` : 'null';
      case 'seq': {
        const body = `[${y.v.map(go).join(', ')}]`;
        return y.anchor ? `&${name()} ${body}` : body;
      }
      case 'map': {
        const body = `{${y.v.map(([k, x]) => `${typeof k === 'string' ? JSON.stringify(k) : go(k)}: ${go(x)}`).join(', ')}}`;
        return y.anchor ? `&${name()} ${body}` : body;
      }
    }
  };
  const name = () => {
    const a = `a${anchors.length}`;
    anchors.push(a);
    return a;
  };
  return go(doc);
}

const s = (v: string | number | boolean | null): Y => ({ t: 'scalar', v });
const map = (entries: Record<string, Y>): Y => ({ t: 'map', v: Object.entries(entries) });
const seq = (v: Y[]): Y => ({ t: 'seq', v });

/** Keys that name a prototype when they become property names (docs/decisions.md §13: none may reach one). */
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const protoKey = fc.constantFrom(...PROTO_KEYS);

const oddString = fc.oneof(
  protoKey,
  fc.constantFrom(
    '..',
    '.',
    '/',
    'a/b',
    'a:b',
    'a_b',
    '../../etc',
    'a\u0000b',
    '\u001b[31mred\u001b[0m',
    'line\nforged',
    'tab\tx',
    'é',
    'TENANT-ALICE',
    'tenant-root',
    '',
    ' ',
    '-',
    '*',
    '\u202e',
    '🙂',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom('\u0000', '\u0007', '\r', '\n', '\u001b', '\u0085', '\u2028', 'a', '.', '/'),
    maxLength: 10,
  }),
  fc.nat(400).map((n) => 'x'.repeat(n + 260)),
);

const rawScalar = fc.constantFrom(
  '~',
  '.inf',
  '-.inf',
  '.nan',
  '0x1F',
  '0o17',
  '1e400',
  '2001-12-14t21:59:43.10-05:00',
  '!!binary aGVsbG8=',
  '!custom x',
  '!!str 1',
  'yes',
  'off',
  '"\\x00\\e\\N\\L"',
  "''",
  '!!null ""',
);

/** Any value, no aliases inside (it may be anchored and aliased elsewhere). */
const anyValue: fc.Arbitrary<Y> = fc.letrec<{ v: Y }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string({ maxLength: 8 }), oddString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)).map(s),
    rawScalar.map((v): Y => ({ t: 'raw', v })),
    fc.array(tie('v'), { maxLength: 3 }).map(seq),
    fc
      .tuple(
        fc.array(fc.tuple(fc.oneof(oddString, fc.string({ maxLength: 6 })), tie('v')), { maxLength: 3 }),
        fc.boolean(),
      )
      .map(([v, anchor]): Y => ({ t: 'map', v, anchor })),
  ),
})).v;

/** cozy-gw's redaction annotations as an input could forge them: with a digest of the marker, of nothing, or junk. */
const forgedMarks: fc.Arbitrary<Y | undefined> = fc.option(
  fc
    .tuple(
      fc.constantFrom('tls.key', 'tls.crt,tls.key', '(none)', 'values.yaml'),
      fc.constantFrom(
        `sha256:${createHash('sha256')
          .update(JSON.stringify([['tls.key', MARKER_B64]]))
          .digest('hex')}`,
        `scrypt:4096:8:1:${'0'.repeat(32)}:${'f'.repeat(64)}`,
        `scrypt:1073741824:8:1:${'0'.repeat(32)}:${'f'.repeat(64)}`,
        'sha256:',
        'junk',
      ),
    )
    .map(([omitted, digest]) =>
      map({
        'cozy-gw.cozystack.io/secret-data-omitted': s(omitted),
        'cozy-gw.cozystack.io/secret-data-digest': s(digest),
        'kubectl.kubernetes.io/last-applied-configuration': s(`{"data":{"tls.key":"${MARKER_B64}"}}`),
      }),
    ),
  { nil: undefined, freq: 3 },
);

/**
 * The kinds' arbitraries at one hostility: `bad` 1 puts a wrong value in about one field of four,
 * larger values fewer (the document then gets past the first check and into the pipelines), 0 none.
 */
function arbitraries(bad: number) {
  /** A field that is usually what the kind expects and sometimes anything at all (or an alias). */
  function field(good: fc.Arbitrary<Y>): fc.Arbitrary<Y> {
    if (bad === 0) return good;
    return fc.oneof(
      { weight: 6 * bad, arbitrary: good },
      { weight: 1, arbitrary: anyValue },
      { weight: 1, arbitrary: fc.constant<Y>({ t: 'alias' }) },
    );
  }

  /** A map with the given fields, each maybe missing, plus maybe odd extra keys. */
  function obj(fields: Record<string, fc.Arbitrary<Y>>, opts: { anchorable?: boolean } = {}): fc.Arbitrary<Y> {
    const keys = Object.keys(fields);
    return fc
      .tuple(
        fc.tuple(
          ...keys.map((k) =>
            bad === 0 ? field(fields[k]) : fc.option(field(fields[k]), { freq: 6 * bad, nil: undefined }),
          ),
        ),
        fc.array(fc.tuple(fc.oneof(oddString, protoKey), anyValue), { maxLength: bad === 0 ? 0 : 1 }),
        fc.boolean(),
      )
      .map(([vals, extra, anchor]): Y => ({
        t: 'map',
        v: [...keys.flatMap((k, i): [string, Y][] => (vals[i] === undefined ? [] : [[k, vals[i] as Y]])), ...extra],
        anchor: opts.anchorable !== false && anchor,
      }));
  }

  const tenantNames =
    bad === 0
      ? fc.constantFrom('root', 'alice', 'bob')
      : fc.oneof({ weight: 4, arbitrary: fc.constantFrom('root', 'alice', 'bob') }, oddString);
  const nsNames =
    bad === 0
      ? fc.constantFrom('tenant-root', 'tenant-alice', 'tenant-bob', 'default', 'cozy-system')
      : fc.oneof(
          {
            weight: 4,
            arbitrary: fc.constantFrom('tenant-root', 'tenant-alice', 'tenant-bob', 'default', 'cozy-system'),
          },
          oddString,
        );
  const goodHosts = fc.constantFrom(
    'example.org',
    'alice.example.org',
    'dashboard.example.org',
    '*.example.org',
    'api.alice.example.org',
  );
  const hosts = bad === 0 ? goodHosts : fc.oneof({ weight: 4, arbitrary: goodHosts }, oddString);
  const str = (a: fc.Arbitrary<string>) => a.map(s);
  const strs = (a: fc.Arbitrary<string>) => fc.array(field(str(a)), { maxLength: 3 }).map(seq);
  const stringMap = fc
    .array(fc.tuple(oddString, field(str(oddString))), { maxLength: 2 })
    .map((v): Y => ({ t: 'map', v }));

  function metadata(namespaced: boolean, name = nsNames): fc.Arbitrary<Y> {
    return obj({
      name: str(name),
      ...(namespaced ? { namespace: str(nsNames) } : {}),
      labels: stringMap,
      annotations: stringMap,
    });
  }

  function kind(
    apiVersion: string,
    kindName: string,
    namespaced: boolean,
    spec: Record<string, fc.Arbitrary<Y>>,
    name = nsNames,
  ): fc.Arbitrary<Y> {
    return obj({
      apiVersion: fc.constant(s(apiVersion)),
      kind: fc.constant(s(kindName)),
      metadata: metadata(namespaced, name),
      spec: obj(spec),
    });
  }

  const parentRefs = fc
    .array(
      field(
        obj({
          name: str(fc.constantFrom('root', 'alice', 'tenant-root', 'cilium')),
          namespace: str(nsNames),
          sectionName: str(oddString),
        }),
      ),
      { maxLength: 2 },
    )
    .map(seq);
  const route = (apiVersion: string, k: string) =>
    kind(
      apiVersion,
      k,
      true,
      {
        parentRefs,
        hostnames: strs(hosts),
        rules: fc
          .array(
            field(
              obj({
                backendRefs: fc
                  .array(field(obj({ name: str(oddString), port: fc.integer().map(s) })), { maxLength: 1 })
                  .map(seq),
              }),
            ),
            { maxLength: 1 },
          )
          .map(seq),
      },
      fc.constantFrom('app', 'a/b', 'a:b', 'a_b', '..'),
    );

  const platformValues = obj({
    publishing: obj({
      host: str(hosts),
      ingressName: str(fc.constantFrom('tenant-root', 'tenant-alice')),
      exposedServices: strs(fc.constantFrom('api', 'dashboard', 'vm-exportproxy')),
      certificates: obj({
        solver: str(fc.constantFrom('http01', 'dns01')),
        issuerName: str(fc.constantFrom('letsencrypt-prod', 'selfsigned')),
      }),
    }),
    gateway: obj({
      enabled: field(fc.boolean().map(s)),
      className: str(fc.constantFrom('cilium', 'cloudflare-tunnel')),
      edgeTerminatedClasses: strs(fc.constantFrom('cloudflare-tunnel')),
      tenantSelectableClasses: strs(fc.constantFrom('cloudflare-tunnel', 'cilium')),
      attachedNamespaces: strs(bad === 0 ? fc.constantFrom('cozy-system', 'default') : nsNames),
    }),
  });

  /** A Secret: its data and stringData always hold the marker (no anchors: an alias would copy it elsewhere). */
  const secret = fc
    .tuple(
      metadata(true, fc.constantFrom('cozystack-values', 'wildcard-tls', '..', 'a/b')),
      fc.constantFrom('Opaque', 'kubernetes.io/tls', 'x'),
      fc.constantFrom(0, 1, 2, 3),
      oddString,
      forgedMarks,
    )
    .map(([plainMeta, type, shape, key, forged]): Y => {
      // cozy-gw's own redaction marks, forged on a Secret that holds its data (they are cozy-gw's
      // output, never taken at their word).
      const meta: Y =
        forged && plainMeta.t === 'map'
          ? { ...plainMeta, v: [...plainMeta.v.filter(([k]) => k !== 'annotations'), ['annotations', forged]] }
          : plainMeta;
      const data: Y =
        shape === 0
          ? map({ 'tls.key': s(MARKER_B64), 'tls.crt': s(MARKER_B64), [key]: s(MARKER_B64) })
          : shape === 1
            ? s(MARKER_B64)
            : shape === 2
              ? seq([s(MARKER_B64)])
              : map({ values: s(MARKER_B64) });
      return map({
        apiVersion: s('v1'),
        kind: s('Secret'),
        metadata: meta,
        type: s(type),
        data,
        stringData: shape === 1 ? s(MARKER) : map({ 'values.yaml': s(MARKER), [key]: s(MARKER) }),
      });
    });

  const documentArb: fc.Arbitrary<Y> = fc.oneof(
    kind(
      'apps.cozystack.io/v1alpha1',
      'Tenant',
      true,
      {
        host: str(hosts),
        gateway: field(fc.boolean().map(s)),
        gatewayClass: str(fc.constantFrom('cilium', 'cloudflare-tunnel', 'evil\u001b[2J')),
        resourceQuotas: fc
          .array(
            fc.tuple(
              fc.oneof(fc.constantFrom('cpu', 'memory', 'pods'), protoKey),
              str(fc.constantFrom('1', '500m', '2Gi', '1e1.5', '-1')),
            ),
            { maxLength: 3 },
          )
          .map((v): Y => ({ t: 'map', v })),
      },
      tenantNames,
    ),
    obj({ apiVersion: fc.constant(s('v1')), kind: fc.constant(s('Namespace')), metadata: metadata(false) }),
    kind(
      'gateway.cozystack.io/v1alpha1',
      'TenantGateway',
      true,
      {
        gatewayClassName: str(fc.constantFrom('cilium', 'cloudflare-tunnel')),
        hostname: str(hosts),
        attachedNamespaces: strs(nsNames),
        certMode: str(fc.constantFrom('http01', 'dns01', 'edge')),
      },
      tenantNames,
    ),
    kind('gateway.networking.k8s.io/v1', 'Gateway', true, {
      gatewayClassName: str(fc.constantFrom('cilium')),
      listeners: fc
        .array(
          field(
            obj({
              name: str(oddString),
              hostname: str(hosts),
              port: fc.integer().map(s),
              protocol: str(fc.constantFrom('HTTP', 'HTTPS', 'TLS')),
            }),
          ),
          { maxLength: 2 },
        )
        .map(seq),
    }),
    route('gateway.networking.k8s.io/v1', 'HTTPRoute'),
    route('gateway.networking.k8s.io/v1alpha2', 'TLSRoute'),
    route('gateway.networking.k8s.io/v1', 'GRPCRoute'),
    secret,
    kind('cert-manager.io/v1', 'Certificate', true, {
      secretName: str(oddString),
      dnsNames: strs(hosts),
      issuerRef: obj({ name: str(oddString), kind: str(fc.constantFrom('Issuer', 'ClusterIssuer')) }),
    }),
    kind('cert-manager.io/v1', 'Issuer', true, {
      acme: obj({ server: str(oddString), solvers: fc.array(anyValue, { maxLength: 1 }).map(seq) }),
    }),
    obj({
      apiVersion: fc.constant(s('cozystack.io/v1alpha1')),
      kind: fc.constant(s('Package')),
      metadata: metadata(false, fc.constantFrom('cozystack.cozystack-platform', 'x')),
      spec: obj({ components: obj({ platform: obj({ values: platformValues }) }) }),
    }),
    kind('networking.k8s.io/v1', 'Ingress', true, {
      ingressClassName: str(oddString),
      rules: fc.array(field(obj({ host: str(hosts) })), { maxLength: 2 }).map(seq),
      tls: fc.array(anyValue, { maxLength: 1 }).map(seq),
    }),
    ...(bad === 0 ? [] : [anyValue]),
  );

  return { documentArb, platformValues, obj };
}

const hostile = arbitraries(1);
const mild = arbitraries(8);
const clean = arbitraries(0);

const ROOT_TENANT = map({
  apiVersion: s('apps.cozystack.io/v1alpha1'),
  kind: s('Tenant'),
  metadata: map({ name: s('root'), namespace: s('tenant-root') }),
  spec: map({ gateway: s(true) }),
});

interface Case {
  values: string;
  docs: string;
  state: string;
  fnConfig: Y | undefined;
  /** `--set` assignments given to every command that reads platform values. */
  set?: string[];
  /** Many routes sharing one hostname in the change: every output stays linear in them, every comment part fits. */
  shared?: number;
  /** A temporary file planted where `snapshot -o` once wrote its own: a link to a file outside, or a file of another's. */
  planted?: 'link' | 'file';
}

// ---------------------------------------------------------------------------------------------
// ValidatingAdmissionPolicies as a pull request could bring them: expensive CEL (cancelled past the
// API server's cost limits) and expressions that reach for Secret data (judged masked).

const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;
const NESTED = (() => {
  let e = 'true';
  for (const v of 'abcdef') e = `${list(12)}.all(${v}, ${e})`;
  return e;
})();
const BIG = 'x'.repeat(10_010);
/** Expensive expressions: a nested `.all()`, a quadratic `contains` of a few nodes, a long product of lists. */
const expensive = fc.constantFrom(
  NESTED,
  `'${BIG}'.contains('${BIG}')`,
  `${list(1000)}.all(a, ${list(400)}.all(b, true))`,
);
/** Expressions and messages over Secret data, each a way key material could reach a message. */
const leaky = fc.constantFrom(
  "'k=' + string(object.data)",
  "object.data['tls.key']",
  'string(object.stringData).substring(0, 20)',
  "object.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']",
  "'v=' + variables.v",
  "string(int(object.data['tls.key']))",
);
const resourceRule = fc.constantFrom(
  { apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] },
  { apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] },
  { apiGroups: ['gateway.networking.k8s.io'], apiVersions: ['v1alpha2'], resources: ['tlsroutes', 'httproutes'] },
);
const policyPair = fc
  .record({
    name: fc.constantFrom('hostile-a', 'hostile-b'),
    rule: resourceRule,
    failurePolicy: fc.constantFrom('Fail', 'Ignore', undefined),
    matchPolicy: fc.constantFrom('Exact', 'Equivalent', undefined),
    validation: fc.oneof(expensive, leaky, fc.constant('false')),
    message: fc.oneof(leaky, expensive),
    condition: fc.option(
      fc.oneof(
        leaky.map((l) => `${l} != ''`),
        expensive,
      ),
      { nil: undefined },
    ),
  })
  .map(({ name, rule, failurePolicy, matchPolicy, validation, message, condition }) => {
    // A nested `.all()` over every object of a state costs the look-ahead a few hundredths of a second each: Secrets only.
    const r =
      validation === NESTED || message === NESTED || condition === NESTED
        ? { ...rule, resources: ['secrets'], apiGroups: [''], apiVersions: ['v1'] }
        : rule;
    const spec: Record<string, unknown> = {
      ...(failurePolicy ? { failurePolicy } : {}),
      matchConstraints: {
        ...(matchPolicy ? { matchPolicy } : {}),
        resourceRules: [{ ...r, operations: ['CREATE', 'UPDATE'] }],
      },
      variables: [{ name: 'v', expression: "has(object.data) ? string(object.data) : ''" }],
      validations: [{ expression: validation, messageExpression: message, message: 'refused' }],
      ...(condition ? { matchConditions: [{ name: 'c', expression: condition }] } : {}),
    };
    const vap = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec,
    };
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'] },
    };
    return `---\n${JSON.stringify(vap)}\n---\n${JSON.stringify(binding)}\n`;
  });

/** `n` HTTPRoutes of tenant-root that share one hostname. */
function sharedRoutes(n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `---\n{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": "shared-${i}", "namespace": "tenant-root"}, "spec": {"parentRefs": [{"name": "cozystack", "namespace": "tenant-root"}], "hostnames": ["shop.example.org"]}}\n`,
  ).join('');
}

/** A dotted path whose parts may name a prototype: `__proto__.x`, `a.constructor.prototype.b`. */
const protoPath = fc
  .array(fc.oneof(protoKey, fc.constantFrom('publishing', 'gateway', 'host', 'enabled', 'x')), {
    minLength: 1,
    maxLength: 4,
  })
  .map((parts) => parts.join('.'));
const protoValue = fc.constantFrom('1', 'true', 'example.org', '{enabled: true}', '[a, b]', '{host: x}');

/** --set assignments, prototype keys among their parts. */
const setArb = fc.array(
  fc.tuple(protoPath, fc.constantFrom('1', 'true', 'example.org', 'x')).map(([p, v]) => `${p}=${v}`),
  { maxLength: 3 },
);

/** The ConfigMap form of the function config (kpt fn eval -- key=value), prototype keys among the dotted keys and in `values`. */
const configMapConfig: fc.Arbitrary<Y> = fc
  .tuple(
    fc.array(fc.tuple(protoPath, protoValue), { maxLength: 4 }),
    fc.option(
      fc.constantFrom(
        '__proto__: {x: 1}\npublishing: {host: example.org}\n',
        'constructor: {prototype: {y: 2}}\n',
        'publishing: {__proto__: {host: evil.org}, host: example.org}\n',
        'prototype: 3\ngateway: {enabled: true}\n',
      ),
      { nil: undefined },
    ),
  )
  .map(([pairs, values]) =>
    map({
      apiVersion: s('v1'),
      kind: s('ConfigMap'),
      metadata: map({ name: s('fn') }),
      data: {
        t: 'map',
        v: [
          ...pairs.map(([k, v]): [string, Y] => [k, s(v)]),
          ...(values ? [['values', s(values)] as [string, Y]] : []),
        ],
      },
    }),
  );

const docsText = (docs: Y[]) => docs.map((d) => `---\n${emit(d)}\n`).join('');

const hostileCase: fc.Arbitrary<Case> = fc
  .record({
    values: fc.oneof(
      { weight: 3, arbitrary: clean.platformValues },
      { weight: 3, arbitrary: mild.platformValues },
      { weight: 2, arbitrary: hostile.platformValues },
      { weight: 1, arbitrary: anyValue },
    ),
    docs: fc.oneof(
      {
        weight: 2,
        arbitrary: fc.array(clean.documentArb, { minLength: 1, maxLength: 5 }).map((d) => [ROOT_TENANT, ...d]),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            fc.array(clean.documentArb, { maxLength: 3 }),
            fc.array(mild.documentArb, { minLength: 1, maxLength: 2 }),
          )
          .map(([a, b]) => [ROOT_TENANT, ...a, ...b]),
      },
      { weight: 1, arbitrary: fc.array(hostile.documentArb, { minLength: 1, maxLength: 5 }) },
    ),
    state: fc.array(mild.documentArb, { maxLength: 3 }),
    fnConfig: fc.option(
      fc.oneof(
        clean.obj({
          apiVersion: fc.constant(s('fn.cozystack.io/v1alpha1')),
          kind: fc.constant(s('CozyGateway')),
          spec: clean.obj({ values: mild.platformValues, reconcile: fc.boolean().map(s) }),
        }),
        configMapConfig,
      ),
      { nil: undefined },
    ),
    set: fc.oneof({ weight: 2, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: setArb }),
    policies: fc.array(policyPair, { maxLength: 2 }),
    statePolicies: fc.array(policyPair, { maxLength: 1 }),
    shared: fc.option(fc.integer({ min: 20, max: 400 }), { nil: undefined, freq: 4 }),
    planted: fc.option(fc.constantFrom<'link' | 'file'>('link', 'file'), { nil: undefined, freq: 4 }),
  })
  .map(({ values, docs, state, fnConfig, set, policies, statePolicies, shared, planted }) => ({
    values: emit(values) + '\n',
    docs: docsText(docs) + policies.join('') + (shared ? sharedRoutes(shared) : ''),
    state: docsText([...docs, ...state]) + statePolicies.join(''),
    fnConfig,
    set,
    shared,
    planted,
  }));

/** A Secret of the state holding the marker as a TLS key, which a policy in the change reaches for. */
const WILD = `---\n${JSON.stringify({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'wild', namespace: 'tenant-root' },
  type: 'kubernetes.io/tls',
  data: { 'tls.crt': MARKER_B64, 'tls.key': MARKER_B64 },
})}\n`;

/**
 * A platform that renders, and the new shapes on it (so that they reach the pipelines, not only
 * the input checks): policies with expensive CEL or reaching for Secret data, in the change and in
 * the state, a state Secret holding the marker, Secrets forging cozy-gw's redaction marks, many
 * routes sharing one hostname, a planted temporary file.
 */
const focusedCase: fc.Arbitrary<Case> = fc
  .record({
    docs: fc.array(clean.documentArb, { maxLength: 3 }),
    policies: fc.array(policyPair, { minLength: 1, maxLength: 2 }),
    statePolicies: fc.array(policyPair, { maxLength: 1 }),
    shared: fc.option(fc.integer({ min: 20, max: 400 }), { nil: undefined, freq: 2 }),
    planted: fc.option(fc.constantFrom<'link' | 'file'>('link', 'file'), { nil: undefined, freq: 3 }),
  })
  .map(({ docs, policies, statePolicies, shared, planted }) => {
    // One policy of a name (two of one name would be a duplicate, refused before anything runs).
    const unique = (ps: string[]) =>
      ps.filter((p, i) => ps.findIndex((q) => q.slice(0, 120) === p.slice(0, 120)) === i);
    const given = docsText([ROOT_TENANT, ...docs]);
    return {
      values: 'publishing: {host: example.org}\ngateway: {enabled: true}\n',
      docs: given + unique(policies).join('') + (shared ? sharedRoutes(shared) : ''),
      state: given + WILD + statePolicies.join(''),
      fnConfig: undefined,
      shared,
      planted,
    };
  });

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  { weight: 2, arbitrary: hostileCase },
  { weight: 1, arbitrary: focusedCase },
);

/** The own property names of the built-in prototypes: an input key that reached one would add a name. */
function prototypeNames(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((p) => Object.getOwnPropertyNames(p).sort().join(','))
    .join('|');
}
const PROTOTYPES_BEFORE = prototypeNames();

// ---------------------------------------------------------------------------------------------

function snapshotTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      // A directory's own mtime changes when an entry is added below it: only new or changed
      // entries count (a directory counts by its existence and mode).
      out.set(path.relative(root, p), e.isDirectory() ? `dir:${st.mode}` : `${st.mode}:${st.size}:${st.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

/** HOSTILE_STATS=1 prints the exit codes per command (to see the cases get past parsing). */
const stats = new Map<string, number>();

const count = (hay: string, needle: string) => hay.split(needle).length - 1;
const JS_ERROR =
  /\n\s+at .+|\b(TypeError|RangeError|ReferenceError|SyntaxError|EvalError|URIError|InternalError)\b|Maximum call stack/;

/** Where the comment parts go (a folder of the work directory), and the snapshot of the planted case. */
const COMMENTS = 'comments';
const SNAPSHOT = 'snap.yaml';

/** Every comment part within the limit it was written for. */
function checkCommentParts(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const f of fs.readdirSync(dir)) {
    const n = fs.readFileSync(path.join(dir, f), 'utf8').length;
    if (n > 4096) throw new Error(`comment part ${f} holds ${n} characters, past --comment-limit 4096`);
  }
}

/**
 * `snapshot -o` in a directory where another user planted a file at the name the temporary file
 * once took (`.snap.yaml.<pid>.tmp`): a link to a file outside, or a file of theirs. Neither is
 * written through, followed or removed; the snapshot is written; nothing of the run's own is left.
 */
async function checkPlanted(work: string, how: 'link' | 'file'): Promise<void> {
  const outside = path.join(path.dirname(work), 'victim.txt');
  fs.writeFileSync(outside, 'precious\n');
  const planted = path.join(work, `.${SNAPSHOT}.${process.pid}.tmp`);
  if (how === 'link') fs.symlinkSync(outside, planted);
  else fs.writeFileSync(planted, 'theirs\n', { mode: 0o666 });
  const fake = path.join(ROOT, 'testdata', 'fake-kubectl');
  const r = await runCli(['snapshot', '-q', '-o', SNAPSHOT], {
    cwd: work,
    env: { PATH: `${fake}${path.delimiter}${path.dirname(process.execPath)}`, HOME: path.dirname(work) },
    exec: inProcessKubectl,
  });
  const problems = [
    r.code !== 0 && `snapshot exit ${r.code}: ${r.stderr.slice(0, 500)}`,
    fs.readFileSync(outside, 'utf8') !== 'precious\n' && 'the file a planted link points at was written',
    how === 'link' && !fs.lstatSync(planted).isSymbolicLink() && 'the planted link was replaced',
    how === 'file' && fs.readFileSync(planted, 'utf8') !== 'theirs\n' && 'the planted file was written',
    !fs.lstatSync(path.join(work, SNAPSHOT)).isFile() && 'the snapshot is no regular file',
    fs.readdirSync(work).filter((f) => f.endsWith('.tmp')).length !== 1 && 'a temporary file of the run was left',
  ].filter(Boolean);
  fs.rmSync(planted);
  fs.rmSync(outside);
  if (problems.length) throw new Error(`snapshot -o with a planted ${how}: ${problems.join('; ')}`);
}

async function check(c: Case): Promise<void> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-hprop-'));
  try {
    const work = path.join(parent, 'work');
    fs.mkdirSync(work);
    fs.writeFileSync(path.join(work, 'values.yaml'), c.values);
    fs.writeFileSync(path.join(work, 'docs.yaml'), c.docs);
    fs.writeFileSync(path.join(work, 'state.yaml'), c.state);
    // The kustomize exec plugin form reads its config from a file, the stream on stdin.
    fs.writeFileSync(
      path.join(work, 'plugin.yaml'),
      c.fnConfig
        ? emit(c.fnConfig)
        : 'apiVersion: fn.cozystack.io/v1alpha1\nkind: CozyGateway\nmetadata: {name: x}\nspec: {}\n',
    );
    const outRel = path.join('out', 'deploy');
    const before = snapshotTree(parent);
    const resourceList =
      `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n` +
      (c.fnConfig ? `functionConfig: ${emit(c.fnConfig)}\n` : '') +
      `items:\n${c.docs
        .split(/^---\n/m)
        .filter((d) => d.trim())
        .map((d) => `- ${d.trim()}\n`)
        .join('')}`;
    const common = ['--values', 'values.yaml', '-f', 'docs.yaml', ...(c.set ?? []).flatMap((a) => ['--set', a])];
    const commands: { args: string[]; stdin?: string; passThrough?: string; codes?: number[] }[] = [
      { args: ['render', ...common] },
      { args: ['render', ...common, '--with-controller', '--now', NOW, '--output-dir', outRel] },
      { args: ['reconcile', ...common, '--now', NOW, '-o', 'yaml'] },
      { args: ['reconcile', ...common, '--now', NOW, '-o', 'json'] },
      { args: ['reconcile', ...common, '--now', NOW, '-o', 'plan'] },
      { args: ['reconcile', ...common, '--now', NOW, '--all'] },
      { args: ['admit', ...common, '--as', 'system:serviceaccount:cozy-fluxcd:helm-controller'] },
      { args: ['fn'], stdin: resourceList, passThrough: resourceList },
      { args: ['fn', 'plugin.yaml'], stdin: c.docs, passThrough: c.docs },
      { args: ['post-render', '--now', NOW], stdin: c.docs, passThrough: c.docs },
      { args: ['diff', '--state', 'state.yaml', ...common, '--now', NOW], codes: [0, 1, 2, 3] },
      ...(c.shared
        ? [
            { args: ['diff', '--state', 'state.yaml', ...common, '--now', NOW, '-o', 'json'], codes: [0, 1, 2, 3] },
            {
              args: ['diff', '--state', 'state.yaml', ...common, '--now', NOW, '-o', 'markdown'],
              codes: [0, 1, 2, 3],
            },
            {
              args: [
                ...['diff', '--state', 'state.yaml', ...common, '--now', NOW, '-o', 'markdown'],
                ...['--comment-dir', COMMENTS, '--comment-limit', '4096'],
              ],
              codes: [0, 1, 2, 3],
            },
          ]
        : []),
    ];
    const inputBytes = c.values.length + c.docs.length + c.state.length;
    for (const cmd of commands) {
      const label = `cozy-gw ${cmd.args.join(' ')}`;
      const t0 = Date.now();
      const r = await runCli(cmd.args, { cwd: work, stdin: cmd.stdin, env: {} });
      const ms = Date.now() - t0;
      if (process.env.HOSTILE_STATS)
        stats.set(
          `${cmd.args[0]} ${cmd.args.includes('--output-dir') ? 'out-dir ' : ''}-> ${r.code}`,
          (stats.get(`${cmd.args[0]} ${cmd.args.includes('--output-dir') ? 'out-dir ' : ''}-> ${r.code}`) ?? 0) + 1,
        );
      const why = `${label}\nexit ${r.code}\nstderr: ${r.stderr.slice(0, 2000)}`;
      if (!(cmd.codes ?? [0, 1, 2]).includes(r.code)) throw new Error(`unexpected exit code: ${why}`);
      if (JS_ERROR.test(r.stderr)) throw new Error(`stack trace or JavaScript error on stderr: ${why}`);
      if (ms > PER_COMMAND_MS) throw new Error(`took ${ms} ms (> ${PER_COMMAND_MS}): ${label}`);
      if (prototypeNames() !== PROTOTYPES_BEFORE) {
        // Clean up for the shrinking runs, then fail naming the command.
        for (const k of Object.getOwnPropertyNames(Object.prototype))
          if (!PROTOTYPES_BEFORE.split('|')[0].split(',').includes(k))
            delete (Object.prototype as Record<string, unknown>)[k];
        throw new Error(`an input key reached a prototype: ${why}`);
      }
      for (const m of [MARKER, MARKER_B64]) {
        if (r.stderr.includes(m)) throw new Error(`secret marker ${m} on stderr: ${why}`);
        const allowed = cmd.passThrough ? count(cmd.passThrough, m) : 0;
        if (count(r.stdout, m) > allowed)
          throw new Error(`secret marker ${m} on stdout: ${label}\nstdout: ${r.stdout.slice(0, 3000)}`);
      }
      // Bounded by the input's meaning: linear in it, never the square of a shared hostname's routes.
      if (r.stdout.length > 40 * inputBytes + 300_000)
        throw new Error(`${r.stdout.length} characters on stdout from ${inputBytes} of input: ${label}`);
    }
    if (c.shared) checkCommentParts(path.join(work, COMMENTS));
    if (c.planted) await checkPlanted(work, c.planted);
    // Only the output directory may have changed.
    const after = snapshotTree(parent);
    const inside = (p: string) => p === path.join('work', outRel) || p.startsWith(path.join('work', outRel) + path.sep);
    const changed = [...after].filter(([p, st]) => before.get(p) !== st && !inside(p)).map(([p]) => p);
    const ancestors = new Set(['work/out', path.join('work', COMMENTS), path.join('work', SNAPSHOT)]);
    for (const [p] of after) if (p.startsWith(`${path.join('work', COMMENTS)}${path.sep}`)) ancestors.add(p);
    const outside = changed.filter((p) => !ancestors.has(p));
    if (outside.length) throw new Error(`written outside the output directory: ${outside.join(', ')}`);
    // Nothing the render wrote in the output directory leaks the marker.
    for (const [p] of after) {
      if (!inside(p)) continue;
      const full = path.join(parent, p);
      if (fs.lstatSync(full).isFile()) {
        const text = fs.readFileSync(full, 'utf8');
        if (text.includes(MARKER) || text.includes(MARKER_B64)) throw new Error(`secret marker in ${p}`);
      }
    }
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

describe('hostile input through every command', () => {
  it(
    `exits 0/1/2 (diff 3), no stack trace, bounded, writes only in the output dir, never prints secrets (${RUNS} runs)`,
    async () => {
      const result = await fc.check(fc.asyncProperty(caseArb, check), { numRuns: RUNS, seed: SEED });
      if (process.env.HOSTILE_STATS)
        console.log(
          [...stats]
            .sort()
            .map(([k, n]) => `${k}: ${n}`)
            .join('\n'),
        );
      if (result.failed) {
        // fast-check's report carries the seed and path; replay with FC_SEED=<seed>.
        throw new Error(
          `hostile property failed (replay: FC_SEED=${result.seed})\n${fc.defaultReportMessage(result)}\n${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}`,
        );
      }
    },
    // Half an hour at least; a long HOSTILE_RUNS run gets its time (some seconds a run).
    Math.max(30 * 60 * 1000, RUNS * 5000),
  );
});

describe('hostile generator sanity', () => {
  it('emits YAML with anchors and aliases that the parser accepts as written', () => {
    const y = map({ a: { t: 'map', v: [['x', s(1)]], anchor: true }, b: { t: 'alias' }, c: s('a\u0000b') });
    expect(emit(y)).toBe('{"a": &a0 {"x": 1}, "b": *a0, "c": "a\\u0000b"}');
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile trees (docs/decisions.md §12): `render --output-dir` over a tree someone tampered with (a
// folder or a file replaced by a link to elsewhere, user files whose names hold control
// characters, a work area that is a link, a crafted journal, a dead run's lock, another host's
// lock) and two renders into one DIR at once, in one process or in two (a child process whose
// stdout and stderr are pipes its reader closed at once). Asserted, besides the exit codes and the
// absence of stack traces: nothing outside DIR changes, nothing of a run is left behind (work area,
// lock, temporary files), the record is true (every recorded file is a regular file holding the
// bytes its digest says) and is one render's tree, whole (a run alone: exit 0 and its own tree, or
// exit 1 and DIR as it was), and no stderr line is forged by a file name.
// HOSTILE_TREE_RUNS (else FC_RUNS) sets its runs (default 40).

const TREE_RUNS = Number(process.env.HOSTILE_TREE_RUNS ?? process.env.FC_RUNS ?? 40);
/** The CLI as users run it (dist/, which jest's globalSetup builds). */
const BIN = path.join(ROOT, 'bin', 'cozy-gw.js');

type Tamper =
  | { t: 'none' }
  | { t: 'link-folder' }
  | { t: 'link-file' }
  | { t: 'user-file'; name: string; inFolder: boolean }
  | { t: 'work-link' }
  | { t: 'journal'; outside: boolean }
  | { t: 'stale-lock' }
  | { t: 'foreign-lock' };

const userName = fc.oneof(
  fc.constantFrom('x\nerror: forged line', '\u001b[2Jcleared', 'README.md', '\u202eevil', 'a\rb', '.git', 'tab\there'),
  oddString,
);

const tamperArb: fc.Arbitrary<Tamper> = fc.oneof(
  fc.constant<Tamper>({ t: 'none' }),
  fc.constant<Tamper>({ t: 'link-folder' }),
  fc.constant<Tamper>({ t: 'link-file' }),
  fc.record({ t: fc.constant('user-file' as const), name: userName, inFolder: fc.boolean() }),
  fc.constant<Tamper>({ t: 'work-link' }),
  fc.record({ t: fc.constant('journal' as const), outside: fc.boolean() }),
  fc.constant<Tamper>({ t: 'stale-lock' }),
  fc.constant<Tamper>({ t: 'foreign-lock' }),
);

/** Tenants that render: a tree of them under tenant-root, some owning a Gateway (the trees differ run to run). */
const goodTenants: fc.Arbitrary<Case> = fc
  .tuple(
    fc.subarray(['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'hal'], { minLength: 0 }),
    fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 8, maxLength: 8 }),
    fc.boolean(),
  )
  .map(([names, shape, enabled]) => {
    const docs = [
      'apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: root, namespace: tenant-root}\nspec: {gateway: true}\n',
    ];
    const namespaces = ['tenant-root'];
    names.forEach((n, i) => {
      const [parent, gateway] = shape[i];
      const ns = namespaces[parent % namespaces.length];
      docs.push(
        `apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: ${n}, namespace: ${ns}}\nspec: {gateway: ${gateway}}\n`,
      );
      namespaces.push(ns === 'tenant-root' ? `tenant-${n}` : `${ns}-${n}`);
    });
    return {
      values: `publishing: {host: example.org}\ngateway: {enabled: ${enabled}}\n`,
      docs: docs.map((d) => `---\n${d}`).join(''),
      state: '',
      fnConfig: undefined,
    };
  });

/** One render's inputs for the tree property: mostly ones that render (so that trees get written), some hostile. */
const someInputArb: fc.Arbitrary<Case> = fc
  .record({
    values: fc.oneof({ weight: 5, arbitrary: clean.platformValues }, { weight: 1, arbitrary: mild.platformValues }),
    docs: fc.oneof(
      {
        weight: 5,
        arbitrary: fc.array(clean.documentArb, { minLength: 1, maxLength: 8 }).map((d) => [ROOT_TENANT, ...d]),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.array(clean.documentArb, { maxLength: 4 }), fc.array(mild.documentArb, { maxLength: 2 }))
          .map(([x, y]) => [ROOT_TENANT, ...x, ...y]),
      },
      { weight: 1, arbitrary: fc.array(hostile.documentArb, { minLength: 1, maxLength: 4 }) },
    ),
  })
  .map(({ values, docs }) => ({ values: emit(values) + '\n', docs: docsText(docs), state: '', fnConfig: undefined }));
const treeInputArb = fc.oneof({ weight: 5, arbitrary: goodTenants }, { weight: 2, arbitrary: someInputArb });

interface TreeCase {
  a: Case;
  b: Case;
  tamper: Tamper;
  concurrent: boolean;
  /** The second run is a child process whose stdout and stderr are closed by their reader at once. */
  closedPipes: boolean;
  json: boolean;
}

/** A run of the CLI in a child process whose reader closes stdout and stderr at once (`| head -0`, `2>&1 | true`). */
function runClosed(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      // The suite's Cozystack version (test/setupVersion.ts), as runCli passes it: the trees compared are one version's.
      env: { PATH: process.env.PATH ?? '', COZY_GW_COZYSTACK_VERSION: process.env.COZY_GW_COZYSTACK_VERSION ?? 'main' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    child.stderr.destroy();
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal) reject(new Error(`cozy-gw ${args.join(' ')} was killed by ${signal}`));
      else resolve({ code: code ?? -1, stdout: '', stderr: '' });
    });
  });
}

const treeCaseArb: fc.Arbitrary<TreeCase> = fc.record({
  a: treeInputArb,
  b: treeInputArb,
  tamper: tamperArb,
  concurrent: fc.boolean(),
  closedPipes: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  json: fc.boolean(),
});

/** Files (links as links) below `root`: path → bytes or `link -> target`; folders with a trailing `/`. */
function treeBytes(root: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!fs.existsSync(root)) return out;
  const dirs = [''];
  for (let i = 0; i < dirs.length; i++) {
    for (const e of fs.readdirSync(path.join(root, dirs[i]), { withFileTypes: true })) {
      const rel = dirs[i] ? `${dirs[i]}/${e.name}` : e.name;
      const p = path.join(root, rel);
      if (e.isSymbolicLink()) out.set(rel, `link -> ${fs.readlinkSync(p)}`);
      else if (e.isDirectory()) {
        out.set(`${rel}/`, 'dir');
        dirs.push(rel);
      } else out.set(rel, fs.readFileSync(p, 'latin1'));
    }
  }
  return out;
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function checkTree(c: TreeCase): Promise<void> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-htree-'));
  try {
    const work = path.join(parent, 'work');
    const outside = path.join(parent, 'outside');
    fs.mkdirSync(work);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(work, 'a-values.yaml'), c.a.values);
    fs.writeFileSync(path.join(work, 'a.yaml'), c.a.docs);
    fs.writeFileSync(path.join(work, 'b-values.yaml'), c.b.values);
    fs.writeFileSync(path.join(work, 'b.yaml'), c.b.docs);
    const deploy = path.join(work, 'deploy');
    const run = async (which: 'a' | 'b', into = 'deploy', extra: string[] = [], closed = false) => {
      const args = ['render', '--values', `${which}-values.yaml`, '-f', `${which}.yaml`, '--output-dir', into];
      if (c.json) args.push('-o', 'json');
      const t0 = Date.now();
      const r = closed
        ? await runClosed([...args, ...extra], work)
        : await runCli([...args, ...extra], { cwd: work, env: {} });
      const label = `cozy-gw ${args.join(' ')} ${extra.join(' ')} (tamper ${JSON.stringify(c.tamper)}, concurrent ${c.concurrent}, closed pipes ${closed})`;
      const why = `${label}\nexit ${r.code}\nstderr: ${r.stderr.slice(0, 2000)}`;
      if (![0, 1, 2].includes(r.code)) throw new Error(`unexpected exit code: ${why}`);
      if (JS_ERROR.test(r.stderr)) throw new Error(`stack trace or JavaScript error on stderr: ${why}`);
      // A child process starts node and loads the CLI first: it gets more time.
      if (Date.now() - t0 > PER_COMMAND_MS * (closed ? 6 : 2)) throw new Error(`took ${Date.now() - t0} ms: ${label}`);
      // A name from the tree never forges a line or drives the terminal.
      if (/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/.test(r.stderr))
        throw new Error(`raw control character on stderr: ${why}`);
      if (/^(forged|error: forged)/m.test(r.stderr)) throw new Error(`forged stderr line: ${why}`);
      return r;
    };
    const first = await run('a');
    if (process.env.HOSTILE_STATS && first.code !== 0) {
      const k = `tree first run: ${first.stderr
        .split('\n')
        .find((l) => l.startsWith('error'))
        ?.replace(/^(error: )([^:]*:)?.*?: /, '$1')
        .slice(0, 70)}`;
      stats.set(k, (stats.get(k) ?? 0) + 1);
    }
    // Tamper with what the first run wrote.
    const sentinel = 'precious\n';
    fs.writeFileSync(path.join(outside, 'sentinel'), sentinel);
    const rec = fs.existsSync(deploy) ? readTree(deploy) : undefined;
    const files = rec?.files.map((f) => f.path) ?? [];
    const folders = [...new Set(files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))].sort();
    let lockHeld = false;
    switch (c.tamper.t) {
      case 'link-folder':
        if (folders.length) {
          for (const f of files.filter((x) => x.startsWith(`${folders[0]}/`)))
            fs.writeFileSync(path.join(outside, path.basename(f)), sentinel);
          fs.rmSync(path.join(deploy, folders[0]), { recursive: true });
          fs.symlinkSync('../../outside', path.join(deploy, folders[0]));
        }
        break;
      case 'link-file': {
        const f = files.find((x) => x.includes('/'));
        if (f) {
          fs.rmSync(path.join(deploy, f));
          fs.symlinkSync(path.join(outside, 'sentinel'), path.join(deploy, f));
        }
        break;
      }
      case 'user-file': {
        const name = c.tamper.name;
        const ok =
          name && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0') && name.length < 200;
        if (ok && fs.existsSync(deploy) && !name.startsWith('.cozy-gw')) {
          const where = c.tamper.inFolder && folders.length ? path.join(deploy, folders[0]) : deploy;
          if (!fs.existsSync(path.join(where, name))) fs.writeFileSync(path.join(where, name), 'mine\n');
        }
        break;
      }
      case 'work-link':
        if (fs.existsSync(deploy)) {
          fs.mkdirSync(path.join(outside, 'new'));
          fs.symlinkSync('../../outside', path.join(deploy, '.cozy-gw-txn'));
        }
        break;
      case 'journal':
        if (fs.existsSync(deploy)) {
          fs.mkdirSync(path.join(deploy, '.cozy-gw-txn/new'), { recursive: true });
          const target = c.tamper.outside ? '../outside/sentinel' : (files[0] ?? 'kustomization.yaml');
          fs.writeFileSync(
            path.join(deploy, '.cozy-gw-txn/journal'),
            JSON.stringify({
              id: 'x',
              pid: 1,
              started: '',
              mkdirs: [],
              moves: [[target, '0'.repeat(64)]],
              aside: [target],
            }),
          );
        }
        break;
      case 'stale-lock':
      case 'foreign-lock':
        if (fs.existsSync(deploy)) {
          const foreign = c.tamper.t === 'foreign-lock';
          fs.writeFileSync(
            path.join(deploy, '.cozy-gw-lock'),
            JSON.stringify({
              pid: foreign ? 1 : 2 ** 22 + 12345,
              host: foreign ? 'elsewhere.example' : os.hostname(),
              started: '',
              token: 'b'.repeat(32),
            }),
          );
          lockHeld = foreign;
        }
        break;
    }
    const outsideBefore = treeBytes(outside);
    // What DIR holds before the runs, beyond cozy-gw's own bookkeeping (a lock, a work area), which a run may recover.
    const own = (p: string) => /^\.cozy-gw-(lock|txn)/.test(p) && !(lockHeld && p === '.cozy-gw-lock');
    const userView = () => [...treeBytes(deploy)].filter(([p]) => !own(p));
    const deployBefore = userView();
    const extra = ['--lock-timeout', lockHeld ? '0' : '20'];
    const results = c.concurrent
      ? await Promise.all([run('b', 'deploy', extra, c.closedPipes), run('a', 'deploy', extra)])
      : [await run('b', 'deploy', extra, c.closedPipes)];
    // Nothing outside DIR changed.
    const outsideAfter = treeBytes(outside);
    if (JSON.stringify([...outsideAfter]) !== JSON.stringify([...outsideBefore]))
      throw new Error(`outside the tree changed (tamper ${JSON.stringify(c.tamper)})`);
    if (!fs.existsSync(deploy)) {
      if (results.some((r) => r.code === 0)) throw new Error('a run succeeded and left no tree');
      if (process.env.HOSTILE_STATS)
        stats.set('tree (no tree written)', (stats.get('tree (no tree written)') ?? 0) + 1);
      return;
    }
    if (process.env.HOSTILE_STATS) {
      const k = `tree ${c.tamper.t}${c.concurrent ? ' concurrent' : ''}${c.closedPipes ? ' closed-pipes' : ''} -> ${results.map((r) => r.code).join(',')}`;
      stats.set(k, (stats.get(k) ?? 0) + 1);
    }
    if (results.every((r) => r.code !== 0)) {
      // Failed runs leave DIR as it was.
      if (JSON.stringify(userView()) !== JSON.stringify(deployBefore))
        throw new Error(
          `a failed run changed DIR (tamper ${JSON.stringify(c.tamper)}): ${results.map((r) => r.stderr).join('\n')}`,
        );
      return;
    }
    // A run succeeded: nothing of any run is left behind (a work area, a lock, a temporary file)...
    for (const e of fs.readdirSync(deploy)) {
      if (e === '.cozy-gw-lock' && lockHeld) continue;
      if (e.startsWith('.cozy-gw-') && e !== '.cozy-gw-files')
        throw new Error(`left behind: ${e} (${JSON.stringify(c)})`);
    }
    for (const [p] of treeBytes(deploy)) if (/cozy-gw-tmp/.test(p)) throw new Error(`temporary file left: ${p}`);
    // ...and the record is true, and is one render's tree, whole.
    const now = recorded(deploy);
    // The trees each input renders alone, into fresh directories.
    // Alone, the run that succeeded wrote its own tree; at once, the tree is one of the two that succeeded.
    const candidates: Map<string, string>[] = [];
    const succeeded = c.concurrent ? (['b', 'a'] as const).filter((_, i) => results[i].code === 0) : (['b'] as const);
    for (const w of succeeded) {
      const r = await run(w, `fresh-${w}`);
      if (r.code === 0) candidates.push(recorded(path.join(work, `fresh-${w}`)));
    }
    if (!candidates.some((t) => sameTree(t, now)))
      throw new Error(
        `the tree is no render's: ${[...now.keys()].slice(0, 5).join(', ')} (tamper ${JSON.stringify(c.tamper)}, exits ${results.map((r) => r.code)}; ${results.map((r) => r.stderr).join('\n')})`,
      );
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

/** The recorded files of the tree in `dir`, each checked against its digest: path → digest. Links and missing files are not recorded files. */
function recorded(dir: string): Map<string, string> {
  const rec = readTree(dir);
  const out = new Map<string, string>();
  if (!rec) return out;
  for (const f of rec.files) {
    const p = path.join(dir, f.path);
    // Every component a real folder, the file a regular file: no link on the way.
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const st = fs.lstatSync(path.join(dir, ...parts.slice(0, i)), { throwIfNoEntry: false });
      if (!st?.isDirectory()) throw new Error(`recorded ${f.path}: ${parts.slice(0, i).join('/')} is not a folder`);
    }
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st?.isFile()) throw new Error(`recorded ${f.path} is not a regular file in ${dir}`);
    const digest = sha(fs.readFileSync(p));
    if (f.sha256 !== digest) throw new Error(`recorded ${f.path} does not hold the bytes its digest says`);
    out.set(f.path, digest);
  }
  return out;
}

function sameTree(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

describe('hostile trees: symlinked, tampered and concurrent output directories', () => {
  it(
    `never write or delete outside DIR, leave nothing behind, keep the record true and whole (${TREE_RUNS} runs)`,
    async () => {
      const result = await fc.check(fc.asyncProperty(treeCaseArb, checkTree), { numRuns: TREE_RUNS, seed: SEED });
      if (process.env.HOSTILE_STATS)
        console.log(
          [...stats]
            .filter(([k]) => k.startsWith('tree '))
            .sort()
            .map(([k, n]) => `${k}: ${n}`)
            .join('\n'),
        );
      if (result.failed) {
        throw new Error(
          `hostile tree property failed (replay: FC_SEED=${result.seed})\n${fc.defaultReportMessage(result)}\n${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}`,
        );
      }
    },
    // A few seconds a run at most (a long FC_RUNS run gets its time).
    Math.max(60 * 60 * 1000, TREE_RUNS * 5000),
  );
});
