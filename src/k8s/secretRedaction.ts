/**
 * Secret key material in output (docs/decisions.md §9; docs/commands/reconcile.md: "Secret key material is
 * never printed unless --include-secret-data is given").
 *
 * Without the flag every Secret in the output is printed with its metadata and type, its
 * `stringData` dropped and its `data` emptied (`data: {}`: no key material, while the object still
 * reads as a Secret that holds data), plus the annotation REDACTED_ANNOTATION naming the keys that
 * were left out; annotations that carry key material (a `last-applied-configuration` copy of the
 * object, any annotation repeating a value) are dropped. A Secret carrying that annotation read
 * back as input has unknown data: the wildcard controller never copies or compares bytes it does
 * not have (src/controller/wildcardSecrets.ts).
 * Pure: objects in, objects out.
 */
import { clone, isObject, type KObject } from './model';
import { writeDigest } from './secretDigest';

export const REDACTED_ANNOTATION = 'cozy-gw.cozystack.io/secret-data-omitted';
/**
 * The digest of the data left out (docs/decisions.md §C8: "Hidden data is compared, never trusted
 * blind"): a salted scrypt over the data as the API server stores it (src/k8s/secretDigest.ts), so
 * that `diff` can tell changed data from unchanged without holding it, and nobody can find the
 * data from it.
 */
export const DIGEST_ANNOTATION = 'cozy-gw.cozystack.io/secret-data-digest';

/**
 * The digest of a Secret's data as the API server stores it (stringData folded into data), or
 * undefined when its data is not a map of strings (nothing to compare it by). A Secret cozy-gw
 * printed without its data has the digest it was printed with, if any.
 */
export function dataDigest(o: KObject): string | undefined {
  if (isRedacted(o)) {
    const d = o.metadata.annotations?.[DIGEST_ANNOTATION];
    return typeof d === 'string' && d ? d : undefined;
  }
  return writeDigest(o);
}

export function isSecret(o: KObject): boolean {
  return o.kind === 'Secret' && o.apiVersion === 'v1';
}

/**
 * The name of the values channel Secrets (docs/behaviour.md §6): the platform's in cozy-system and
 * each tenant's rendered values. The k8s layer cannot read src/platform/tenancy.ts, which holds it too.
 */
const VALUES_CHANNEL_NAME = 'cozystack-values';

/**
 * A `cozystack-values` Secret as the charts write it: type Opaque (or none given) holding
 * `values.yaml` and nothing else. It is configuration, not key material (the certificate and key
 * never travel on the values channel, docs/behaviour.md §6), so every output writes it whole
 * (docs/decisions.md §C8: "cozystack-values is configuration, not key material:
 * every output writes it whole"); a Secret that merely carries the name (a `kubernetes.io/tls`
 * one, or one holding other keys) is redacted like any other.
 */
export function isValuesChannel(s: KObject): boolean {
  if (!isSecret(s) || s.metadata.name !== VALUES_CHANNEL_NAME) return false;
  if (s.type !== undefined && s.type !== 'Opaque') return false;
  if (isRedacted(s)) return false;
  // Each of data and stringData absent, or a map holding `values.yaml` as text and nothing else:
  // any other shape (a string, a list, other keys) is no values channel and is redacted.
  const valuesOnly = (m: unknown) =>
    m === undefined ||
    (isObject(m) && Object.entries(m).every(([k, v]) => k === 'values.yaml' && typeof v === 'string'));
  return valuesOnly(s.data) && valuesOnly(s.stringData) && secretKeys(s).length > 0;
}

/** Whether the object is a Secret printed by cozy-gw without its data. */
export function isRedacted(o: KObject): boolean {
  return isSecret(o) && o.metadata.annotations?.[REDACTED_ANNOTATION] !== undefined;
}

/** The keys a Secret holds, data and stringData together, sorted. */
export function secretKeys(o: KObject): string[] {
  const keys = new Set<string>();
  if (isObject(o.data)) for (const k of Object.keys(o.data)) keys.add(k);
  if (isObject(o.stringData)) for (const k of Object.keys(o.stringData)) keys.add(k);
  return [...keys].sort();
}

/** Whether a Secret holds no key material at all: no `stringData`, and `data` absent or empty. */
function holdsNothing(o: KObject): boolean {
  return o.stringData === undefined && (o.data === undefined || (isObject(o.data) && Object.keys(o.data).length === 0));
}

/**
 * Annotations that hold a copy of the whole object they sit on, a Secret's data included: kubectl's
 * client-side apply record, kapp's original, Rancher's applied object set.
 */
export const CONTENT_COPY_ANNOTATIONS: readonly string[] = [
  'kubectl.kubernetes.io/last-applied-configuration',
  'kapp.k14s.io/original',
  'objectset.rio.cattle.io/applied',
];

