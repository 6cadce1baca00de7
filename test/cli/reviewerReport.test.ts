/**
 * The reviewer's report from the command line (docs/commands/diff.md): `-o markdown --comment-dir` writes the parts (and removes the parts an
 * earlier run left, nothing else), `--comment-limit` bounds them, and `-o html` is one
 * self-contained page: a Content-Security-Policy that allows nothing external, no URL in any
 * `src` or `href`, no Secret material.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, ROOT } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';

const EXAMPLE = [
  'diff',
  '--state',
  path.join(ROOT, 'examples', 'diff', 'state.yaml'),
  '--values',
  path.join(ROOT, 'examples', 'platform', 'values.yaml'),
  '-f',
  path.join(ROOT, 'examples', 'diff', 'alice-gateway.yaml'),
];

describe('diff -o markdown --comment-dir', () => {
  const dir = tmpDir('comment-dir');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("writes every part within --comment-limit, removes an earlier run's parts and nothing else, says where", async () => {
    const out = path.join(dir, 'comments');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'comment-99.md'), 'stale');
    fs.writeFileSync(path.join(out, 'notes.md'), 'mine');
    const r = await runCli([...EXAMPLE, '-o', 'markdown', '--comment-dir', 'comments', '--comment-limit', '4096'], {
      cwd: dir,
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    const files = fs.readdirSync(out).sort();
    expect(files).toContain('notes.md');
    expect(files).not.toContain('comment-99.md');
    const parts = files.filter((f) => /^comment-\d+\.md$/.test(f));
    expect(parts.length).toBeGreaterThan(2);
    expect(parts[0]).toBe('comment-01.md');
    for (const [i, f] of parts.entries()) {
      const text = fs.readFileSync(path.join(out, f), 'utf8');
      expect({
        part: f,
        length: text.length <= 4096,
        marker: text.startsWith(`<!-- cozy-gw diff comment ${i + 1}/${parts.length} -->`),
      }).toEqual({
        part: f,
        length: true,
        marker: true,
      });
    }
    expect(r.stderr).toContain(`note: the comment is in ${parts.length} parts: comments/comment-01.md`);
  });

  it("a run that fails (exit 1) leaves no earlier run's part behind to be posted, and nothing else goes", async () => {
    const out = path.join(dir, 'failing');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'comment-01.md'), '<!-- cozy-gw diff comment 1/1 -->\nthe previous run');
    fs.writeFileSync(path.join(out, 'notes.md'), 'mine');
    // Without --values carol's gatewayClass is refused: the run stops with exit 1.
    const failing = EXAMPLE.filter((a, i) => a !== '--values' && EXAMPLE[i - 1] !== '--values');
    const r = await runCli([...failing, '-o', 'markdown', '--comment-dir', 'failing'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(fs.readdirSync(out).sort()).toEqual(['notes.md']);
  });

  it('usage errors: --comment-dir without -o markdown, an empty one, a limit too small, a limit without --comment-dir', async () => {
    for (const args of [
      ['--comment-dir', 'x'],
      ['-o', 'markdown', '--comment-dir', ''],
      ['-o', 'markdown', '--comment-dir', 'x', '--comment-limit', '100'],
      ['-o', 'markdown', '--comment-limit', '5000'],
    ]) {
      const r = await runCli([...EXAMPLE, ...args], { cwd: dir });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
  });
});

describe('diff -o html', () => {
  it('one self-contained page: a CSP that allows nothing external, no URL anywhere it could load, no Secret material', async () => {
    const r = await runCli([...EXAMPLE, '-o', 'html']);
    expect(r.code).toBe(3);
    const page = r.stdout;
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1];
    expect(csp).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; script-src 'sha256-[A-Za-z0-9+/=]+';/,
    );
    expect(page).not.toMatch(/(src|href)="(?!#)/);
    // A URL from input (an ACME server in a diff) is text, never a link or a source.
    expect(page).toContain('server: https://acme-v02');
    expect(page).not.toMatch(/<a [^>]*href="[^#]/);
    expect(page).not.toMatch(/@import|url\(/);
    // The example's Secrets: the values channel is configuration and shown; no key material at all.
    expect(page).not.toMatch(/tls\.key|BEGIN [A-Z ]*PRIVATE KEY/);
  });
});

describe('diff -o html: the "publishes through" arcs', () => {
  /** Each arc of one layout's SVG: where it starts and ends, how far it bulges, and whether an arrowhead ends it. */
  function arcs(page: string, layout: 'wide' | 'narrow') {
    const svg = new RegExp(`<svg class="tree ${layout}"[^>]*>(.*?)</svg>`).exec(page)?.[1] ?? '';
    const heads = [...svg.matchAll(/<path d="M(\d+) (\d+)l-6 -3\.5v7z" class="pub[^"]*head"\/>/g)].map((m) =>
      Number(m[2]),
    );
    return [...svg.matchAll(/<path d="M(\d+) (\d+)C(\d+) \d+ \d+ (\d+) \d+ \d+" class="pub[^"]*"\/>/g)].map((m) => ({
      y1: Number(m[2]),
      y2: Number(m[4]),
      bulge: Number(m[1]) - Number(m[3]),
      head: heads.includes(Number(m[4])),
    }));
  }

  it('stand out of the margin, nest without drawing one line, end in an arrowhead at the publisher; in the narrow layout each is more than a row high', async () => {
    const page = (await runCli([...EXAMPLE, '-o', 'html'])).stdout;
    const wide = arcs(page, 'wide');
    // tenant-alice-dev and tenant-alice-dev-ci publish through tenant-alice, tenant-bob-shop through tenant-bob.
    expect(wide).toHaveLength(3);
    expect(wide.filter((a) => a.bulge < 14 || !a.head)).toEqual([]);
    const toAlice = wide.filter((a) => a.y2 === Math.min(...wide.map((x) => x.y2)));
    expect(toAlice).toHaveLength(2);
    const [near, far] = [...toAlice].sort((a, b) => a.y1 - b.y1);
    expect(far.bulge).toBeGreaterThan(near.bulge);
    const narrow = arcs(page, 'narrow');
    expect(narrow).toHaveLength(3);
    expect(narrow.filter((a) => Math.abs(a.y1 - a.y2) <= 22)).toEqual([]);
  });
});
