/**
 * The fast YAML reader (src/k8s/yamlFastRead.ts): where it answers, its documents are js-yaml's
 * (core schema), key order and -0 included; what it does not read is left to js-yaml. Fixed cases;
 * test/k8s/yamlFastRead.property.test.ts generates them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import { loadAllFast } from '../../src/k8s/yamlFastRead';
import { dumpYaml } from '../../src/k8s/yaml';
import { jsYamlAll, sameDocs } from '../helpers/yamlOracle';

/** Streams the fast reader must answer, each with js-yaml's documents. */
const ANSWERED: [string, string][] = [
  ['empty text', ''],
  ['one mapping', 'a: 1\nb: x\n'],
  ['without a final newline', 'a: 1'],
  ['nested mappings', 'a:\n  b:\n    c: d\n  e: f\ng: h\n'],
  ['a sequence at its key column', 'a:\n- x\n- y\nb: 1\n'],
  ['an indented sequence', 'a:\n  - x\n  - y\nb: 1\n'],
  ['mappings in a sequence', 'items:\n- a: 1\n  b:\n  - x\n  c: 2\n- d: 3\n'],
  ['a sequence of sequences', '- - a\n  - b\n- - c\n'],
  ['a dash alone, its item below', '-\n  a: 1\n- 2\n'],
  ['a key with nothing: null', 'a:\nb: 1\n'],
  ['a key with nothing at the end', 'a: 1\nb:\n'],
  ['documents', 'a: 1\n---\nb: 2\n'],
  ['a leading marker', '---\na: 1\n'],
  ['a trailing marker: a null document', 'a: 1\n---\n'],
  ['two markers', '---\n---\na: 1\n'],
  ['comments before the first marker', '# c\n---\na: 1\n'],
  ['a comment after a marker', 'a: 1\n---\n# c\n'],
  ['comments between entries', 'a:\n  # c\n  b: 1\n# d\nc: 2\n'],
  ['blank lines between entries', 'a:\n\n  b: 1\n\nc: 2\n'],
  [
    'core-schema scalars',
    'a: 1\nb: -2\nc: 0x1F\nd: 0o17\ne: 1.5\nf: .inf\ng: -.Inf\nh: .nan\ni: 1e3\nj: true\nk: False\nl: null\nm: ~\nn: -0\n',
  ],
  ['strings that are not numbers', 'a: 1_000\nb: 0777\nc: yes\nd: on\ne: 2026-01-01\nf: 1.2.3\ng: +x\n'],
  ['keys that resolve', '1.0: x\n~: y\ntrue: z\n0x10: w\n'],
  ['quoted scalars', `a: "x: y # z"\nb: 'it''s'\nc: ""\nd: ''\ne: "\\u00e9\\n\\t\\"\\\\\\/"\n`],
  ['YAML escapes', 'a: "\\x41\\_\\N\\L\\P\\e\\0\\a\\v\\ \\U0001F600\\u00e9"\n'],
  ['quoted keys', `"a b": 1\n'c: d': 2\n`],
  ['plain scalars with indicators inside', 'a: x:y\nb: a#b\nc: http://x/y?z=1&w\nd: x[y]{z},\ne: -x\n'],
  ['empty collections', 'a: []\nb: {}\n'],
  ['literal blocks', 'a: |\n  x\n   y\n\n  z\nb: |-\n  s\nc: |+\n  k\n\nd: 1\n'],
  ['empty literal blocks', 'a: |\nb: |+\n\nc: |-\n\n\nd: |+\n\n\n- x\n'.replace('- x\n', 'e: 1\n')],
  ['leading empty lines in a literal block', 'a: |\n\n\n  x\nb: |+\n\n  y\n\n'],
  ['a literal block in a sequence', '- |\n  x\n- y\n'],
  ['a literal block holding a comment and a marker', 'a: |\n  # not a comment\n  ---\nb: 1\n'],
  ['long text', `a: ${'x'.repeat(5000)}\n`],
];

/** Streams it leaves to js-yaml (answering would need more than it reads). */
const LEFT: [string, string][] = [
  ['blank lines alone', '\n\n'],
  ['a comment alone', '# c\n'],
  ['a flow sequence', 'a: [1, 2]\n'],
  ['a flow mapping', 'a: {b: 1}\n'],
  ['a folded block', 'a: >\n  x\n  y\n'],
  ['an indentation indicator', 'a: |2\n   x\n'],
  ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
  ['a tag', 'a: !!str 1\n'],
  ['a directive', '%YAML 1.2\n---\na: 1\n'],
  ['a comment after a value', 'a: 1 # c\n'],
  ['a scalar over two lines', 'a: x\n  y\n'],
  ['a tab', 'a:\tb\n'],
  ['carriage returns', 'a: 1\r\nb: 2\r\n'],
  ['a repeated key (js-yaml refuses it)', 'a: 1\na: 2\n'],
  ['__proto__', '__proto__: 1\n'],
  ['a merge key', '<<: 1\n'],
  ['an explicit key', '? a\n: 1\n'],
  ['a quoted scalar over two lines', 'a: "x\n  y"\n'],
  ['an unknown escape', 'a: "\\q"\n'],
  ['a short escape', 'a: "\\x4"\n'],
  ['a trailing space', 'a: x \n'],
  ['a line of spaces', 'a: 1\n  \nb: 2\n'],
  ['a document that is a scalar', 'hello\n'],
  ['an indented first line', '  a: 1\n'],
  ['a marker with content', '--- a: 1\n'],
  ['a document end', 'a: 1\n...\n'],
  ['a key that starts like a separator', '...: 1\n---x: 2\n'],
  ['a byte-order mark', '\ufeffa: 1\n'],
  ['bad indentation (js-yaml refuses it)', 'a:\n  b: 1\n c: 2\n'],
  ['a mapping entry after a scalar (js-yaml refuses it)', 'a: b: c\n'],
  ['a dash as a value (js-yaml refuses it)', 'a: -\n'],
  ['a literal block at the end without a newline', 'a: |\n  x'],
];

