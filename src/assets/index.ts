/** Read access to the embedded charts/, schemas/ and templates/ (see scripts/embed-assets.js). */
import { DATA, TEXT } from './assets.generated';
import { clone } from '../k8s/model';

/** Parsed YAML or JSON asset, e.g. `charts/platform/values.yaml`; a fresh copy each call. */
export function asset<T = unknown>(file: string): T {
  if (!(file in DATA)) throw new Error(`internal: asset ${file} is not embedded`);
  return clone(DATA[file]) as T;
}

export function assetText(file: string): string {
  if (!(file in TEXT)) throw new Error(`internal: template ${file} is not embedded`);
  return TEXT[file];
}
