/**
 * `--set path=value` and `--set-string path=value` (docs/commands/README.md "Values, warnings
 * and trees"), with helm's syntax (helm's strvals):
 *
 * - several assignments in one flag, separated by commas: `a=1,b=2`;
 * - dotted paths: `publishing.certificates.solver=dns01`;
 * - list indexes: `gateway.attachedNamespaces[0]=cozy-system`, nested `a[0].b=x`, `a[0][1]=x`
 *   (an index past the end pads the list with null);
 * - list values: `a={x,y}` (`{}` is the empty list);
 * - a backslash takes the next character literally: `\,` a comma inside a value, `\.` a dot
 *   inside a key, `\\` a backslash;
 * - `--set` types each value as helm does: `true`/`false` (any case) booleans, `null` deletes
 *   the key, an integer without a leading zero a number, anything else a string; `--set-string`
 *   keeps every value a string.
 *
 * Parsing is pure and separate from applying: a flag is parsed into assignments when it is read
 * (a syntax error is a usage error naming the flag and the bad token); the assignments are
 * applied, in order, after every `--values`. As in helm, a list is addressed by index inside the
 * list the earlier values hold (`existing`), not a fresh one.
 */
import { clone, isObject } from '../k8s/model';

export type PathPart = string | number;

export interface SetAssignment {
  path: PathPart[];
  value: unknown;
  /** The assignment as written, for messages. */
  source: string;
}

/** A syntax error in a `--set` argument; `token` is the part that could not be read. */
export class SetSyntaxError extends Error {
  constructor(
    message: string,
    readonly token: string,
  ) {
    super(message);
    this.name = 'SetSyntaxError';
  }
}

/** The largest list index accepted (helm's limit). */
export const MAX_INDEX = 65536;

/** helm's typedVal: the value of one `--set` token. */
export function typedValue(raw: string, asString: boolean): unknown {
  if (asString) return raw;
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (raw === '0') return 0;
  if (/^[+-]?[1-9][0-9]*$/.test(raw) || raw === '-0' || raw === '+0') {
    const n = Number(raw);
    // Beyond what a JSON number holds exactly, the digits stay a string rather than change.
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
  }
  return raw;
}

class Scanner {
  i = 0;
  constructor(readonly s: string) {}
  get done(): boolean {
    return this.i >= this.s.length;
  }
  /** helm's runesUntil: read up to one of `stop` (consumed, returned as `last`), `\` escaping. */
  until(stop: string): { text: string; last: string | undefined } {
    let text = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i++];
      if (stop.includes(c)) return { text, last: c };
      if (c === '\\') {
        if (this.i >= this.s.length) return { text, last: undefined };
        text += this.s[this.i++];
      } else text += c;
    }
    return { text, last: undefined };
  }
  peek(): string | undefined {
    return this.s[this.i];
  }
}

/**
 * Parse one `--set` / `--set-string` argument into its assignments. Throws SetSyntaxError
 * naming the bad token.
 */
