/// <reference lib="dom" />
/**
 * `diff -o html` in a real browser (headless Chromium through puppeteer-core;
 * docs/commands/diff.md): the example change's
 * page loads with no console error and no request besides itself, shows every changed hostname and
 * namespace, its filter hides and shows sections, it reads the same with scripts off, and a
 * screenshot is kept (out/test-artifacts/, ignored by git). A page of hostile names runs nothing.
 * Skipped, visibly, where Chromium is not installed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { EXAMPLE_DIFF, runCli, ROOT } from '../helpers/cli';
import { tmpDir } from '../helpers/kpt';
import { skippedTitle } from '../helpers/skip';
import { chromiumPath, launchChromium } from '../helpers/chromium';
import { diff } from '../../src/diff/diff';
import { htmlReport } from '../../src/reports/htmlReport';
import type { KObject } from '../../src/k8s/model';

const ARTIFACTS = path.join(ROOT, 'out', 'test-artifacts');
const EXAMPLE = EXAMPLE_DIFF;

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

    it('the example change: no console error, no request, every changed hostname and namespace, a working filter, a screenshot', async () => {
      const html = await runCli([...EXAMPLE, '-o', 'html'], { cwd: ROOT });
      expect({ code: html.code, stderr: html.stderr }).toEqual({ code: 3, stderr: expect.any(String) });
      const json = JSON.parse((await runCli([...EXAMPLE, '-o', 'json'], { cwd: ROOT })).stdout) as {
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
      await page.close();

      // Scripts off: every section shown, the filter (the script's only work) hidden, nothing breaks.
      const off = await open(browser, file, false);
      expect(off.problems).toEqual([]);
      expect((await visible(off.page, 'section.ns')).sort()).toEqual(namespaces);
      expect(await off.page.$eval('#filter', (f) => (f as HTMLElement).hidden)).toBe(true);
      await off.page.close();
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
