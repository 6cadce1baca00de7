/**
 * The digest of a Secret's data that cozy-gw prints in its place (docs/security.md "Secret
 * digests"; docs/decisions.md §C8: "Hidden data is compared, never trusted blind"): enough for
 * `diff` to tell changed data from unchanged, never enough to find the data.
 *
 * `scrypt:<N>:<r>:<p>:<salt>:<hash>`: scrypt (a memory-hard, slow key derivation) over the data as
 * the API server stores it, salted per Secret, so that every guess of a value (`hunter2`) costs a
 * scrypt of its own, for that one Secret: no table made in advance serves, and a dictionary is
 * slow. The salt is derived from the Secret's identity (namespace, name, and the uid a live object
 * has): the same input gives the same output (cozy-gw's output is deterministic), a Secret of
 * another cluster (another uid) another salt. The digest carries its parameters and its salt:
 * `diff` digests the change's data with the state's to compare them, and two digests compare only
 * where they share a salt (else nothing tells, and the Secret is shown as changed).
 *
 * States written before (`sha256:<hex>`, unsalted: one dictionary lookup from the data) are still
 * read and compared; `diff` says they are guessable and how to write them again.
 * Pure (the scrypt results are memoised by what they are computed from).
 */
import { createHash, scryptSync } from 'node:crypto';
import { isObject, type KObject } from './model';

/** The scrypt cost of a digest: 4 MiB of memory and some milliseconds per guess. */
const N = 4096;
const R = 8;
const P = 1;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

/** A digest as written: its scheme and what it needs to digest other data the same way. */
export type ParsedDigest =
  | { scheme: 'scrypt'; n: number; r: number; p: number; salt: string; hash: string }
  | { scheme: 'sha256'; hash: string };

const SCRYPT = /^scrypt:(\d{1,7}):(\d{1,3}):(\d{1,3}):([0-9a-f]{32}):([0-9a-f]{64})$/;
const SHA256 = /^sha256:([0-9a-f]{64})$/;

/** A digest annotation's value read, or undefined when it is none cozy-gw writes (or has written). */
export function parseDigest(d: unknown): ParsedDigest | undefined {
  if (typeof d !== 'string') return undefined;
  const s = SCRYPT.exec(d);
  if (s) {
    const [n, r, p] = [Number(s[1]), Number(s[2]), Number(s[3])];
    // Only the parameters this version writes: an input cannot make a run spend more per digest
    // (a state of other parameters is not compared, as if it had no digest).
    if (n !== N || r !== R || p !== P) return undefined;
    return { scheme: 'scrypt', n, r, p, salt: s[4], hash: s[5] };
  }
  const h = SHA256.exec(d);
  return h ? { scheme: 'sha256', hash: h[1] } : undefined;
}

/** Whether a digest is the old, unsalted one (a state written by an earlier version). */
export function isWeakDigest(d: unknown): boolean {
  return parseDigest(d)?.scheme === 'sha256';
}

/**
 * A Secret's data as the API server stores it (stringData folded into data, base64 as stored),
 * sorted by key: what is digested. Undefined when its data is not a map of strings.
 */
function storedEntries(o: KObject): string | undefined {
  const bytes = new Map<string, string>();
  if (o.data !== undefined && o.data !== null) {
    if (!isObject(o.data)) return undefined;
    for (const [k, v] of Object.entries(o.data)) {
      if (typeof v !== 'string') return undefined;
      bytes.set(k, Buffer.from(v, 'base64').toString('base64'));
    }
  }
  if (o.stringData !== undefined && o.stringData !== null) {
    if (!isObject(o.stringData)) return undefined;
    for (const [k, v] of Object.entries(o.stringData)) bytes.set(k, Buffer.from(String(v), 'utf8').toString('base64'));
  }
  return JSON.stringify([...bytes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** scrypt results by their inputs (the data's own SHA-256 in the key): one run digests a Secret once. */
const memo = new Map<string, string>();

function scryptHex(data: string, salt: string, n: number, r: number, p: number): string {
  const key = `${n}:${r}:${p}:${salt}:${createHash('sha256').update(data).digest('hex')}`;
  let hash = memo.get(key);
  if (hash === undefined) {
    hash = scryptSync(data, Buffer.from(salt, 'hex'), HASH_BYTES, {
      N: n,
      r,
      p,
      maxmem: 256 * n * r + (1 << 20),
    }).toString('hex');
    memo.set(key, hash);
  }
  return hash;
}

/** The salt of a Secret's digest: from its identity (see above). */
function saltOf(o: KObject): string {
  const id = ['cozy-gw/secret-data-digest/v2', o.metadata.namespace ?? '', o.metadata.name ?? '', o.metadata.uid ?? ''];
  return createHash('sha256')
    .update(id.join('\0'))
    .digest('hex')
    .slice(0, SALT_BYTES * 2);
}

/** The digest cozy-gw writes for a Secret's data, or undefined when its data is not a map of strings. */
export function writeDigest(o: KObject): string | undefined {
  const data = storedEntries(o);
  if (data === undefined) return undefined;
  const salt = saltOf(o);
  return `scrypt:${N}:${R}:${P}:${salt}:${scryptHex(data, salt, N, R, P)}`;
}

/**
 * A Secret's data digested the way `like` was (its scheme, parameters and salt), to compare with
 * it; undefined when `like` is no digest or the data is not a map of strings.
 */
export function digestLike(o: KObject, like: ParsedDigest): string | undefined {
  const data = storedEntries(o);
  if (data === undefined) return undefined;
  if (like.scheme === 'sha256') return createHash('sha256').update(data).digest('hex');
  return scryptHex(data, like.salt, like.n, like.r, like.p);
}

/**
 * How two digests compare: `same` data, `changed` data, or `unknown` where they were not made
 * alike (another scheme or salt: nothing tells).
 */
export function compareDigests(a: ParsedDigest, b: ParsedDigest): 'same' | 'changed' | 'unknown' {
  if (a.scheme === 'sha256' || b.scheme === 'sha256')
    return a.scheme === b.scheme ? (a.hash === b.hash ? 'same' : 'changed') : 'unknown';
  if (b.scheme !== 'scrypt' || a.salt !== b.salt || a.n !== b.n || a.r !== b.r || a.p !== b.p) return 'unknown';
  return a.hash === b.hash ? 'same' : 'changed';
}
