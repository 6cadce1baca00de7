/**
 * A test oracle: the API server's Secret validation, written from k8s.io/kubernetes
 * pkg/apis/core/validation/validation.go (ValidateSecret, ValidateSecretUpdate's create half),
 * independently of src/k8s/secretTypes.ts so the two check each other.
 *
 * On the wire `data` values are base64 ([]byte in Go: a value that does not decode is refused
 * before validation); `stringData` is merged over `data` by the API server's defaulting before
 * ValidateSecret runs.
 */
import { Buffer } from 'node:buffer';

type Obj = {
  type?: unknown;
  data?: unknown;
  stringData?: unknown;
  metadata?: { annotations?: Record<string, string> };
};

function decodes(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  // Go's encoding/base64 StdEncoding: strict padding, no whitespace.
  if (v.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(v) || /=[^=]/.test(v) || /===$/.test(v)) return false;
  return Buffer.from(Buffer.from(v, 'base64').toString('base64')).toString() === v;
}

/** The errors the API server would return for this Secret on create (empty when accepted). */
export function apiServerSecretErrors(s: Obj): string[] {
  const errs: string[] = [];
  const data = new Map<string, string>();
  if (s.data !== undefined && s.data !== null) {
    if (typeof s.data !== 'object' || Array.isArray(s.data)) return ['data: must be a map'];
    for (const [k, v] of Object.entries(s.data as Record<string, unknown>)) {
      if (!decodes(v)) errs.push(`data[${k}]: illegal base64 data`);
      else data.set(k, Buffer.from(v, 'base64').toString('latin1'));
    }
  }
  if (s.stringData !== undefined && s.stringData !== null) {
    for (const [k, v] of Object.entries(s.stringData as Record<string, unknown>)) {
      if (typeof v !== 'string') errs.push(`stringData[${k}]: must be a string`);
      else data.set(k, v);
    }
  }
  let total = 0;
  for (const [k, v] of data) {
    // IsConfigMapKey
    if (k.length > 253 || !/^[-._a-zA-Z0-9]+$/.test(k) || k === '.' || k === '..' || k.startsWith('..'))
      errs.push(`data[${k}]: a valid config key must consist of alphanumeric characters, '-', '_' or '.'`);
    total += v.length;
  }
  if (total > 1024 * 1024) errs.push('data: Too long: must have at most 1048576 bytes');
  const type = s.type === undefined || s.type === '' ? 'Opaque' : s.type;
  const json = (k: string) => {
    try {
      JSON.parse(data.get(k) ?? '');
      return true;
    } catch {
      return false;
    }
  };
  switch (type) {
    case 'kubernetes.io/service-account-token':
      if (!s.metadata?.annotations?.['kubernetes.io/service-account.name'])
        errs.push('metadata.annotations[kubernetes.io/service-account.name]: Required value');
      break;
    case 'kubernetes.io/dockercfg':
      if (!data.has('.dockercfg')) errs.push('data[.dockercfg]: Required value');
      else if (!json('.dockercfg')) errs.push('data[.dockercfg]: Invalid value: invalid JSON');
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!data.has('.dockerconfigjson')) errs.push('data[.dockerconfigjson]: Required value');
      else if (!json('.dockerconfigjson')) errs.push('data[.dockerconfigjson]: Invalid value: invalid JSON');
      break;
    case 'kubernetes.io/basic-auth':
      if (!data.has('username') && !data.has('password'))
        errs.push('data[username]: Required value: either username or password must be provided');
      break;
    case 'kubernetes.io/ssh-auth':
      if (!data.has('ssh-privatekey')) errs.push('data[ssh-privatekey]: Required value');
      break;
    case 'kubernetes.io/tls':
      if (!data.has('tls.key')) errs.push('data[tls.key]: Required value');
      if (!data.has('tls.crt')) errs.push('data[tls.crt]: Required value');
      break;
    default:
      break;
  }
  return errs;
}
