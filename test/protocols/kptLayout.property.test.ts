/**
 * Property: the layout of new items written directly (kptLayout.ts) is, byte for byte, the
 * round trip it stands for (text.ts seqEntries: js-yaml's dump read by the `yaml` library with
 * the failsafe schema and written back in kpt's layout), wherever it answers at all; and it
 * answers for the shapes a render produces. Seed: FC_SEED replays a run (fast-check prints the
 * seed and path on failure).
 */
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { dumpYaml } from '../../src/k8s/yaml';
import { kptEntry, kptMarkedEntry, newLayoutMemo } from '../../src/protocols/krm/kptLayout';
import { GENERATED_ANNOTATION, PATH_ANNOTATION, generatedMarks, withMarks } from '../../src/protocols/krm/items';
import type { KObject } from '../../src/k8s/model';
import { seqEntries } from '../../src/protocols/krm/text';

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

/** Characters that change how a scalar is written: indicators, quotes, colons, spaces, line breaks, controls. */
const tricky = fc.constantFrom(
  ...'aZ09 :#-?,[]{}&*!|>\'"%@`\\/.=;+()~\n\t\r\u0000\u001b\u0085\u00a0\u2028\u00e9\ud83d\ude00'.split(''),
);
const word = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
  fc.array(tricky, { maxLength: 8 }).map((cs) => cs.join('')),
  fc.constantFrom('yes', 'on', 'No', 'null', '~', '0x1F', '1e3', '012', '1:20', 'a: b', 'a:b', 'a:', '- a', '# c'),
  fc.constantFrom('line one\nline two\n', '  indented\nnext', 'trailing\n\n', '\nleading', 'x\n \n', 'a\n\n\nb\n'),
  fc.string({ maxLength: 12 }),
);
const scalar = fc.oneof(word, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(-0));
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(word, tie('v'), { maxKeys: 4 }),
  ),
})).v;
const item = fc.dictionary(word, value, { minKeys: 1, maxKeys: 5 });

