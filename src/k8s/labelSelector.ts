/**
 * Kubernetes' label selector (metav1.LabelSelector) over a label map, in one place: admission's
 * objectSelector and namespaceSelector, and a Gateway listener's `allowedRoutes.namespaces.selector`
 * read back from a state. The selector is read as written (plain data, not checked): a
 * `matchLabels` that is not a map and a `matchExpressions` that is not a list select nothing by
 * themselves; an expression with an unknown operator matches nothing. Pure.
 */
import { isObject } from './model';

/** Whether a label selector selects an object with these labels; an absent selector selects everything. */
export function selectorMatches(sel: unknown, labels: Record<string, string>): boolean {
  if (sel === undefined || sel === null) return true;
  if (!isObject(sel)) return false;
  if (isObject(sel.matchLabels))
    for (const [k, v] of Object.entries(sel.matchLabels)) if (labels[k] !== v) return false;
  const expressions = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  for (const e of expressions) if (!expressionMatches(e, labels)) return false;
  return true;
}

function expressionMatches(e: unknown, labels: Record<string, string>): boolean {
  if (!isObject(e)) return false;
  const key = String(e.key ?? '');
  const values = Array.isArray(e.values) ? e.values.map(String) : [];
  const present = Object.prototype.hasOwnProperty.call(labels, key);
  switch (e.operator) {
    case 'In':
      return present && values.includes(labels[key]);
    case 'NotIn':
      return !present || !values.includes(labels[key]);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    default:
      return false;
  }
}