describe('the fast YAML reader', () => {
  it.each(ANSWERED)("answers with js-yaml's documents: %s", (_name, text) => {
    const fast = loadAllFast(text);
    const oracle = jsYamlAll(text);
    expect('docs' in oracle).toBe(true);
    expect(fast).toBeDefined();
    expect(sameDocs(fast!, (oracle as { docs: unknown[] }).docs)).toBe(true);
  });

  it.each(LEFT)('leaves it to js-yaml: %s', (_name, text) => {
    expect(loadAllFast(text)).toBeUndefined();
  });

  it('keeps -0 and key order as js-yaml does', () => {
    const text = 'b: -0.0\nc: -0\na: 1\n"2": x\n1: y\n';
    const fast = loadAllFast(text)!;
    const oracle = (jsYamlAll(text) as { docs: unknown[] }).docs;
    expect(Object.is((fast[0] as Record<string, unknown>).b, -0)).toBe(true);
    expect(Object.is((fast[0] as Record<string, unknown>).c, 0)).toBe(true);
    expect(Object.keys(fast[0] as object)).toEqual(Object.keys(oracle[0] as object));
    expect(sameDocs(fast, oracle)).toBe(true);
  });

  it('reads every YAML file of testdata as js-yaml does, and answers for every render and reconcile golden', () => {
    const root = path.join(__dirname, '..', '..', 'testdata');
    const files: string[] = [];
    const dirs = [root];
    while (dirs.length) {
      const d = dirs.pop()!;
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) dirs.push(p);
        else if (/\.ya?ml$/.test(e.name) || e.name === 'expected') files.push(p);
      }
    }
    const wrong: string[] = [];
    const unread: string[] = [];
    let answered = 0;
    let outputs = 0;
    for (const f of files.sort()) {
      const rel = path.relative(root, f);
      const text = fs.readFileSync(f, 'utf8');
      const fast = loadAllFast(text);
      // What cozy-gw writes as YAML (render and reconcile output) is all in the fast reader's subset.
      const toolOutput = /^golden\/(render|reconcile)\/[^/]+\/expected$/.test(rel) && /^(apiVersion|---)/.test(text);
      if (toolOutput) outputs++;
      if (fast === undefined) {
        if (toolOutput) unread.push(rel);
        continue;
      }
      answered++;
      const oracle = jsYamlAll(text);
      if (!('docs' in oracle) || !sameDocs(fast, oracle.docs)) wrong.push(rel);
    }
    expect(wrong).toEqual([]);
    expect(unread).toEqual([]);
    expect(outputs).toBeGreaterThan(10);
    expect(answered).toBeGreaterThan(80);
  });

  it('answers for what cozy-gw writes', () => {
    const value = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', labels: { 'app.kubernetes.io/name': 'yes' }, annotations: { a: '' } },
      data: {
        multi: 'line one\nline two\n',
        stripped: 'a\nb',
        num: '0777',
        spaced: ' lead',
        hash: 'a #b',
        colon: 'a: b',
      },
      list: [{ a: 1 }, [1, 2], [], {}, null, true, -0.5],
    };
    const text = `${dumpYaml(value)}---\n${dumpYaml(value)}`;
    const fast = loadAllFast(text);
    expect(fast).toBeDefined();
    expect(sameDocs(fast!, [value, value])).toBe(true);
  });
});

describe('plain scalars led by a letter', () => {
  it('are asked of js-yaml resolvers only when they are a null or bool word; every value is js-yaml one', () => {
    type Implicit = { tag: string; resolve: (s: string) => boolean };
    const types = (jsyaml.CORE_SCHEMA as unknown as { compiledImplicit: Implicit[] }).compiledImplicit;
    const asked: string[] = [];
    const spies = types.map((t) => {
      const resolve = t.resolve;
      return jest.spyOn(t, 'resolve').mockImplementation((s: string) => {
        asked.push(s);
        return resolve(s);
      });
    });
    const text = 'a: tenant-a\nb: namespace\nc: true\nd: nulls\ne: NULL\nf: falsey\ng: 12\n';
    let docs: unknown[] | undefined;
    try {
      docs = loadAllFast(text);
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expect({ docs }).toEqual(jsYamlAll(text));
    // tenant-a, namespace, nulls and falsey are strings at once; true, NULL and 12 are resolved.
    expect([...new Set(asked)]).toEqual(['true', 'NULL', '12']);
  });
});

describe('keys met again', () => {
  it('are read right past the keys kept per length, and past the longest length kept', () => {
    // 20 keys of one length (more than are kept), each met three times in different documents,
    // keys that share a prefix, and keys longer than those kept.
    const same = Array.from({ length: 20 }, (_, i) => `key-${String(i).padStart(3, '0')}`);
    const long = ['l'.repeat(70), `${'l'.repeat(69)}m`];
    const doc = (n: number) =>
      [
        ...same.map((k, i) => `${k}: v${(i + n) % 7}`),
        ...long.map((k) => `${k}: x`),
        'key-00: short',
        'key-0000: long',
      ].join('\n');
    const text = [0, 1, 2].map(doc).join('\n---\n') + '\n';
    const docs = loadAllFast(text);
    expect({ docs }).toEqual(jsYamlAll(text));
    expect(Object.keys((docs as Record<string, unknown>[])[2])).toEqual([...same, ...long, 'key-00', 'key-0000']);
  });
});
