/**
 * The API server's Secret type validation (k8s.io/kubernetes pkg/apis/core/validation
 * ValidateSecret): what a Secret must hold for its `type`, `stringData` merged into `data` first
 * as the API server merges them. Pure.
 *
 * | type                                 | the API server requires                       |
 * |--------------------------------------|-----------------------------------------------|
 * | Opaque, "" and any other type        | nothing beyond valid keys                     |
 * | kubernetes.io/tls                    | `tls.crt` and `tls.key`                       |
 * | kubernetes.io/dockerconfigjson       | `.dockerconfigjson`, valid JSON               |
 * | kubernetes.io/dockercfg              | `.dockercfg`, valid JSON                      |
 * | kubernetes.io/basic-auth             | `username` or `password`                      |
 * | kubernetes.io/ssh-auth               | `ssh-privatekey`                              |
 * | kubernetes.io/service-account-token  | annotation `kubernetes.io/service-account.name` |
 *
 * Every data key is a config-map key (`[-._a-zA-Z0-9]+`, not `.`, not starting with `..`, at most 253
 * characters) and every `data` value is base64.
 */
import { isObject, type KObject } from './model';

const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding, as Kubernetes reads a `[]byte` field (a Secret's data, a schema's `format: byte`). */
export function isBase64(s: string): boolean {
  return BASE64.test(s);
}

/** The data as the API server stores it: `data`, then `stringData` over it (decoded text). */
function mergedData(o: KObject): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  if (isObject(o.data)) {
    for (const [k, v] of Object.entries(o.data))
      out.set(k, typeof v === 'string' && isBase64(v) ? Buffer.from(v, 'base64').toString('utf8') : undefined);
  }
  if (isObject(o.stringData))
    for (const [k, v] of Object.entries(o.stringData)) out.set(k, typeof v === 'string' ? v : undefined);
  return out;
}

function isJson(s: string | undefined): boolean {
  if (s === undefined) return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** Why the API server would refuse this Secret, or undefined when it would accept it. */
export function secretTypeProblem(o: KObject): string | undefined {
  if (isObject(o.data)) {
    for (const [k, v] of Object.entries(o.data))
      if (typeof v !== 'string' || !isBase64(v)) return `data.${k} is not base64`;
  }
  const data = mergedData(o);
  for (const k of data.keys()) {
    if (!KEY.test(k) || k === '.' || k.startsWith('..') || k.length > 253)
      return `${JSON.stringify(k)} is not a valid Secret key`;
  }
  const type = typeof o.type === 'string' ? o.type : 'Opaque';
  const missing = (keys: string[]) => keys.filter((k) => !data.has(k));
  switch (type) {
    case 'kubernetes.io/tls': {
      const m = missing(['tls.crt', 'tls.key']);
      return m.length ? `type ${type} without ${m.join(' and ')}` : undefined;
    }
    case 'kubernetes.io/dockerconfigjson':
    case 'kubernetes.io/dockercfg': {
      const key = type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!data.has(key)) return `type ${type} without ${key}`;
      return isJson(data.get(key)) ? undefined : `type ${type}: ${key} is not JSON`;
    }
    case 'kubernetes.io/basic-auth':
      return data.has('username') || data.has('password') ? undefined : `type ${type} without username or password`;
    case 'kubernetes.io/ssh-auth':
      return data.has('ssh-privatekey') ? undefined : `type ${type} without ssh-privatekey`;
    case 'kubernetes.io/service-account-token':
      return o.metadata.annotations?.['kubernetes.io/service-account.name']
        ? undefined
        : `type ${type} without annotation kubernetes.io/service-account.name`;
    default:
      return undefined;
  }
}
