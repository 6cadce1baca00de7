/**
 * The Cozystack version every report names in its header (docs/versions.md "Choosing a version"):
 * the version reproduced, and what the state tells of its own, said plainly where they differ
 * (as standard error says it). One wording for the plan, the pull-request comment, the page and the
 * JSON document. Pure: the edge chooses the version (src/cli/commands/common.ts) and hands it in.
 */
import { code } from './markdownText';
import { htmlText } from './htmlTree';

/** The version a report names. */
export interface VersionHeader {
  /** The version reproduced (`v1.6.2`, `main`). */
  version: string;
  /** What the state tells of its own version, when it tells one. */
  state?: {
    /** As the state reports it (`v1.6.2`, `v1.6.2-rc.1`). */
    version: string;
    /** The versions it allows (more than one when it tells only a line: docs/versions.md §11). */
    versions: string[];
    /** What tells it (`the tree's record`, `Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION`). */
    from: string;
    /** The version reproduced is none of `versions`. */
    differs: boolean;
  };
}

/** The state's version as words: the version, or the versions it allows (`v1.6.0, v1.6.1 or v1.6.2`). */
function stateVersionText(s: NonNullable<VersionHeader['state']>): string {
  const v = s.versions;
  return v.length > 1 ? `${v.slice(0, -1).join(', ')} or ${v[v.length - 1]}` : s.version;
}

/** The plan's line: `Cozystack version: main; the state is of Cozystack v1.6.2 (...)`. */
export function versionLine(h: VersionHeader): string {
  const s = h.state;
  if (!s) return `Cozystack version: ${h.version}`;
  if (!s.differs) return `Cozystack version: ${h.version}, the state's (${s.from})`;
  return `Cozystack version: ${h.version}; the state is of Cozystack ${stateVersionText(s)} (${s.from})`;
}

/** The comment's line, every word from input escaped (markdownText.ts). */
export function versionMarkdown(h: VersionHeader): string {
  const s = h.state;
  const head = `**Cozystack version:** ${code(h.version)}`;
  if (!s) return `${head}\n\n`;
  if (!s.differs) return `${head}, the state's (${code(s.from)})\n\n`;
  return `${head}; **the state is of Cozystack ${code(stateVersionText(s))}** (${code(s.from)})\n\n`;
}

/** The page's paragraph, every word from input escaped (htmlTree.ts htmlText). */
export function versionHtml(h: VersionHeader): string {
  const s = h.state;
  const head = `Cozystack version: <code>${htmlText(h.version)}</code>`;
  if (!s) return `<p id="cozystack">${head}</p>`;
  if (!s.differs) return `<p id="cozystack">${head}, the state's (${htmlText(s.from)})</p>`;
  return `<p id="cozystack">${head}; <strong>the state is of Cozystack <code>${htmlText(stateVersionText(s))}</code></strong> (${htmlText(s.from)})</p>`;
}

/** The JSON document's `cozystack` member (schemas/diff-output.schema.json). */
export function versionJson(h: VersionHeader): Record<string, unknown> {
  return h.state ? { version: h.version, state: { ...h.state } } : { version: h.version };
}
