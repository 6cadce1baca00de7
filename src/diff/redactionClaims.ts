/**
 * Redaction markers are cozy-gw's output, never a fact of the change (docs/decisions.md §C8): a
 * Secret cozy-gw printed without its data carries annotations saying so and a digest of what it
 * left out (src/k8s/secretRedaction.ts), which `diff` reads in the state. A Secret in the change
 * (`-f`) that carries them claims data it does not hold: a forged digest would make `stringData`
 * of its own, or `data: {}`, compare as the state's data. So in the change they are dropped, with
 * a warning naming the Secret, and the Secret is compared by what it really carries. Pure.
 */
import { warning, type Finding } from '../k8s/diagnostics';
import { refOf, type KObject } from '../k8s/model';
import { DIGEST_ANNOTATION, isSecret, REDACTED_ANNOTATION } from '../k8s/secretRedaction';

const MARKS = [REDACTED_ANNOTATION, DIGEST_ANNOTATION];

/** The given objects with every Secret's redaction annotations dropped, and a warning for each Secret that had one. */
export function withoutRedactionClaims(objects: readonly KObject[]): { objects: KObject[]; findings: Finding[] } {
  const findings: Finding[] = [];
  const out = objects.map((o) => {
    const a = o.metadata.annotations;
    if (!isSecret(o) || !a) return o;
    const claimed = MARKS.filter((k) => Object.prototype.hasOwnProperty.call(a, k));
    if (!claimed.length) return o;
    const annotations = { ...a };
    for (const k of claimed) delete annotations[k];
    const metadata: KObject['metadata'] = { ...o.metadata, annotations };
    if (!Object.keys(annotations).length) delete metadata.annotations;
    findings.push(
      warning(
        `the change's Secret carries ${claimed.join(' and ')}, which only cozy-gw's output writes: ignored, and the Secret compared by the data it holds`,
        {
          rule: 'diff.redaction-claim',
          object: refOf(o),
          field: 'metadata.annotations',
          instance: o,
          hint: 'give the Secret as it is to be applied (its data, or none), not as snapshot or reconcile printed it',
        },
      ),
    );
    return { ...o, metadata };
  });
  return { objects: out, findings };
}
