/**
 * One escaping rule for everything printed for a reader (src/k8s/printable.ts, docs/decisions.md §13): a route
 * name, a hostname or a condition message from a pull request can neither forge a line of a plan,
 * a unified diff or a note (`  + create Gateway evil/evil`) nor hide text with escape sequences or
 * bidirectional overrides. JSON keeps the values as they are.
 */
import * as path from 'node:path';
import { escapeControl, printable, textOf, ECHO_LIMIT } from '../../src/k8s/printable';
import { ROOT, useScratch } from '../helpers/cli';

const FORGED = '  + create Gateway evil/evil';
/** Characters that must never reach a reader raw. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

describe('escapeControl', () => {
  it.each([
    ['a\nb', 'a\\nb'],
    ['a\rb', 'a\\rb'],
    ['\u001b[31mred', '\\e[31mred'],
    ['tab\tx', 'tab\\tx'],
    ['rtl\u202eevil', 'rtl\\u202eevil'],
    ['zero\u200bwidth', 'zero\\u200bwidth'],
    ['nel\u0085x', 'nel\\u0085x'],
    ['bom\ufeffx', 'bom\\ufeffx'],
    ['plain tenant-root/cozystack é 🙂', 'plain tenant-root/cozystack é 🙂'],
  ])('%j prints as %j', (raw, shown) => {
    expect(escapeControl(raw)).toBe(shown);
  });
  it('is idempotent', () => {
    const once = escapeControl('x\n\u001b\u202e');
    expect(escapeControl(once)).toBe(once);
  });
  it('printable also cuts a long run; textOf keeps every line whole', () => {
    const long = 'x'.repeat(ECHO_LIMIT + 10);
    expect(printable(long)).toBe(`${'x'.repeat(ECHO_LIMIT)}…(10 more characters)`);
    expect(textOf([long, 'a\nb'])).toBe(`${long}\na\\nb\n`);
  });
});

const VALUES = path.join(ROOT, 'examples/platform/values.yaml');
const TENANTS = path.join(ROOT, 'examples/platform/tenants');
const STATE = path.join(ROOT, 'examples/diff/state.yaml');
/** The version the example's state was written for (its header): the default, not the suite's main. */
const STATE_VERSION = ['--cozystack-version', 'v1.6.2'];
const NOW = '2026-01-01T00:00:00Z';

/** A route whose name and hostname carry a forged plan line, an escape sequence and an override. */
const EVIL_ROUTE = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: "x\\n${FORGED}\\u001b[8m"
  namespace: tenant-root
spec:
  parentRefs:
    - name: cozystack
      namespace: tenant-root
  hostnames:
    - "a.example.org\\n${FORGED}2\\u202e"
    - "b.example.org"
`;

/** Every line that a reader could take for one the tool wrote about an evil object. */
function forgedLines(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(FORGED) || RAW.test(l));
}

describe('a forged name or hostname stays on its line in every reader output', () => {
  const s = useScratch('cozy-gw-printable-', { 'evil.yaml': EVIL_ROUTE });

  it('reconcile -o plan', async () => {
    const rendered = await s.cli(['render', '--values', VALUES, '-f', TENANTS]);
    s.write('rendered.yaml', rendered.stdout);
    const r = await s.cli([
      'reconcile',
      '--values',
      VALUES,
      '-f',
      'rendered.yaml',
      '-f',
      'evil.yaml',
      '-o',
      'plan',
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`HTTPRoute tenant-root/x\\n${FORGED}\\e[8m`);
    expect(r.stdout).toContain(`a.example.org\\n${FORGED}2\\u202e`);
    expect(forgedLines(r.stdout)).toEqual([]);
  });

  it.each([['plan'], ['diff']])('diff -o %s', async (format) => {
    const r = await s.cli([
      'diff',
      ...STATE_VERSION,
      '--state',
      STATE,
      '--values',
      VALUES,
      '-f',
      'evil.yaml',
      '-o',
      format,
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`HTTPRoute tenant-root/x\\n${FORGED}\\e[8m`);
    expect(forgedLines(r.stdout)).toEqual([]);
    expect(forgedLines(r.stderr)).toEqual([]);
  });

  it('diff -o json keeps the values as they are', async () => {
    const r = await s.cli([
      'diff',
      ...STATE_VERSION,
      '--state',
      STATE,
      '--values',
      VALUES,
      '-f',
      'evil.yaml',
      '-o',
      'json',
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as { created: { metadata: { name: string } }[] };
    expect(doc.created.map((o) => o.metadata.name)).toContain(`x\n${FORGED}\u001b[8m`);
  });

  it('notes on stderr: the objects a pass deletes', async () => {
    // A per-listener Certificate no route claims any more is garbage-collected: the note names it.
    s.write(
      'cert.yaml',
      `apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: "c\\n${FORGED}"
  namespace: tenant-bob
  labels:
    cozystack.io/managed-by: cozystack-controller
    cozystack.io/tenantgateway: cozystack
    cozystack.io/per-listener-cert: "true"
spec:
  secretName: evil-tls
  issuerRef: {kind: Issuer, name: cozystack-gateway}
  dnsNames: [gone.customer1.io]
`,
    );
    const r = await s.cli([
      'reconcile',
      ...STATE_VERSION,
      '--values',
      VALUES,
      '-f',
      STATE,
      '-f',
      'cert.yaml',
      '--now',
      NOW,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`note: the pass deletes 1 object: Certificate tenant-bob/c\\n${FORGED}`);
    expect(forgedLines(r.stderr)).toEqual([]);
  });
});
