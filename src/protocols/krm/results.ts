/**
 * Findings as the `results` of a ResourceList (KRM Functions Specification): severity,
 * resourceRef, field and file. Pure.
 */
import { fullHint, type Finding } from '../../k8s/diagnostics';
import { isObject, keyOf } from '../../k8s/model';
import { itemPathOf, isKObject } from './items';

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** A `results` entry of the KRM Functions Specification. */
export interface KrmResult {
  message: string;
  severity: 'error' | 'warning' | 'info';
  resourceRef?: ResourceRef;
  field?: { path: string };
  file?: { path: string; index?: number };
  tags?: Record<string, string>;
}

/** A finding as a `results` entry, its file taken from the item it names (or the config). */
export function toResult(f: Finding, items: unknown[], functionConfig: unknown): KrmResult {
  const hint = fullHint(f);
  const r: KrmResult = { message: hint ? `${f.message} (${hint})` : f.message, severity: f.severity };
  const about = f.object;
  if (about) {
    r.resourceRef = { apiVersion: about.apiVersion, kind: about.kind, name: about.name };
    if (about.namespace) r.resourceRef.namespace = about.namespace;
  }
  if (f.field) r.field = { path: f.field };
  let file: { path: string; index?: number } | undefined;
  if (about) {
    const k = keyOf(about);
    const item =
      items.find((it) => isKObject(it) && keyOf(it) === k) ??
      (isObject(functionConfig) && isKObject(functionConfig) && keyOf(functionConfig) === k
        ? functionConfig
        : undefined);
    file = item ? itemPathOf(item) : undefined;
  }
  if (!file && f.file) file = { path: f.file };
  if (file) r.file = file;
  if (f.rule) r.tags = { rule: f.rule };
  return r;
}
