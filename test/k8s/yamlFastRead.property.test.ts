/**
 * The fast YAML reader never disagrees with js-yaml (src/k8s/yamlFastRead.ts): on generated data
 * written by cozy-gw's writer and by js-yaml in several layouts, and on those texts with random
 * edits (indicators, comments, tabs, indentation, markers spliced in), wherever it answers its
 * documents are js-yaml's, and wherever js-yaml refuses a text it does not answer. What cozy-gw
 * writes it always answers. Seed: FC_SEED replays a run (fast-check prints seed and path).
 */
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { loadAllFast } from '../../src/k8s/yamlFastRead';
import { dumpYaml, DUMP_OPTIONS } from '../../src/k8s/yaml';
import { jsYamlAll, sameDocs } from '../helpers/yamlOracle';

const RUNS = Number(process.env.FC_RUNS ?? 400);
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const params = { numRuns: RUNS, seed };

/** Words a YAML reader may take for something else, and characters that end or start structures. */
const TRICKY = [
  '',
  ' ',
  'yes',
  'no',
  'on',
  'off',
  'true',
  'False',
  'null',
  '~',
  'Null',
  '0',
  '-0',
  '0777',
  '0x1F',
  '0o17',
  '1e3',
  '1_000',
  '.inf',
  '-.Inf',
  '.nan',
  '1.5',
  '+1',
  '-',
  '- a',
  '-a',
  ':',
  'a:',
  'a: b',
  'a:b',
  '#',
  'a #b',
  'a#b',
  "'",
  '"',
  "it's",
  'a "q"',
  '|',
  '>',
  '&x',
  '*x',
  '!t',
  '%',
  '@',
  '`',
  '?',
  '? a',
  '[',
  ']',
  '{}',
  '[]',
  ',',
  'a,b',
  '---',
  '...',
  '\\',
  '\\n',
  'é',
  '日本',
  '😀',
  ' lead',
  'trail ',
  'a\nb',
  'a\n',
  '\n',
  'a\n\nb\n',
  ' a\n\n ',
  'line\n  indented\n',
  '\t',
  'a\tb',
  'x'.repeat(200),
  '<<',
  '__proto__x',
  '2026-01-01',
];

const str = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const key = fc.oneof(fc.constantFrom(...TRICKY.filter((k) => k !== '__proto__')), fc.string({ maxLength: 8 }));
const scalar = fc.oneof(
  str,
  fc.integer(),
  fc.double({ noDefaultInfinity: false }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(0, -0, 1.5, 1e21, Infinity, -Infinity, NaN),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 5 }),
  ),
})).v;
const doc = fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 });

/** One document written the ways tools write YAML. */
const layouts: ((v: unknown) => string)[] = [
  (v) => dumpYaml(v),
  (v) => jsyaml.dump(v, { ...DUMP_OPTIONS }),
  (v) => jsyaml.dump(v, { ...DUMP_OPTIONS, noArrayIndent: true }),
  (v) => jsyaml.dump(v, { ...DUMP_OPTIONS, indent: 4 }),
  (v) => jsyaml.dump(v, { ...DUMP_OPTIONS, quotingType: "'", forceQuotes: true }),
  (v) => jsyaml.dump(v, { lineWidth: 20 }),
  (v) => jsyaml.dump(v, { flowLevel: 2 }),
];
const stream = fc
  .array(fc.tuple(doc, fc.nat(layouts.length - 1)), { minLength: 1, maxLength: 3 })
  .map((ds) => ds.map(([d, l]) => layouts[l](d)).join('---\n'));

/** Snippets spliced in by the edits. */
const SNIPPETS = [
  '\n',
  ' ',
  '  ',
  '- ',
  '-',
  ': ',
  ':',
  ' #',
  '# c\n',
  '\t',
  '|',
  '|-',
  '>',
  "'",
  '"',
  '---\n',
  '...\n',
  '[',
  '{',
  '&a ',
  '*a',
  '!',
  '\r',
  '\\',
  '~',
  '\n\n',
  '  - x\n',
  'k: v\n',
];
const edit = fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(3), fc.constantFrom(...SNIPPETS));

function applyEdits(text: string, edits: [number, number, string][]): string {
  let t = text;
  for (const [at, del, ins] of edits) {
    const i = Math.floor(at * t.length);
    t = t.slice(0, i) + ins + t.slice(i + del);
  }
  return t;
}

/** The fast reader's answer held to js-yaml's: the same documents, or no answer where js-yaml refuses. */
function agrees(text: string): boolean {
  const fast = loadAllFast(text);
  if (fast === undefined) return true;
  const oracle = jsYamlAll(text);
  return 'docs' in oracle && sameDocs(fast, oracle.docs);
}

describe('the fast YAML reader against js-yaml', () => {
  it('agrees on generated streams in every layout', () => {
    fc.assert(
      fc.property(stream, (text) => agrees(text)),
      params,
    );
  });

  it('agrees on those streams edited at random', () => {
    fc.assert(
      fc.property(stream, fc.array(edit, { minLength: 1, maxLength: 4 }), (text, edits) =>
        agrees(applyEdits(text, edits)),
      ),
      params,
    );
  });

  it('answers for everything cozy-gw writes from JSON-like data', () => {
    // cozy-gw's writer lays out every document in the reader's subset, but for the block scalars
    // js-yaml writes with an indentation indicator (a string whose first line starts with a space).
    const jsonDoc = doc.filter((d) => {
      try {
        return 'docs' in jsYamlAll(dumpYaml(d));
      } catch {
        return false;
      }
    });
    fc.assert(
      fc.property(fc.array(jsonDoc, { minLength: 1, maxLength: 3 }), (ds) => {
        const text = ds.map((d) => dumpYaml(d)).join('---\n');
        if (/[|>]([-+]?[1-9]|[1-9][-+])$/m.test(text) || /^(---.|\.\.\.)/m.test(text)) return true;
        const fast = loadAllFast(text);
        const oracle = jsYamlAll(text);
        return fast !== undefined && 'docs' in oracle && sameDocs(fast, oracle.docs);
      }),
      params,
    );
  });
});
