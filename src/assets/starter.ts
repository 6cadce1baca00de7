/**
 * The starting repository `cozy-gw init` writes (docs/commands/init.md): files of examples/, embedded
 * at build time as text (scripts/embed-assets.js, its STARTER table), so the installed package and
 * the single-file binary carry them. Only `init` loads this module.
 */
import { STARTER } from './starter.generated';

export interface StarterFile {
  /** Its path in the repository, `/`-separated. */
  path: string;
  /** Its content, written byte for byte. */
  text: string;
  /** A script to run (written executable, as the umask allows). */
  executable: boolean;
}

/** The starting repository's files, in order. */
export function starterFiles(): readonly StarterFile[] {
  return STARTER;
}