/** A value shorter than this is too common to tell a copy from a coincidence (`true`, `1`). */
const MIN_COPIED = 4;

/** The forms a Secret's values take inside an annotation: as stored (base64), decoded, and JSON-escaped. */
function valueForms(o: KObject): string[] {
  const forms = new Set<string>();
  const add = (text: string) => {
    if (text.length < MIN_COPIED) return;
    forms.add(text);
    forms.add(JSON.stringify(text).slice(1, -1));
  };
  if (isObject(o.data))
    for (const v of Object.values(o.data))
      if (typeof v === 'string') {
        add(v);
        add(Buffer.from(v, 'base64').toString('utf8'));
      }
  if (isObject(o.stringData))
    for (const v of Object.values(o.stringData))
      if (typeof v === 'string') {
        add(v);
        add(Buffer.from(v, 'utf8').toString('base64'));
      }
  return [...forms];
}

/**
 * The annotations of a Secret that carry key material (docs/decisions.md §9): the ones that copy the whole
 * object (CONTENT_COPY_ANNOTATIONS), and any other whose value holds one of the Secret's values
 * (a `kubernetes.io/change-cause` recording `--from-literal=key=value`, a tool's own copy). The one
 * rule every output applies: redacted output drops them, diff masks them as it masks data. Sorted.
 */
export function keyMaterialAnnotations(o: KObject): string[] {
  const annotations = o.metadata.annotations;
  if (!isSecret(o) || !isObject(annotations)) return [];
  const forms = valueForms(o);
  const out: string[] = [];
  for (const [k, v] of Object.entries(annotations)) {
    if (k === REDACTED_ANNOTATION || k === DIGEST_ANNOTATION) continue;
    if (CONTENT_COPY_ANNOTATIONS.includes(k) || (typeof v === 'string' && forms.some((f) => v.includes(f))))
      out.push(k);
  }
  return out.sort();
}

/** The Secret without the annotations that carry key material (keyMaterialAnnotations); itself when it has none. */
export function withoutKeyMaterialAnnotations(o: KObject): KObject {
  const copies = keyMaterialAnnotations(o);
  if (!copies.length) return o;
  const annotations: Record<string, string> = { ...(o.metadata.annotations ?? {}) };
  for (const k of copies) delete annotations[k];
  const metadata: KObject['metadata'] = { ...o.metadata, annotations };
  if (!Object.keys(annotations).length) delete metadata.annotations;
  return { ...o, metadata };
}

/**
 * A copy of a Secret without key material, annotated with the keys left out, and without the
 * annotations that carry key material (keyMaterialAnnotations). Other kinds are returned as they
 * are. The annotation is the tool's word, never the input's: a Secret that arrives carrying it
 * with data (a forged or hand-edited one) is redacted like any other, and only a Secret that
 * already holds nothing, in its data or its annotations, is returned as it is. `withDigest`
 * false: without the digest (a form compared and shown without it: src/k8s/secretMasking.ts).
 */
export function redactSecret(o: KObject, withDigest = true): KObject {
  if (!isSecret(o) || isValuesChannel(o)) return o;
  if (holdsNothing(o) && (isRedacted(o) || o.data === undefined) && !keyMaterialAnnotations(o).length) return o;
  const keys = secretKeys(o);
  const digest = withDigest ? dataDigest(o) : undefined;
  const out = clone(withoutKeyMaterialAnnotations(o));
  delete out.stringData;
  out.data = {};
  const already = out.metadata.annotations?.[REDACTED_ANNOTATION];
  const listed = keys.length ? keys.join(',') : typeof already === 'string' && already ? already : '(none)';
  const annotations: Record<string, string> = { ...(out.metadata.annotations ?? {}), [REDACTED_ANNOTATION]: listed };
  if (digest) annotations[DIGEST_ANNOTATION] = digest;
  else delete annotations[DIGEST_ANNOTATION];
  out.metadata.annotations = annotations;
  return out;
}

export interface RedactionResult {
  objects: KObject[];
  /** How many Secrets lost their data (the CLI says so on stderr). */
  redacted: number;
}

/** Apply the rule to a list of output objects (unless `include`); order is kept. */
export function redactSecrets(objs: KObject[], include: boolean): RedactionResult {
  if (include) return { objects: objs, redacted: 0 };
  let redacted = 0;
  const objects = objs.map((o) => {
    const r = redactSecret(o);
    if (r !== o) redacted++;
    return r;
  });
  return { objects, redacted };
}

/** The line the CLI prints on stderr when it left data out. */
export function redactionNotice(n: number): string {
  return `note: data of ${n} Secret${n === 1 ? '' : 's'} left out of the output (annotation ${REDACTED_ANNOTATION}); pass --include-secret-data to print key material`;
}
