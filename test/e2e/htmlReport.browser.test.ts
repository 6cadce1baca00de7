/// <reference lib="dom" />
/**
 * `diff -o html` in a real browser (headless Chromium through puppeteer-core;
 * docs/commands/diff.md): the example change's
 * page loads with no console error and no request besides itself, shows every changed hostname and
 * namespace, its filter hides and shows sections, it reads the same with scripts off, and a
 * screenshot is kept (out/test-artifacts/, ignored by git). The picture the README and
 * docs/commands/diff.md show (docs/report.png) is that screenshot: it records the counts of the
 * page it was taken of, and this test fails when the page says other counts
 * (`UPDATE_DOCS=1 npx jest test/e2e/htmlReport.browser` takes it again). At 420 pixels the page
 * still reads: no sideways scrolling, the tree in its narrow layout, the hostname rows stacked. A
 * page of hostile names runs nothing. Skipped, visibly, where Chromium is not installed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { EXAMPLE_DIFF, runCli, ROOT } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';
import { skippedTitle } from '../helpers/skip';
import { chromiumPath, launchChromium } from '../helpers/chromium';
import { pngText, withPngText } from '../helpers/png';
import { diff } from '../../src/diff/diff';
import { htmlReport } from '../../src/reports/htmlReport';
import type { KObject } from '../../src/k8s/model';

const ARTIFACTS = path.join(ROOT, 'out', 'test-artifacts');
/** The picture of the example's page the README and docs/commands/diff.md show. */
const PICTURE = path.join(ROOT, 'docs', 'report.png');
/** The text chunk of the picture that records the counts of the page it shows. */
const PICTURE_KEY = 'cozy-gw-report';
const EXAMPLE = EXAMPLE_DIFF;
/** The README tour's change: the repository `cozy-gw init` writes, its tree rendered, alice given her own Gateway. */
const TOUR = ['diff', '--state', 'deploy/platform', '--values', 'platform/values.yaml', '-f', 'platform/tenants'];

/** The tour's repository under `dir`, as its steps 0 to 3 leave it; returns its path. */
async function tourRepository(dir: string): Promise<string> {
  const repo = path.join(dir, 'my-platform');
  expect((await runCli(['init', repo])).code).toBe(0);
  const tree = await runCli(
    ['render', '--values', 'platform/values.yaml', '-f', 'platform/tenants', '--output-dir', 'deploy/platform'],
    { cwd: repo },
  );
  expect(tree.code).toBe(0);
  const alice = path.join(repo, 'platform', 'tenants', 'alice.yaml');
  fs.writeFileSync(alice, fs.readFileSync(alice, 'utf8').replace('gateway: false', 'gateway: true'));
  return repo;
}

interface Watched {
  page: Page;
  requests: string[];
  problems: string[];
}

/** A page that records every request it makes and every console error, dialog and uncaught error. */
async function open(browser: Browser, file: string, scripts = true): Promise<Watched> {
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(scripts);
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  return { page, requests, problems };
}

const visible = (page: Page, selector: string) =>
  page.$$eval(selector, (els) =>
    els
      .filter((e) => (e as HTMLElement).offsetParent !== null)
      .map((e) => e.getAttribute('data-ns') ?? e.getAttribute('data-kind') ?? ''),
  );

const CHROMIUM = chromiumPath();