export function parseSet(arg: string, opts: { asString?: boolean } = {}): SetAssignment[] {
  const sc = new Scanner(arg);
  const out: SetAssignment[] = [];
  const asString = Boolean(opts.asString);
  while (!sc.done) {
    const start = sc.i;
    const path: PathPart[] = [];
    let value: unknown;
    /** Whether the assignment ended at a separating comma (consumed). */
    let comma = false;
    // The key: segments separated by `.`, each optionally followed by `[n]` indexes.
    for (;;) {
      const seg = sc.until('=[,.');
      const sofar = arg.slice(start, seg.last === undefined ? sc.i : sc.i - 1);
      if (seg.last === undefined || seg.last === ',')
        throw new SetSyntaxError(`"${sofar}" has no value (want path=value)`, sofar);
      if (seg.text === '')
        throw new SetSyntaxError(`empty key in "${arg.slice(start, sc.i)}" (want path=value)`, arg.slice(start, sc.i));
      path.push(seg.text);
      if (seg.last === '.') continue;
      if (seg.last === '=') break;
      // `[`: one or more indexes, then `=`, `.` or another `[`.
      for (;;) {
        const idx = sc.until(']');
        if (idx.last === undefined)
          throw new SetSyntaxError(`unterminated index "[${idx.text}" (want a[0]=value)`, `[${idx.text}`);
        if (!/^\d+$/.test(idx.text))
          throw new SetSyntaxError(`index "[${idx.text}]" is not a non-negative integer`, `[${idx.text}]`);
        const n = Number(idx.text);
        if (n > MAX_INDEX) throw new SetSyntaxError(`index [${idx.text}] is larger than ${MAX_INDEX}`, `[${idx.text}]`);
        path.push(n);
        if (sc.peek() !== '[') break;
        sc.i++;
      }
      const next = sc.peek();
      if (next === '=' || next === '.') {
        sc.i++;
        if (next === '=') break;
        continue;
      }
      const rest = sc.until(',').text;
      throw new SetSyntaxError(`unexpected "${rest}" after an index (want a[0]=value or a[0].key=value)`, rest);
    }
    // The value: a `{a,b}` list or a scalar up to the next comma.
    if (sc.peek() === '{') {
      sc.i++;
      const list: unknown[] = [];
      for (;;) {
        const { text, last } = sc.until(',}');
        if (last === undefined)
          throw new SetSyntaxError(`list "${arg.slice(start)}" must end with "}"`, arg.slice(start));
        if (last === '}' && text === '' && list.length === 0) break; // {}
        list.push(typedValue(text, asString));
        if (last === '}') break;
      }
      if (!sc.done) {
        if (sc.peek() !== ',') {
          const rest = sc.until(',').text;
          throw new SetSyntaxError(`unexpected "${rest}" after a list (want key={a,b},next=value)`, rest);
        }
        sc.i++;
        comma = true;
      }
      value = list;
    } else {
      const v = sc.until(',');
      comma = v.last === ',';
      value = typedValue(v.text, asString);
    }
    out.push({ path, value, source: arg.slice(start, comma ? sc.i - 1 : sc.i) });
  }
  return out;
}

function setChild(node: Record<string, unknown> | unknown[], key: PathPart, value: unknown): void {
  if (Array.isArray(node)) {
    const i = key as number;
    while (node.length < i) node.push(null);
    node[i] = value;
  } else {
    Object.defineProperty(node, String(key), { value, enumerable: true, writable: true, configurable: true });
  }
}

function childOf(node: Record<string, unknown> | unknown[], key: PathPart): unknown {
  if (Array.isArray(node)) return node[key as number];
  return Object.prototype.hasOwnProperty.call(node, key) ? node[key as string] : undefined;
}

/**
 * Apply assignments, in order, to `target` (changed in place and returned). `existing(path)`
 * gives the value the earlier sources hold at a path: a list addressed by index starts as a
 * copy of it, as helm sets an index inside the list the values files gave.
 */
export function applySet(
  target: Record<string, unknown>,
  assignments: SetAssignment[],
  existing: (path: PathPart[]) => unknown = () => undefined,
): Record<string, unknown> {
  for (const a of assignments) {
    let node: Record<string, unknown> | unknown[] = target;
    for (let i = 0; i < a.path.length; i++) {
      const key = a.path[i];
      if (Array.isArray(node) && typeof key !== 'number') break; // cannot happen: the parser orders parts
      if (i === a.path.length - 1) {
        setChild(node, key, clone(a.value));
        break;
      }
      let child = childOf(node, key);
      if (typeof a.path[i + 1] === 'number') {
        if (!Array.isArray(child)) {
          const before = child === undefined ? existing(a.path.slice(0, i + 1)) : undefined;
          child = Array.isArray(before) ? clone(before) : [];
          setChild(node, key, child);
        }
      } else if (!isObject(child)) {
        child = {};
        setChild(node, key, child);
      }
      node = child as Record<string, unknown> | unknown[];
    }
  }
  return target;
}
