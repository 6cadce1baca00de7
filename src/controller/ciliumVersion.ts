/**
 * Which Cilium the hazards are judged for: the version the platform ships, and how a version is
 * read (`v1.20.2` or `1.20.2`). Apart from the hazards so that the commands' option parsing loads
 * no controller code.
 */
import valid from 'semver/functions/valid';

/** The Cilium the platform ships (docs/behaviour.md §8). */
export const SHIPPED_CILIUM_VERSION = '1.20.2';

/** What is said of a value that is not a Cilium version. */
export const NOT_A_CILIUM_VERSION = `is not a version (want e.g. ${SHIPPED_CILIUM_VERSION} or v1.19.5)`;

/** `v1.20.2` or `1.20.2` → `1.20.2`; undefined when it is not a version. */
export function parseCiliumVersion(v: string): string | undefined {
  return valid(v.trim().replace(/^v/, '')) ?? undefined;
}
