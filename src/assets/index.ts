/** Read access to the embedded charts/, schemas/ and templates/ (see scripts/embed-assets.js). */
import { DATA, TEMPLATES } from './assets.generated';
import { clone } from '../k8s/model';

/** Parsed YAML or JSON asset, e.g. `charts/platform/values.yaml`; a fresh copy each call. */
export function asset<T = unknown>(file: string): T {
  if (!(file in DATA)) throw new Error(`internal: asset ${file} is not embedded`);
  return clone(DATA[file]) as T;
}

/** A template of templates/, precompiled at build time (scripts/embed-assets.js). */
export function templateSpec(file: string): object {
  if (!(file in TEMPLATES)) throw new Error(`internal: template ${file} is not embedded`);
  return TEMPLATES[file];
}
