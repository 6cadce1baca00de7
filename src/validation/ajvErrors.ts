/**
 * ajv errors as findings a user can act on: the one JSON-pointer → field converter, and the
 * wording of each kind of error in the two voices cozy-gw speaks: its own for the inputs it
 * reads (Tenants, platform values, a CozyGateway), and the API server's for a TenantGateway
 * (the CRD's structural schema, as `kubectl apply` would word the refusal).
 */
import type { ErrorObject } from 'ajv';
import { error, type Finding } from '../k8s/diagnostics';
import { isObject, type ObjRef } from '../k8s/model';

/**
 * A JSON pointer (`/spec/tlsPassthroughListeners/0/port`) or a path of keys and indexes as a
 * dotted field with indexes (`spec.tlsPassthroughListeners[0].port`); `extra` is a key below it.
 * In a pointer, an all-digit segment is an index.
 */
export function fieldOf(pointer: string | (string | number)[], extra?: string): string {
  const parts = Array.isArray(pointer)
    ? [...pointer]
    : pointer
        .split('/')
        .slice(1)
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/** A value as a message shows it: a list, a mapping, or its JSON. */
export function show(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (isObject(v)) return 'a mapping';
  return JSON.stringify(v);
}

export interface Explained {
  field: string;
  message: string;
  hint?: string;
}

/** What a JSON Schema type list (`object,null`) is in YAML's words: "a mapping or null". */
export function typeWords(types: string): string {
  const words: Record<string, string> = {
    object: 'a mapping',
    array: 'a list',
    string: 'a string',
    number: 'a number',
    integer: 'a whole number',
    boolean: 'a boolean',
    null: 'null',
  };
  return types
    .split(',')
    .map((x) => words[x] ?? x)
    .join(' or ');
}

/** One ajv error about an input cozy-gw reads (a Tenant, platform values): the field, what is wrong with it, and what to do. */
export function explainInputError(e: ErrorObject): Explained {
  const base = fieldOf(e.instancePath);
  const { field, message } = inputMessage(e, base);
  return { field, message, hint: hintOf(e, field) };
}

function inputMessage(e: ErrorObject, base: string): { field: string; message: string } {
  switch (e.keyword) {
    case 'required':
      return { field: fieldOf(e.instancePath, String(e.params.missingProperty)), message: 'is required' };
    case 'type':
      return { field: base, message: `must be ${typeWords(String(e.params.type))}, got ${show(e.data)}` };
    case 'const':
      return { field: base, message: `must be ${JSON.stringify(e.params.allowedValue)}, got ${show(e.data)}` };
    case 'enum':
      return {
        field: base,
        message: `must be one of ${(e.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}, got ${show(e.data)}`,
      };
    case 'minLength':
      return { field: base, message: 'must not be empty' };
    default:
      return { field: base, message: e.message ?? 'is invalid' };
  }
}

/** What the user can do about one ajv error on an input (the Finding's hint). */
export function hintOf(e: Pick<ErrorObject, 'keyword' | 'params'>, field: string): string | undefined {
  switch (e.keyword) {
    case 'required':
      return `add ${field}`;
    case 'type': {
      const t = String(e.params.type);
      const key = field.split('.').pop() || 'it';
      if (t === 'boolean') return `write true or false, unquoted`;
      if (t === 'string') return `quote the value ("...") so YAML reads it as a string`;
      if (t === 'array') return `write a list, e.g. ${key}: [a, b]`;
      if (t === 'object') return `write key: value lines indented under ${key}`;
      if (t === 'object,null') return `write key: value lines indented under ${key}, or nothing after "${key}:"`;
      // The message already names what the value may be.
      return undefined;
    }
    case 'enum':
    case 'const':
      return `set ${field || 'it'} to one of the values listed`;
    case 'minLength':
      return `give ${field || 'it'} a value, or remove the key for the default`;
    case 'pattern':
    case 'format':
      return `change ${field || 'it'} to match`;
    case 'additionalProperties':
      return `remove the key, or check its spelling`;
    default:
      return undefined;
  }
}

/** One ajv error on a TenantGateway, in the API server's words for a CRD's structural schema. */
export function explainCrdError(e: ErrorObject): Explained {
  const p = e.params as Record<string, unknown>;
  let field = fieldOf(e.instancePath);
  let message = e.message ?? 'is invalid';
  let hint: string | undefined;
  switch (e.keyword) {
    case 'required':
      field = fieldOf(e.instancePath, String(p.missingProperty));
      message = 'Required value';
      hint = `add ${field}`;
      break;
    case 'additionalProperties':
      field = fieldOf(e.instancePath, String(p.additionalProperty));
      message = 'unknown field';
      hint = 'remove the field, or check its spelling against the TenantGateway CRD';
      break;
    case 'enum':
      message = `Unsupported value: supported values: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      hint = `set ${field} to one of the supported values`;
      break;
    case 'pattern':
      message = `must match the pattern ${p.pattern}`;
      hint = `change ${field} to match`;
      break;
    case 'type':
      hint = `write ${field} as a ${String(p.type)}`;
      break;
  }
  return { field, message, hint };
}

/**
 * A failed validation's errors as findings, each (field, message) once: ajv reports one violation
 * through several schema branches, and a user needs to read it once.
 */
export function schemaFindings(
  errors: readonly ErrorObject[] | null | undefined,
  explain: (e: ErrorObject) => Explained,
  base: { rule: string; object: ObjRef },
): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const e of errors ?? []) {
    const { field, message, hint } = explain(e);
    const key = `${field}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(error(message, { ...base, field: field || undefined, hint }));
  }
  return out;
}
