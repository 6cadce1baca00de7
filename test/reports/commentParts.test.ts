/**
 * `diff -o markdown --comment-dir` (src/reports/markdownComment.ts markdownParts): the comment
 * in parts, each at most the limit, nothing dropped, each read as GitHub Flavored Markdown
 * (markdown-it, test/helpers/gfm.ts) with no broken table, fence or span, whatever the names hold;
 * and the L platform (bench/generate.js) moved from http01 to dns01 in parts of 65,536 characters.
 */
import fc from 'fast-check';
import { diff, type DiffResult } from '../../src/diff/diff';
import { COMMENT_LIMIT, markdownComment, markdownParts, partFileName } from '../../src/reports/markdownComment';
import { differences } from '../../src/diff/comparison';
import { describe as describeObject, type KObject } from '../../src/k8s/model';
import { escapeControl } from '../../src/k8s/printable';
import { readGfm } from '../helpers/gfm';
import { generate } from '../../bench/generate.js';

const NOW = '2026-01-01T00:00:00Z';
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : Date.now() % 1_000_000;

const configMap = (ns: string, name: string, data: Record<string, string>): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

/** The header line of each object's diff in the parts (unifiedDiff.ts opens each with `Kind namespace/name`). */
function objectsShown(parts: string[]): Set<string> {
  const shown = new Set<string>();
  for (const [i, p] of parts.entries())
    for (const f of readGfm(p, partFileName(i, parts.length)).fences)
      if (f.info === 'diff') for (const l of f.content.split('\n')) shown.add(l);
  return shown;
}

function checkParts(d: DiffResult, parts: string[], limit: number): void {
  const problems: string[] = [];
  parts.forEach((p, i) => {
    const name = partFileName(i, parts.length);
    if (p.length > limit) problems.push(`${name}: ${p.length} characters, over ${limit}`);
    if (!p.startsWith(`<!-- cozy-gw diff comment ${i + 1}/${parts.length} -->\n`)) problems.push(`${name}: no marker`);
    problems.push(...readGfm(p, name).problems);
  });
  const shown = objectsShown(parts);
  for (const it of differences(d)) {
    const head = escapeControl(describeObject((it.after ?? it.before)!));
    if (!shown.has(head)) problems.push(`${head}: in no part`);
  }
  expect(problems).toEqual([]);
}

