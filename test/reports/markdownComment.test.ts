/**
 * `diff -o markdown` (src/reports/markdownComment.ts): bounded, and nothing from input forges
 * the comment's structure. The goldens (testdata/golden/diff/markdown-*) pin the text.
 */
import fc from 'fast-check';
import { diff } from '../../src/diff/diff';
import { code, COMMENT_LIMIT, html, markdownComment } from '../../src/reports/markdownComment';
import type { KObject } from '../../src/k8s/model';
import { escapeControl } from '../../src/k8s/printable';
import { readGfm } from '../helpers/gfm';

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
  it('inline text from input reads back whole in a table cell, a list item and a summary, and is nothing but text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const want = escapeControl(s);
        // In a table cell: one cell, holding exactly the text (a `\\|` from input ends no cell).
        const table = readGfm(`| a | b |\n| --- | --- |\n| ${code(s)} | x |\n`, 'cell');
        expect(table.problems).toEqual([]);
        expect(table.rows).toEqual([[want, 'x']]);
        // In a list item and in a <summary>: no tag, link, emphasis or entity of its own.
        const item = readGfm(`- ${code(s)}\n`, 'item');
        expect(item.problems).toEqual([]);
        expect(code(s)).toMatch(/^<code>[^<>&|\\`*_[\]()!#@:.~"']*(&#\d+;[^<>&|\\`*_[\]()!#@:.~"']*)*<\/code>$/);
        expect(code(s)).not.toMatch(/[\n\r\u001b\u202e\u2066]/);
      }),
      { numRuns: 300, seed },
    );
  });

  it('HTML text in <summary> carries no tag and no entity of its own', () => {
    expect(html('a</summary><b>&amp;"')).toBe('a&#60;/summary&#62;&#60;b&#62;&#38;amp;&#34;');
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
    expect(md).toContain(code('cozy-gw diff --state s.yaml -f c.yaml'));
    expect(md).toContain('`-o markdown --comment-dir DIR`');
    const small = markdownComment(d, { rerun: 'x', limit: 3000 });
    expect(small.length).toBeLessThanOrEqual(3000);
    expect(small).toContain('Cut to fit');
  });
});
