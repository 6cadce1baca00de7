/**
 * `diff -o markdown` (src/pipelines/markdownComment.ts): bounded, and nothing from input forges
 * the comment's structure. The goldens (testdata/golden/diff/markdown-*) pin the text.
 */
import fc from 'fast-check';
import { diff } from '../../src/pipelines/diff';
import { code, COMMENT_LIMIT, html, markdownComment } from '../../src/pipelines/markdownComment';
import type { KObject } from '../../src/k8s/model';

const NOW = '2026-01-01T00:00:00Z';
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

const configMap = (ns: string, name: string, data: Record<string, string>): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

/** The lines of a comment outside its fenced diff blocks. */
function outsideFences(md: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of md.split('\n')) {
    if (fence) {
      if (line === fence) fence = undefined;
      continue;
    }
    const open = /^(`{3,})diff$/.exec(line);
    if (open) fence = open[1];
    else out.push(line);
  }
  expect(fence).toBeUndefined();
  return out;
}

describe('markdownComment', () => {
  it('a code span holds any text whole: no backtick run in it ends it early', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const c = code(s);
        const fence = /^`+/.exec(c)![0];
        expect(c.endsWith(fence)).toBe(true);
        expect(c.slice(fence.length, -fence.length)).not.toContain(fence);
        expect(c).not.toMatch(/[\n\r\u001b\u202e]/);
      }),
      { numRuns: 300, seed },
    );
  });

  it('HTML text in <summary> carries no tag and no entity of its own', () => {
    expect(html('a</summary><b>&amp;"')).toBe('a&lt;/summary&gt;&lt;b&gt;&amp;amp;&quot;');
  });

  it('names holding Markdown, HTML, pipes and control characters forge no line, cell or section', () => {
    const name = 'x`|<b>**y**</b>\n</details>\n# h @octocat';
    const d = diff(
      {
        state: [configMap('team-a|</summary>', name, { k: 'a' })],
        objects: [configMap('team-a|</summary>', name, { k: 'a\n```\n</details>\n# forged' })],
        valuesFiles: [],
      },
      { now: NOW },
    );
    const md = markdownComment(d, { rerun: 'cozy-gw diff' });
    const lines = outsideFences(md);
    // Our own structure only: the heading, blank lines, <details> blocks, notes.
    for (const l of lines)
      expect({
        line: l,
        ok: /^(|### .*|<details><summary>.*<\/summary>|<\/details>|- .*|> .*|\*\*.*)$/.test(l),
      }).toEqual({ line: l, ok: true });
    expect(lines.filter((l) => l.startsWith('<details>'))).toHaveLength(1);
    expect(lines.filter((l) => l === '</details>')).toHaveLength(1);
    expect(lines.join('\n')).not.toContain('<b>');
    expect(md).not.toContain('\n# forged');
  });

  it('stays within the limit, and says what it left out and how to see it', () => {
    const big = (v: string) =>
      Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, `${v}-${i}-${'x'.repeat(50)}`]));
    const nss = ['a', 'b', 'c', 'd', 'e'];
    const d = diff(
      {
        state: nss.map((n) => configMap(n, 'cfg', big('old'))),
        objects: nss.map((n) => configMap(n, 'cfg', big('new'))),
        valuesFiles: [],
      },
      { now: NOW },
    );
    const md = markdownComment(d, { rerun: 'cozy-gw diff --state s.yaml -f c.yaml' });
    expect(md.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(md).toMatch(/Cut to fit a pull-request comment \(65,536 characters\):\*\* the diffs of \d namespaces/);
    expect(md).toContain('`cozy-gw diff --state s.yaml -f c.yaml`');
    const small = markdownComment(d, { rerun: 'x', limit: 3000 });
    expect(small.length).toBeLessThanOrEqual(3000);
    expect(small).toContain('Cut to fit');
  });
});