describe('markdownParts', () => {
  const big = (v: string, n = 400) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `${v}-${i}-${'x'.repeat(50)}`]));

  it('splits instead of cutting: every part within the limit, every object in some part, a long diff continued with a marker', () => {
    const nss = ['a', 'b', 'c', 'd', 'e'];
    const d = diff(
      {
        state: nss.map((n) => configMap(n, 'cfg', big('old'))),
        objects: nss.map((n) => configMap(n, 'cfg', big('new'))),
        valuesFiles: [],
      },
      { now: NOW },
    );
    const one = markdownComment(d, { rerun: 'cozy-gw diff' });
    expect(one).toContain('Cut to fit');
    expect(one).toContain('--comment-dir DIR');
    const parts = markdownParts(d, { rerun: 'cozy-gw diff', limit: 8192 });
    expect(parts.length).toBeGreaterThan(5);
    checkParts(d, parts, 8192);
    expect(parts.some((p) => p.includes('(continued from the previous part)'))).toBe(true);
    expect(parts.some((p) => p.includes('continues in the next part'))).toBe(true);
    // Nothing dropped: every added line checked is in some part, once per namespace.
    const all = parts.join('\n');
    for (let i = 0; i < 400; i += 37)
      expect({ line: `new-${i}`, found: all.split(`+  k${i}: new-${i}-`).length - 1 }).toEqual({
        line: `new-${i}`,
        found: nss.length,
      });
  });

  it('one part when everything fits: the same head as the single comment, marked', () => {
    const d = diff(
      { state: [configMap('a', 'cfg', { k: 'a' })], objects: [configMap('a', 'cfg', { k: 'b' })], valuesFiles: [] },
      { now: NOW },
    );
    const parts = markdownParts(d, { rerun: 'x' });
    expect(parts).toHaveLength(1);
    expect(parts[0]).toBe(`<!-- cozy-gw diff comment 1/1 -->\n${markdownComment(d, { rerun: 'x' })}`);
  });

  it('a line longer than a part is split across items, nothing dropped', () => {
    const long = 'y'.repeat(20_000);
    const d = diff(
      { state: [configMap('a', 'cfg', { k: 'a' })], objects: [configMap('a', 'cfg', { k: long })], valuesFiles: [] },
      { now: NOW },
    );
    const parts = markdownParts(d, { rerun: 'x', limit: 4096 });
    checkParts(d, parts, 4096);
    const runs = parts.join('').match(/y{10,}/g) ?? [];
    expect(runs.reduce((n, r) => n + r.length, 0)).toBe(20_000);
    expect(runs.length).toBeGreaterThan(4);
  });

  it('a hostname row, a finding and a refusal longer than a part fit: the row continues in rows below it, the rest in lines', () => {
    const d = diff(
      { state: [configMap('a', 'cfg', { k: 'old' })], objects: [configMap('a', 'cfg', { k: 'new' })], valuesFiles: [] },
      { now: NOW },
    );
    const long = `${'a|b`c<d>&e*'.repeat(900)}end`;
    const withRows: DiffResult = {
      ...d,
      hostnames: [
        {
          hostname: 'x.example.org',
          route: 'HTTPRoute a/r',
          namespace: 'a',
          before: { state: 'refused', reason: 'HostnameConflict', message: long },
          after: { state: 'absent' },
          change: 'reason',
        },
      ],
      inadmissible: [
        {
          object: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'a' },
          policy: 'p',
          binding: 'b',
          message: long,
          because: 'x',
        },
      ],
    };
    const finding = { severity: 'warning' as const, message: long };
    const parts = markdownParts(withRows, { rerun: 'cozy-gw diff', limit: 4096, findings: [finding] });
    checkParts(withRows, parts, 4096);
    const all = parts.join('');
    expect(all).toContain('| ↪ |');
    // Nothing dropped: every piece of the message is there (its escaped form, in order).
    // (A finding cuts a long run itself, saying so: k8s/printable.ts.)
    expect(all.split('end').length - 1).toBe(2);
  });

  it('hostile names and hostnames (pipes, backslash-pipes, backticks, HTML, links, bidi controls) break no table, fence or span, in any part', () => {
    const nasty = fc.constantFrom(
      '|',
      '\\|',
      '\\',
      '`',
      '```',
      '~~~',
      '<b>',
      '</details>',
      '</summary>',
      '<!--',
      '*',
      '_',
      '[x](javascript:alert(1))',
      'https://evil.example/',
      'www.evil.example',
      '@octocat',
      ':+1:',
      '\n',
      '\u202e',
      '&amp;',
      '#',
      'a',
    );
    fc.assert(
      fc.property(
        fc.array(nasty, { minLength: 1, maxLength: 8 }),
        fc.array(nasty, { minLength: 1, maxLength: 8 }),
        (n1, n2) => {
          const name = n1.join('');
          const host = `${n2.join('')}.example.org`;
          const route = (h: string): KObject => ({
            apiVersion: 'gateway.networking.k8s.io/v1',
            kind: 'HTTPRoute',
            metadata: { name: `r${name}`, namespace: 'tenant-root' },
            spec: { parentRefs: [{ name: 'cozystack', namespace: 'tenant-root' }], hostnames: [h] },
          });
          const d = diff(
            {
              state: [route('old.example.org'), configMap(`ns${name}`, name, { k: 'a' })],
              objects: [route(host), configMap(`ns${name}`, name, { k: `${name}\n${big(name, 60).k1}` })],
              valuesFiles: [],
            },
            { now: NOW },
          );
          const findings = [{ severity: 'warning' as const, message: name, file: `${name}.yaml`, line: 2 }];
          const parts = markdownParts(d, { rerun: `cozy-gw diff -f ${name}`, limit: 4096, findings });
          checkParts(d, parts, 4096);
          // The table's cells read back as the text given (control characters escaped, nothing lost to a split).
          const rows = parts.flatMap((p, i) => readGfm(p, partFileName(i, parts.length)).rows);
          const hostRow = rows.find((r) => r[1] === escapeControl(host));
          expect({ host, row: hostRow?.[2] }).toEqual({ host, row: escapeControl(`HTTPRoute tenant-root/r${name}`) });
        },
      ),
      { numRuns: 60, seed },
    );
  });
});

describe('the L platform moved from http01 to dns01, in parts of 65,536 characters', () => {
  it('every part within the limit and readable as GFM; every changed object in some part', () => {
    const g = generate('L');
    const d = diff(
      {
        state: g.snapshot as KObject[],
        objects: g.tenants as KObject[],
        valuesFiles: [
          { file: 'values.yaml', values: g.values },
          { file: 'values-dns01.yaml', values: g.valuesDns01 },
        ],
      },
      { now: NOW },
    );
    const n = d.created.length + d.changed.length + d.deleted.length;
    expect(n).toBeGreaterThan(1000);
    const parts = markdownParts(d, { rerun: 'cozy-gw diff', limit: COMMENT_LIMIT });
    expect(parts.length).toBeGreaterThan(10);
    checkParts(d, parts, COMMENT_LIMIT);
    // The first part opens with the counts and the tree.
    expect(parts[0]).toMatch(/^<!-- cozy-gw diff comment 1\/\d+ -->\n### cozy-gw diff: /);
    expect(parts[0]).toContain('```mermaid\ngraph TD\n');
    expect(parts[0]).toContain('| change | hostname | route | before | after |');
  }, 300_000);
});
