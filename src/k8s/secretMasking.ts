/**
 * Secrets in a comparison (docs/commands/diff.md: "Secret key material never shown"): two
 * sides compared as the API server stores them (`stringData` folded into `data`), then shown
 * with every value masked, as kubectl diff masks them: `***`, and `*** (before)` / `*** (after)`
 * where the two sides differ; so is every annotation that carries key material (a last-applied
 * copy, an annotation repeating a value: keyMaterialAnnotations in secretRedaction.ts). When either
 * side's data is unknown (a Secret cozy-gw printed without its data, secretRedaction.ts) only the
 * redacted forms are compared. Pure.
 */
import { deepEqual, isObject, type KObject } from './model';
import { compareDigests, digestLike, parseDigest } from './secretDigest';
import {
  DIGEST_ANNOTATION,
  REDACTED_ANNOTATION,
  dataDigest,
  isRedacted,
  isSecret,
  isValuesChannel,
  keyMaterialAnnotations,
  redactSecret,
} from './secretRedaction';

/** A Secret as the API server stores it: stringData folded into data (base64). */
export function storedSecret(o: KObject): KObject {
  if (!isSecret(o) || !isObject(o.stringData)) return o;
  const data: Record<string, unknown> = { ...(isObject(o.data) ? o.data : {}) };
  for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  const out: KObject = { ...o, data };
  delete out.stringData;
  return out;
}

/**
 * A Secret side as shown: every value of `data` masked (`*** (before)` / `*** (after)` where the
 * sides differ), and so is every annotation that carries key material on either side (`copies`).
 * Whatever else `data` or `stringData` hold (a malformed Secret of a snapshot: a string, a list)
 * is shown as `***` whole: no input shape gets key material printed.
 */
function maskData(o: KObject, other: KObject | undefined, side: 'before' | 'after', copies: string[]): KObject {
  if (!isSecret(o)) return o;
  const out: KObject = { ...o };
  const mask = (mine: Record<string, unknown>, theirs: Record<string, unknown> | undefined, k: string) =>
    theirs && k in theirs && theirs[k] !== mine[k] ? `*** (${side})` : '***';
  if (isObject(o.data)) {
    const theirs = other && isObject(other.data) ? other.data : undefined;
    const data: Record<string, string> = {};
    for (const k of Object.keys(o.data)) data[k] = mask(o.data, theirs, k);
    out.data = data;
  } else if (o.data !== undefined && o.data !== null) out.data = '***';
  if (o.stringData !== undefined && o.stringData !== null) out.stringData = '***';
  const annotations = o.metadata.annotations;
  if (annotations && copies.some((k) => k in annotations)) {
    const theirs = other?.metadata.annotations;
    const shown: Record<string, string> = { ...annotations };
    for (const k of copies) if (k in annotations) shown[k] = mask(annotations, theirs, k);
    out.metadata = { ...o.metadata, annotations: shown };
  }
  return out;
}

/** How the data of two Secret sides compares where either side's data was left out. */
export type HiddenData = 'same' | 'changed' | 'unknown';

/**
 * Two Secret sides, one or both printed without their data, compared by digest
 * (src/k8s/secretDigest.ts): the side that holds its data digested as the other's digest was
 * made; two digests compared where they were made alike; `unknown` where a side has no digest
 * cozy-gw reads, or the two were not made alike.
 */
function hiddenData(b: KObject, a: KObject): HiddenData {
  const digestOf = (o: KObject) => parseDigest(dataDigest(o));
  if (isRedacted(b) && isRedacted(a)) {
    const [db, da] = [digestOf(b), digestOf(a)];
    return db && da ? compareDigests(db, da) : 'unknown';
  }
  const [hidden, shown] = isRedacted(b) ? [b, a] : [a, b];
  const d = digestOf(hidden);
  const mine = d && digestLike(shown, d);
  return mine === undefined ? 'unknown' : mine === d!.hash ? 'same' : 'changed';
}

/**
 * A side whose data, or the other side's, was left out, as shown: each key it holds (a redaction
 * annotation names them) as `***`; on the after side `*** (changed)` where the digests differ, or
 * `*** (unknown)` where there is nothing to compare by, so the unified diff shows the line; the
 * digest itself is not shown.
 */
function maskHidden(o: KObject, hidden: HiddenData, copies: string[], side: 'before' | 'after'): KObject {
  const listed = o.metadata.annotations?.[REDACTED_ANNOTATION];
  const keys = isRedacted(o)
    ? typeof listed === 'string' && listed !== '(none)'
      ? listed.split(',')
      : []
    : isObject(o.data)
      ? Object.keys(o.data)
      : [];
  const mark =
    side === 'before' || hidden === 'same' ? '***' : hidden === 'changed' ? '*** (changed)' : '*** (unknown)';
  const out: KObject = { ...o, data: Object.fromEntries(keys.map((k) => [k, mark])) };
  delete out.stringData;
  const annotations: Record<string, string> = { ...(o.metadata.annotations ?? {}) };
  delete annotations[DIGEST_ANNOTATION];
  for (const k of copies) if (k in annotations) annotations[k] = '***';
  out.metadata = { ...o.metadata, annotations };
  if (!Object.keys(annotations).length) delete out.metadata.annotations;
  return out;
}