if (!CHROMIUM) {
  describe(
    skippedTitle('diff -o html in headless Chromium', 'needs chromium: not installed (apt-get install chromium)'),
    () => {
      it.skip('the example page and the hostile page', () => undefined);
    },
  );
} else {
  describe('diff -o html in headless Chromium', () => {
    let browser: Browser;
    let close: () => Promise<void>;
    const dir = tmpDir('html-report');
    beforeAll(async () => {
      ({ browser, close } = await launchChromium());
    }, 60_000);
    afterAll(async () => {
      await close?.();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("the tour's change: no console error, no request, every changed hostname and namespace, a working filter, a screenshot", async () => {
      const repo = await tourRepository(dir);
      const html = await runCli([...TOUR, '-o', 'html'], { cwd: repo });
      expect({ code: html.code, stderr: html.stderr }).toEqual({ code: 3, stderr: expect.any(String) });
      const json = JSON.parse((await runCli([...TOUR, '-o', 'json'], { cwd: repo })).stdout) as {
        created: KObject[];
        changed: { after: KObject }[];
        deleted: KObject[];
        hostnames: { hostname: string; change: string }[];
      };
      const file = path.join(dir, 'example.html');
      fs.writeFileSync(file, html.stdout);
      const { page, requests, problems } = await open(browser, file);
      expect(problems).toEqual([]);
      expect(requests).toEqual([`file://${file}`]);

      const tableText = await page.$eval('#hostnames table', (t) => (t as HTMLElement).innerText);
      const changedHosts = json.hostnames.filter((h) => h.change !== 'none').map((h) => h.hostname);
      expect(changedHosts.length).toBeGreaterThan(0);
      for (const h of changedHosts)
        expect({ hostname: h, shown: tableText.includes(h) }).toEqual({ hostname: h, shown: true });

      const objects = [...json.created, ...json.changed.map((c) => c.after), ...json.deleted];
      const namespaces = [
        ...new Set(
          objects.map((o) => o.metadata.namespace ?? (o.kind === 'Namespace' ? o.metadata.name : '(cluster-scoped)')),
        ),
      ].sort();
      const sections = await visible(page, 'section.ns');
      expect([...sections].sort()).toEqual(namespaces);
      const summaries = await page.$$eval('details.obj > summary', (s) => s.map((x) => (x as HTMLElement).innerText));
      for (const o of objects) {
        const name = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
        expect({ object: name, shown: summaries.some((s) => s.startsWith(name)) }).toEqual({
          object: name,
          shown: true,
        });
      }
      // Each diff shown line by line: the first object's diff, headed by its name, then its lines.
      const firstDiff = await page.$eval('pre.diff', (p) => (p as HTMLElement).innerText.split('\n'));
      expect(firstDiff.length).toBeGreaterThan(5);
      expect(firstDiff.filter((l) => l.includes('\\n'))).toEqual([]);
      // The tree: every tenant of the example, alice's subtree marked as changed.
      const treeText = await page.$eval('svg.tree', (s) => s.textContent ?? '');
      for (const t of ['tenant-root', 'tenant-alice', 'tenant-alice-dev', 'tenant-bob', 'tenant-carol'])
        expect({ tenant: t, drawn: treeText.includes(t) }).toEqual({ tenant: t, drawn: true });
      expect(await page.$$eval('svg.tree .n.changed', (n) => n.length)).toBeGreaterThan(0);

      // The filter: one namespace, then one kind, then everything again.
      expect(await page.$eval('#filter', (f) => (f as HTMLElement).hidden)).toBe(false);
      const one = namespaces[0];
      await page.select('#f-ns', one);
      expect(await visible(page, 'section.ns')).toEqual([one]);
      await page.select('#f-ns', '');
      const kind = objects.find((o) => o.kind === 'Issuer') ? 'Issuer' : objects[0].kind;
      await page.select('#f-kind', kind);
      const kinds = await visible(page, 'details.obj');
      expect(kinds.length).toBeGreaterThan(0);
      expect(kinds.filter((k) => k !== kind)).toEqual([]);
      expect((await visible(page, 'section.ns')).length).toBeLessThan(namespaces.length);
      await page.select('#f-kind', '');
      await page.select('#f-change', 'delete');
      expect((await visible(page, 'details.obj')).length).toBe(json.deleted.length);
      await page.click('#filter button[type=reset]');
      await page.waitForFunction(
        (n) => document.querySelectorAll('details.obj:not([hidden])').length === n,
        {},
        objects.length,
      );
      expect((await visible(page, 'section.ns')).length).toBe(namespaces.length);
      expect(problems).toEqual([]);

      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.setViewport({ width: 1280, height: 900 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-example.png') as `${string}.png`, fullPage: false });
      expect(fs.statSync(path.join(ARTIFACTS, 'report-example.png')).size).toBeGreaterThan(10_000);
      // The docs' picture is this screenshot: it shows what the page says, or it is taken again.
      const counts = await page.$eval('#counts', (c) => (c as HTMLElement).innerText.trim());
      if (process.env.UPDATE_DOCS)
        fs.writeFileSync(
          PICTURE,
          withPngText(fs.readFileSync(path.join(ARTIFACTS, 'report-example.png')), PICTURE_KEY, counts),
        );
      const shown = pngText(fs.readFileSync(PICTURE))[PICTURE_KEY];
      if (shown !== counts)
        throw new Error(
          `docs/report.png shows a page that says "${shown ?? '(nothing recorded)'}", the page now says "${counts}": take it again with UPDATE_DOCS=1 npx jest test/e2e/htmlReport.browser`,
        );
      await page.close();

      // Scripts off: every section shown, the filter (the script's only work) hidden, nothing breaks.
      const off = await open(browser, file, false);
      expect(off.problems).toEqual([]);
      expect((await visible(off.page, 'section.ns')).sort()).toEqual(namespaces);
      expect(await off.page.$eval('#filter', (f) => (f as HTMLElement).hidden)).toBe(true);
      await off.page.close();
    }, 120_000);

    it('reads at 420 pixels: no sideways scrolling, the narrow tree within its figure with every tenant, the hostname rows stacked, the legend within the page', async () => {
      const html = await runCli([...EXAMPLE, '-o', 'html'], { cwd: ROOT });
      const file = path.join(dir, 'narrow.html');
      fs.writeFileSync(file, html.stdout);
      const { page, problems } = await open(browser, file);
      await page.setViewport({ width: 420, height: 900 });
      const m = await page.evaluate(() => {
        const svgs = Array.from(document.querySelectorAll('svg.tree')).filter(
          (e) => e.getBoundingClientRect().width > 0,
        );
        return {
          scrollWidth: document.documentElement.scrollWidth,
          trees: svgs.map((e) => ({
            layout: e.getAttribute('class'),
            width: e.getBoundingClientRect().width,
            room: (e.parentElement as HTMLElement).clientWidth,
            text: e.textContent ?? '',
          })),
          cells: Array.from(document.querySelectorAll('#hostnames td')).map((e) =>
            Math.round(e.getBoundingClientRect().width),
          ),
          legend: Array.from(document.querySelectorAll('.legend span')).map((e) =>
            Math.round(e.getBoundingClientRect().right),
          ),
        };
      });
      expect(m.scrollWidth).toBeLessThanOrEqual(420);
      expect(m.trees.map((t) => [t.layout, t.width <= t.room])).toEqual([['tree narrow', true]]);
      for (const t of ['tenant-root', 'tenant-alice', 'tenant-alice-dev-ci', 'tenant-bob-shop', 'tenant-carol'])
        expect({ tenant: t, drawn: m.trees[0].text.includes(t) }).toEqual({ tenant: t, drawn: true });
      // Every text of the narrow tree within its width (the layout wraps what a tenant is under its name).
      expect(m.cells.length).toBeGreaterThan(0);
      expect(m.cells.filter((w) => w < 300)).toEqual([]);
      expect(m.legend.filter((r) => r > 420)).toEqual([]);
      // At a desktop's width the wide layout is the one shown.
      await page.setViewport({ width: 1280, height: 900 });
      expect(
        await page.$$eval('svg.tree', (s) =>
          s.filter((e) => e.getBoundingClientRect().width > 0).map((e) => e.getAttribute('class')),
        ),
      ).toEqual(['tree wide']);
      expect(problems).toEqual([]);
      await page.close();
    }, 120_000);

    it('the legend tells a tenant that changes from one whose objects change, in words and colour; the page says which clock its times are', async () => {
      const html = await runCli([...EXAMPLE, '-o', 'html'], { cwd: ROOT });
      const file = path.join(dir, 'legend.html');
      fs.writeFileSync(file, html.stdout);
      const { page } = await open(browser, file);
      const legend = await page.$$eval('.legend span', (ls) =>
        ls.map((l) => {
          const sw = l.querySelector('i');
          return { text: (l as HTMLElement).innerText.trim(), colour: sw ? getComputedStyle(sw).backgroundColor : '' };
        }),
      );
      const changed = legend.find((l) => /itself changes/.test(l.text))!;
      const objects = legend.find((l) => /only objects/.test(l.text))!;
      expect(changed.text).not.toMatch(/objects/);
      expect(objects.text).not.toMatch(/itself/);
      expect(changed.colour).not.toBe(objects.colour);
      expect(await page.$eval('p.clock', (p) => (p as HTMLElement).innerText)).toMatch(
        /^Clock: 1970-01-01T00:00:00Z, the reproducible default \(neither --now nor SOURCE_DATE_EPOCH was given\)/,
      );
      await page.close();
      const timed = await runCli([...EXAMPLE, '-o', 'html', '--now', '2026-01-01T00:00:00Z'], { cwd: ROOT });
      expect(timed.stdout).toContain('Clock: 2026-01-01T00:00:00Z (--now or SOURCE_DATE_EPOCH)');
    }, 120_000);

    it('a page of hostile names runs nothing, loads nothing and shows the names as text', async () => {
      const hostile = [
        '<script>window.__pwned=1</script>',
        '"><img src=x onerror="window.__pwned=2">',
        "'><svg onload=window.__pwned=3>",
        '[click](javascript:window.__pwned=4)',
        'javascript:window.__pwned=5',
        'abc\u202edcba\u2066x',
      ];
      const cm = (ns: string, name: string, v: string): KObject => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: ns, labels: { app: v } },
        data: { link: v, html: `<a href="javascript:window.__pwned=6">x</a>${v}` },
      });
      const nsObj = (name: string): KObject => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name,
          labels: {
            'tenant.cozystack.io/tenant-root': '',
            [`tenant.cozystack.io/${name}`]: '',
            'namespace.cozystack.io/gateway': hostile[1],
          },
        },
      });
      const d = diff(
        {
          state: [nsObj('tenant-root'), ...hostile.map((h, i) => cm(h, `${h}-${i}`, 'old'))],
          objects: [nsObj(`tenant-${hostile[2]}`), ...hostile.map((h, i) => cm(h, `${h}-${i}`, h))],
          valuesFiles: [],
        },
        { now: '2026-01-01T00:00:00Z' },
      );
      const page0 = htmlReport(d, {
        findings: hostile.map((h) => ({ severity: 'warning' as const, message: h, file: `${h}.yaml`, line: 3 })),
        rerun: `cozy-gw diff -f '${hostile[0]}'`,
      });
      // No markup from input at all, before any browser reads it.
      for (const h of hostile.filter((x) => /[<>"'\u202e]/.test(x)))
        expect({ name: h, raw: page0.includes(h) }).toEqual({ name: h, raw: false });
      expect(page0.match(/<script/g)).toHaveLength(1);
      expect(page0).not.toMatch(/<(img|svg onload|a href="j)/i);
      expect(page0).not.toMatch(/(src|href)="(?!#)/);
      expect(page0).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      const file = path.join(dir, 'hostile.html');
      fs.writeFileSync(file, page0);
      const { page, requests, problems } = await open(browser, file);
      expect(problems).toEqual([]);
      expect(requests).toEqual([`file://${file}`]);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.$$eval('script', (s) => s.length)).toBe(1);
      expect(await page.$$eval('img', (s) => s.length)).toBe(0);
      expect(
        await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href')).filter((h) => !h!.startsWith('#'))),
      ).toEqual([]);
      const handlers = await page.evaluate(() =>
        Array.from(document.querySelectorAll('*')).flatMap((e) =>
          Array.from(e.attributes)
            .filter((a) => /^on/i.test(a.name))
            .map((a) => `${e.tagName} ${a.name}`),
        ),
      );
      expect(handlers).toEqual([]);
      const text = await page.evaluate(() => document.body.innerText);
      for (const h of hostile.slice(0, 5))
        expect({ name: h, shown: text.includes(h) }).toEqual({ name: h, shown: true });
      // The filter still works with hostile values (it compares attributes, never writes HTML).
      await page.select('#f-ns', hostile[0]);
      expect(await visible(page, 'section.ns')).toEqual([hostile[0]]);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(problems).toEqual([]);
      await page.close();
    }, 120_000);
  });
}
