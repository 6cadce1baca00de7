/**
 * Secret key material in output (docs/decisions.md §9; README "cozy-gw reconcile": "Secret key material is
 * never printed unless --include-secret-data is given").
 *
 * Without the flag every Secret in the output is printed with its metadata and type, its
 * `stringData` dropped and its `data` emptied (`data: {}`: no key material, while the object still
 * reads as a Secret that holds data), plus the annotation REDACTED_ANNOTATION naming the keys that
 * were left out. A Secret carrying that annotation read back as input has unknown data: the
 * wildcard controller never copies or compares bytes it does not have (src/controller/wildcardSecrets.ts).
 * Pure: objects in, objects out.
 */
import { clone, isObject, type KObject } from './model';

export const REDACTED_ANNOTATION = 'cozy-gw.cozystack.io/secret-data-omitted';

export function isSecret(o: KObject): boolean {
  return o.kind === 'Secret' && o.apiVersion === 'v1';
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
 * A copy of a Secret without key material, annotated with the keys left out. Other kinds are
 * returned as they are. The annotation is the tool's word, never the input's: a Secret that
 * arrives carrying it with data (a forged or hand-edited one) is redacted like any other, and
 * only a Secret that already holds nothing is returned as it is.
 */
export function redactSecret(o: KObject): KObject {
  if (!isSecret(o)) return o;
  if (holdsNothing(o) && (isRedacted(o) || o.data === undefined)) return o;
  const keys = secretKeys(o);
  const out = clone(o);
  delete out.stringData;
  out.data = {};
  const already = out.metadata.annotations?.[REDACTED_ANNOTATION];
  const listed = keys.length ? keys.join(',') : typeof already === 'string' && already ? already : '(none)';
  out.metadata.annotations = { ...(out.metadata.annotations ?? {}), [REDACTED_ANNOTATION]: listed };
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