/** A Secret printed without its data, without its digest annotation. */
function withoutDigest(o: KObject): KObject {
  const annotations = o.metadata.annotations;
  if (!annotations || !(DIGEST_ANNOTATION in annotations)) return o;
  const rest = { ...annotations };
  delete rest[DIGEST_ANNOTATION];
  return { ...o, metadata: { ...o.metadata, annotations: rest } };
}

/** A values channel Secret as shown: whole, its values as text (stringData), as every output writes it. */
function readable(o: KObject): KObject {
  if (!isObject(o.data)) return o;
  const stringData: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.data)) stringData[k] = Buffer.from(String(v), 'base64').toString('utf8');
  const out: KObject = { ...o, stringData };
  delete out.data;
  return out;
}

/**
 * The two sides of a Secret as compared and shown (either undefined for a create or a delete).
 * `hidden` says, where either side's data was left out, whether its digest tells the data apart:
 * `unknown` when a side has no digest (a state printed before digests were kept); then `same` is
 * false, for a gate must not call data it cannot see unchanged.
 */
export function secretSides(
  before: KObject | undefined,
  after: KObject | undefined,
): { before?: KObject; after?: KObject; same: boolean; hidden?: HiddenData } {
  let b = before && storedSecret(before);
  let a = after && storedSecret(after);
  if ((b && isValuesChannel(b)) || (a && isValuesChannel(a))) {
    const same = b !== undefined && a !== undefined && deepEqual(b, a);
    if ((!b || isValuesChannel(b)) && (!a || isValuesChannel(a)))
      return { before: b && readable(b), after: a && readable(a), same };
  }
  if ((b && isRedacted(b)) || (a && isRedacted(a))) {
    const hidden: HiddenData | undefined =
      b === undefined || a === undefined ? undefined : before === after ? 'same' : hiddenData(b, a);
    // Printed without data and without digest: the digests were compared above.
    b = b && redactSecret(b, false);
    a = a && redactSecret(a, false);
    const both = b !== undefined && a !== undefined;
    const same = both && hidden === 'same' && deepEqual(withoutDigest(b!), withoutDigest(a!));
    const copies = [...new Set([...(b ? keyMaterialAnnotations(b) : []), ...(a ? keyMaterialAnnotations(a) : [])])];
    return {
      before: b && maskHidden(b, hidden ?? 'same', copies, 'before'),
      after: a && maskHidden(a, hidden ?? 'same', copies, 'after'),
      same,
      ...(hidden ? { hidden } : {}),
    };
  }
  const same = b !== undefined && a !== undefined && deepEqual(b, a);
  // An annotation that carries key material on one side is masked on both.
  const copies = [...new Set([...(b ? keyMaterialAnnotations(b) : []), ...(a ? keyMaterialAnnotations(a) : [])])];
  return { before: b && maskData(b, a, 'before', copies), after: a && maskData(a, b, 'after', copies), same };
}

/** One object as shown: a Secret masked whole (a values channel whole), anything else as it is. */
export function masked(o: KObject): KObject {
  return isSecret(o) ? secretSides(o, o).before! : o;
}

/**
 * A Secret as admission judges it where the policies are not the platform's own (docs/security.md
 * "Admission never sees key material"): its keys kept (a redacted one's from its annotation), every
 * value of `data` and `stringData` `***`, any other shape of them `***` whole, every annotation that
 * carries key material `***`, and cozy-gw's own redaction marks dropped (the cluster's object has
 * none). A values channel is configuration every output writes whole: it is judged as it is; any
 * other kind too. No expression over the result can reach a value it did not hold.
 */
export function judgedSecret(o: KObject): KObject {
  if (!isSecret(o) || isValuesChannel(o)) return o;
  const copies = keyMaterialAnnotations(o);
  const listed = o.metadata.annotations?.[REDACTED_ANNOTATION];
  const out: KObject = { ...o };
  if (isRedacted(o))
    out.data = Object.fromEntries(
      (typeof listed === 'string' && listed !== '(none)' ? listed.split(',') : []).map((k) => [k, '***']),
    );
  else if (isObject(o.data)) out.data = Object.fromEntries(Object.keys(o.data).map((k) => [k, '***']));
  else if (o.data !== undefined && o.data !== null) out.data = '***';
  if (isObject(o.stringData)) out.stringData = Object.fromEntries(Object.keys(o.stringData).map((k) => [k, '***']));
  else if (o.stringData !== undefined && o.stringData !== null) out.stringData = '***';
  const annotations = o.metadata.annotations;
  if (isObject(annotations)) {
    const shown: Record<string, unknown> = { ...annotations };
    delete shown[REDACTED_ANNOTATION];
    delete shown[DIGEST_ANNOTATION];
    for (const k of copies) if (k in shown) shown[k] = '***';
    out.metadata = { ...o.metadata, annotations: shown as Record<string, string> };
  }
  return out;
}
