/**
 * docs/decisions.md §14: output that gets applied never carries a Secret the API server would refuse.
 *
 * `post-render` output goes to Helm, `fn` items into a package that is applied, an
 * `--output-dir` tree to Flux or Argo CD; a Secret the API server refuses there (a wildcard
 * replica of type kubernetes.io/tls without `tls.crt`/`tls.key`, as it reads once its key
 * material is left out) fails the whole apply. So in those outputs a Secret the controller
 * pass writes is kept only when the key material is asked for (`--include-secret-data`,
 * `includeSecretData`) and the Secret is one the API server accepts; otherwise it is left to the
 * in-cluster controller, and an info finding names it and says how to include it.
 *
 * Only Secrets the tool writes are judged: the rendered `cozystack-values` Secrets hold
 * configuration, not key material, and are always written whole; objects that came in pass
 * through as they are (docs/decisions.md §9). Pure.
 */
import { type Finding } from '../k8s/diagnostics';
import { refOf, type KObject } from '../k8s/model';
import { isRedacted, isSecret, withoutKeyMaterialAnnotations } from '../k8s/secretRedaction';
import { secretTypeProblem } from '../k8s/secretTypes';
import { ANNOTATION_WILDCARD_SOURCE } from '../controller/wildcardSecrets';

export interface AppliedSecretsOptions {
  includeSecretData: boolean;
  /** How the user asks for key material in this output (`pass --include-secret-data`, ...). */
  includeHint: string;
}

export interface AppliedSecrets {
  objects: KObject[];
  /** One info finding per Secret left out. */
  findings: Finding[];
}

function whatItIs(o: KObject): string {
  const source = o.metadata.annotations?.[ANNOTATION_WILDCARD_SOURCE];
  return source ? `wildcard-Secret replica of ${source}` : 'Secret the controller writes';
}

/**
 * Keep or leave out each Secret that `toolWritten` says the tool created or changed; every other
 * object is kept as it is. Order is kept.
 */
export function applySecretRule(
  objects: KObject[],
  toolWritten: (o: KObject) => boolean,
  opts: AppliedSecretsOptions,
): AppliedSecrets {
  const findings: Finding[] = [];
  const kept: KObject[] = [];
  for (const o of objects) {
    if (!isSecret(o) || !toolWritten(o)) {
      kept.push(o);
      continue;
    }
    if (!opts.includeSecretData) {
      findings.push({
        severity: 'info',
        message: `${whatItIs(o)} left out of the output, for the in-cluster controller to write`,
        object: refOf(o),
        rule: 'output.secret-left-out',
        hint: `${opts.includeHint} to write it with its key material; without it the API server would refuse it`,
      });
      continue;
    }
    const problem = isRedacted(o) ? 'its data was left out of the input' : secretTypeProblem(o);
    if (problem) {
      findings.push({
        severity: 'info',
        message: `${whatItIs(o)} left out of the output, for the in-cluster controller to write: ${problem}, and the API server would refuse it`,
        object: refOf(o),
        rule: 'output.secret-left-out',
        hint: 'give the source Secret with its key material (cozy-gw snapshot --include-secret-data)',
      });
      continue;
    }
    // The tool writes this Secret: a copy of an earlier object (a last-applied record of the
    // live replica, with its old key material) is no part of it.
    kept.push(withoutKeyMaterialAnnotations(o));
  }
  return { objects: kept, findings };
}
