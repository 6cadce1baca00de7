/**
 * Property: whatever layout the items that pass through are written in (block or flow
 * collections, any quoting, comments above, beside and between them, blank lines), `fn` writes
 * them back as the very bytes they came as, and running it again over its own output changes
 * nothing. Seed: FC_SEED replays a run (fast-check prints the seed and path on failure).
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { processResourceListText } from '../../src/protocols/krm';

const OPTS = { defaultNow: '2026-01-01T00:00:00Z' };
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

const scalar = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('yes', 'on', '0x1F', '1e3', '012', '~', 'a: b', '# not a comment'),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.stringMatching(/^[a-z][a-zA-Z0-9.]{0,6}$/), tie('v'), { maxKeys: 3 }),
  ),
})).v;
const comment = fc.stringMatching(/^[ a-zA-Z0-9:.,-]{0,20}$/).map((s) => `# ${s}`.trimEnd());

const widget = fc.record({
  spec: value,
  head: fc.option(comment, { nil: undefined }),
  side: fc.option(comment, { nil: undefined }),
  flowLevel: fc.constantFrom(0, 1, 2, 9),
  blank: fc.boolean(),
  quote: fc.constantFrom<'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE'>('PLAIN', 'QUOTE_SINGLE', 'QUOTE_DOUBLE'),
});

function itemText(
  w: {
    spec: unknown;
    head?: string;
    side?: string;
    flowLevel: number;
    blank: boolean;
    quote: 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE';
  },
  i: number,
): string {
  const obj = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: {
      name: `w${i}`,
      annotations: { 'internal.config.kubernetes.io/path': 'w.yaml', 'internal.config.kubernetes.io/index': String(i) },
    },
    spec: w.spec,
  };
  const body = stringify(obj, {
    defaultStringType: w.quote,
    lineWidth: 0,
    indentSeq: false,
    collectionStyle: w.flowLevel === 9 ? 'flow' : 'any',
  }).replace(/\n$/, '');
  const lines = body.split('\n');
  if (w.side) lines[0] = `${lines[0]}   ${w.side}`;
  const head = w.head ? `- ${w.head}\n  ` : '- ';
  return `${w.blank ? '\n' : ''}${head}${lines.join('\n  ')}\n`;
}

describe('fn text round-trip', () => {
  it('property: pass-through items come back byte for byte, and a second run is a fixed point', () => {
    fc.assert(
      fc.property(fc.array(widget, { minLength: 1, maxLength: 4 }), (ws) => {
        const items = ws.map(itemText).join('');
        const text = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: f}\n  data: {publishing.host: example.org}\n`;
        const first = processResourceListText(text, OPTS);
        expect(first.exitCode).toBe(0);
        expect(
          first.stdout.startsWith(`apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}- `),
        ).toBe(true);
        expect(processResourceListText(first.stdout, OPTS).stdout).toBe(first.stdout);
      }),
      { numRuns: 40, seed },
    );
  });
});
