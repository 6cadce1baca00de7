/**
 * Forged redaction annotations in `diff`'s change (docs/decisions.md §C8): for generated Secrets,
 * the state holding the data or cozy-gw's redacted print of it (with its digest), and a change
 * that claims the redaction annotations (the state's digest or another, the keys listed or not)
 * while holding `data: {}`, the state's data, other data or `stringData` of its own: the change
 * differs exactly where the data it holds differs from the state's, never by what it claims; each
 * such Secret is warned about by name; no value of either side is in the result. FC_SEED replays
 * a run; CLAIM_RUNS sets how many.
 */
import fc from 'fast-check';
import { diff } from '../../src/diff/diff';
import type { KObject } from '../../src/k8s/model';
import { DIGEST_ANNOTATION, REDACTED_ANNOTATION, dataDigest, redactSecret } from '../../src/k8s/secretRedaction';

const NOW = '2026-01-01T00:00:00Z';
const RUNS = Number(process.env.CLAIM_RUNS ?? 200);
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

const arbData = fc.dictionary(
  fc.constantFrom('tls.crt', 'tls.key', 'ca.crt', 'token'),
  fc.stringMatching(/^VAL-[a-z0-9]{4,12}$/).map((v) => Buffer.from(v).toString('base64')),
  { minKeys: 1, maxKeys: 3 },
);

const secret = (extra: Record<string, unknown>, annotations?: Record<string, string>): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'example-tls', namespace: 'tenant-root', ...(annotations ? { annotations } : {}) },
    type: 'Opaque',
    ...extra,
  }) as KObject;

/** The data a Secret holds as the API server stores it. */
const stored = (s: KObject): Record<string, string> => {
  const out: Record<string, string> = { ...((s.data as Record<string, string> | undefined) ?? {}) };
  for (const [k, v] of Object.entries((s.stringData as Record<string, string> | undefined) ?? {}))
    out[k] = Buffer.from(v).toString('base64');
  return out;
};
const sameData = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

describe('a change claiming cozy-gw redaction annotations is compared by the data it holds', () => {
  it('changed exactly where its data differs from the state’s, warned about by name, no value shown', () => {
    fc.assert(
      fc.property(
        arbData,
        fc.boolean(),
        fc.constantFrom('empty', 'same', 'other', 'stringData'),
        arbData,
        fc.constantFrom('state digest', 'other digest', 'no digest'),
        fc.boolean(),
        (data, redactedState, holds, other, claim, listKeys) => {
          const real = secret({ data });
          const state = redactedState ? redactSecret(real) : real;
          const body =
            holds === 'empty'
              ? { data: {} }
              : holds === 'same'
                ? { data }
                : holds === 'other'
                  ? { data: other }
                  : { stringData: Object.fromEntries(Object.keys(other).map((k) => [k, `STR-${k}`])) };
          const annotations: Record<string, string> = {
            [REDACTED_ANNOTATION]: listKeys ? Object.keys(data).sort().join(',') : '(none)',
          };
          if (claim !== 'no digest')
            annotations[DIGEST_ANNOTATION] = claim === 'state digest' ? dataDigest(real)! : `sha256:${'0'.repeat(64)}`;
          const change = secret(body, annotations);
          const d = diff({ state: [state], objects: [change], valuesFiles: [] }, { now: NOW });
          const differs = !sameData(stored(change), data);
          expect({ holds, claim, changed: d.changed.length }).toEqual({ holds, claim, changed: differs ? 1 : 0 });
          expect(d.findings.filter((f) => f.rule === 'diff.redaction-claim').map((f) => f.object?.name)).toEqual([
            'example-tls',
          ]);
          const shown = JSON.stringify([d.changed, d.created, d.deleted, d.before]);
          for (const v of [...Object.values(data), ...Object.values(other), 'STR-']) expect(shown).not.toContain(v);
        },
      ),
      { numRuns: RUNS, seed },
    );
  });
});