describe('kptLayout', () => {
  test('kptEntry writes what the round trip writes, wherever it answers', () => {
    fc.assert(
      fc.property(item, fc.constantFrom('', '  ', '    '), (v, indent) => {
        const direct = kptEntry(v, indent, newLayoutMemo());
        if (direct !== undefined) expect(direct).toBe(seqEntries([v], indent)[0]);
      }),
      { seed, numRuns: 1500 },
    );
  });

  test('multi-line strings (the fast literal block and the rest): the round trip, byte for byte', () => {
    const lineChar = fc.constantFrom(...'aZ09 :#-?,[]{}&*!|>\'"%@`\\/.=;+()~\t\u00e9'.split(''));
    const line = fc.array(lineChar, { maxLength: 10 }).map((cs) => cs.join(''));
    const text = fc
      .tuple(fc.array(line, { minLength: 2, maxLength: 6 }), fc.constantFrom('', '\n', '\n\n'))
      .map(([ls, end]) => ls.join('\n') + end);
    fc.assert(
      fc.property(text, fc.constantFrom('', '  ', '   '), (s, indent) => {
        const v = { stringData: { 'values.yaml': s }, list: [{ k: s }] };
        const direct = kptEntry(v, indent, newLayoutMemo());
        if (direct !== undefined) expect(direct).toBe(seqEntries([v], indent)[0]);
      }),
      { seed, numRuns: 2000 },
    );
  });

  test('every new item as fn writes it (the direct layout, else the round trip) reads back as its value', () => {
    fc.assert(
      fc.property(item, fc.constantFrom('', '  ', '   '), (v, indent) => {
        const text = kptEntry(v, indent, newLayoutMemo()) ?? seqEntries([v], indent)[0];
        // The same data, as the one YAML writer writes it (-0, .inf and keys left out included).
        expect({ text, back: dumpYaml((jsyaml.load(text) as unknown[])[0]) }).toEqual({ text, back: dumpYaml(v) });
      }),
      { seed, numRuns: 1500 },
    );
    const lossy = { k: ' a\n\n ', next: 1 };
    expect((jsyaml.load(seqEntries([lossy], '')[0]) as unknown[])[0]).toEqual(lossy);
  });

  test('kptMarkedEntry writes what kptEntry writes of the copy withMarks makes, and answers where it does', () => {
    // Own annotations (none, undefined, a map with a mark's name among them, not a map) anywhere in metadata.
    const annotationKey = fc.oneof(word, fc.constantFrom(GENERATED_ANNOTATION, PATH_ANNOTATION));
    const own = fc.oneof(fc.dictionary(annotationKey, value, { maxKeys: 3 }), fc.constant(undefined), scalar);
    const metadata = fc
      .tuple(fc.dictionary(word, value, { maxKeys: 3 }), fc.option(own, { nil: null }), fc.boolean())
      .map(([m, a, first]) => (a === null ? m : first ? { annotations: a, ...m } : { ...m, annotations: a }));
    const object = fc
      .tuple(fc.dictionary(word, value, { maxKeys: 4 }), metadata, fc.boolean())
      .map(([o, metadata, first]) => (first ? { metadata, ...o } : { ...o, metadata }) as unknown as KObject);
    const marks = fc.oneof(
      fc.constant(generatedMarks()),
      fc.tuple(word, fc.nat(3)).map(([p, i]) => generatedMarks(p, i)),
    );
    fc.assert(
      fc.property(object, marks, fc.constantFrom('', '  '), (o, m, indent) => {
        const memo = newLayoutMemo();
        expect(kptMarkedEntry(o, m, indent, memo)).toBe(kptEntry(withMarks(o, m), indent, memo));
      }),
      { seed, numRuns: 2000 },
    );
  });

  test('a key or a value that could read as a document marker is left to the round trip, at any depth (FC_SEED=1612202508)', () => {
    const memo = newLayoutMemo();
    for (const marker of ['...', '---', '...x', '--- a', '%YAML']) {
      const items: unknown[] = [
        { [marker]: 0, yes: {} },
        { a: { [marker]: 'v' } },
        { a: [{ [marker]: 1 }] },
        { a: marker },
        { a: { b: marker } },
        { a: [marker] },
      ];
      for (const v of items) {
        expect({ v, text: kptEntry(v, '', memo) }).toEqual({ v, text: undefined });
        expect({ v, text: seqEntries([v], '')[0] }).toEqual({ v, text: expect.any(String) });
      }
    }
  });

  test('one memo over many items gives each its own text', () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 6 }), (vs) => {
        const memo = newLayoutMemo();
        vs.forEach((v, i) => {
          const direct = kptEntry(v, '', memo);
          if (direct !== undefined) expect({ i, text: direct }).toEqual({ i, text: seqEntries([v], '')[0] });
        });
      }),
      { seed, numRuns: 300 },
    );
  });

  test('the shapes a render writes are covered: nested maps, compact sequences, quoted and block scalars', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cozystack-values', namespace: 'tenant-a', labels: { 'a.io/x': '' } },
      stringData: { 'values.yaml': '_namespace:\n  etcd: tenant-root\n  host: a.example.org\n' },
      data: { k: 'MTIz' },
    };
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'r', namespace: 'tenant-a', annotations: { 'x/y': 'true', n: '0777' } },
      subjects: [{ kind: 'Group', name: 'cozy:tenant-a:dashboard', apiGroup: 'rbac.authorization.k8s.io' }],
      rules: [{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['*'] }, {}],
      empty: { list: [], map: {} },
      spec: { replicas: 2, ratio: 1.5, on: true, none: null },
    };
    for (const [name, obj] of Object.entries({ secret, role }))
      for (const indent of ['', '  ']) {
        const direct = kptEntry(obj, indent, newLayoutMemo());
        expect({ name, indent, text: direct }).toEqual({ name, indent, text: seqEntries([obj], indent)[0] });
      }
  });
});
