/**
 * `cozy-gw post-render` (src/protocols/postRender.ts, src/cli/commands/post-render.ts, plugin.yaml): the Helm
 * post-renderer. Tested in-process and by piping manifests through the built CLI, as Helm 3
 * (`--post-renderer PATH`) and Helm 4 (the postrenderer/v1 plugin's platformCommand) run it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jsyaml from 'js-yaml';
import * as fc from 'fast-check';
import { HELM_FILENAME_ANNOTATION, joinStreams, postRender } from '../../src/protocols/postRender';
import { GENERATED_ANNOTATION } from '../../src/protocols/krm';
import { keyOf, type KObject } from '../../src/k8s/model';
import * as postRenderCommand from '../../src/cli/commands/post-render';
import { ensureBuilt, ROOT, runCommand, runProcess, tmpDir, writeWrapper } from '../helpers/kpt';

const NOW = '2026-01-01T00:00:00Z';
const OPTS = { values: [], now: NOW, includeSecretData: false };

const TGW = `# Source: gateway/templates/tenantgateway.yaml
apiVersion: gateway.cozystack.io/v1alpha1
kind: TenantGateway
metadata:
  name: cozystack
  namespace: tenant-root
  annotations:
    postrenderer.helm.sh/postrender-filename: 'gateway/templates/tenantgateway.yaml'
spec:
  apex: example.org
  gatewayClassName: cilium
  certMode: http01
  issuerName: letsencrypt-prod
  attachedNamespaces: [cozy-cert-manager, default]
  tlsPassthroughServices: [api]
`;
const CM = `# Source: gateway/templates/notes.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: notes   # odd spacing kept
  namespace: tenant-root
  annotations:
    postrenderer.helm.sh/postrender-filename: "gateway/templates/notes.yaml"
data:
  a: "yes"
  b:   'on'
`;
const STREAM = `---\n${TGW}---\n${CM}`;

const docs = (s: string) => (jsyaml.loadAll(s) as KObject[]).filter(Boolean);
const find = (objs: KObject[], kind: string, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata.name === name);

describe('postRender', () => {
  it("writes the input first, byte for byte, then the controller's objects for the TenantGateway", () => {
    const r = postRender(STREAM, OPTS);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.startsWith(STREAM)).toBe(true);
    const added = docs(r.stdout.slice(STREAM.length));
    expect(added.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      expect.arrayContaining(['Gateway/cozystack', 'Issuer/cozystack-gateway', 'HTTPRoute/cozystack-http-redirect']),
    );
    for (const o of added) expect(o.metadata.annotations?.[GENERATED_ANNOTATION]).toBe('true');
  });

  it('every input annotation is kept; under Helm 4 (filename annotations present) the new objects get a filename too', () => {
    const r = postRender(STREAM, OPTS);
    const all = docs(r.stdout);
    expect(find(all, 'ConfigMap', 'notes')!.metadata.annotations![HELM_FILENAME_ANNOTATION]).toBe(
      'gateway/templates/notes.yaml',
    );
    expect(find(all, 'Gateway', 'cozystack')!.metadata.annotations![HELM_FILENAME_ANNOTATION]).toBe(
      'cozy-gw/tenant-root/gateway-cozystack.yaml',
    );
    // Helm 3 gives no filename annotations: none is invented.
    const h3 = postRender(
      STREAM.replace(/\n\s*postrenderer\.helm\.sh\/postrender-filename:.*\n/g, '\n').replace(
        /annotations:\n(?=spec|data)/g,
        '',
      ),
      OPTS,
    );
    expect(h3.exitCode).toBe(0);
    expect(h3.stdout).not.toContain(HELM_FILENAME_ANNOTATION);
  });

  it("the input TenantGateway is not rewritten (its status is the cluster's business), nor duplicated", () => {
    const all = docs(postRender(STREAM, OPTS).stdout);
    expect(all.filter((o) => o.kind === 'TenantGateway')).toHaveLength(1);
    expect(find(all, 'TenantGateway', 'cozystack')!.status).toBeUndefined();
  });

  it('a stream without a TenantGateway comes out exactly as it went in', () => {
    const s = `# Source: app/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: tenant-alice}\nspec:\n  ports: [{port: 80}]\n`;
    expect(postRender(s, OPTS)).toEqual({ stdout: s, findings: [], exitCode: 0 });
  });

  it('never empty output: an empty stream is an error, with nothing on stdout', () => {
    const r = postRender('\n  \n', OPTS);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.findings[0].message).toMatch(/no manifests/);
  });

  it('manifests that are not YAML: exit 1, the file and line named, nothing on stdout', () => {
    const r = postRender('apiVersion: v1\nkind: [\n', OPTS);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.findings[0]).toMatchObject({ file: '<stdin>', severity: 'error' });
  });

  it('a TenantGateway the controller refuses: a warning naming it (its Ready=False), the input still goes out first', () => {
    const bad = STREAM.replace('issuerName: letsencrypt-prod', 'issuerName: my-own-acme');
    const r = postRender(bad, OPTS);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.startsWith(bad)).toBe(true);
    const w = r.findings.find((f) => /unsupported issuerName "my-own-acme"/.test(f.message))!;
    expect(w).toMatchObject({ severity: 'warning' });
    expect(
      docs(r.stdout)
        .filter((o) => o.kind === 'Issuer')
        .map(keyOf),
    ).toEqual([]);
  });

  it('joinStreams: a separator only where one is needed, a newline added where the input lacks it', () => {
    expect(joinStreams('a: 1', 'b: 2\n')).toBe('a: 1\n---\nb: 2\n');
    expect(joinStreams('a: 1\n---\n', 'b: 2\n')).toBe('a: 1\n---\nb: 2\n');
    expect(joinStreams('a: 1\n', 'b: 2\n')).toBe('a: 1\n---\nb: 2\n');
  });

  it('property: whatever documents without a TenantGateway come in go out byte for byte', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            name: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
            data: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), scalar, { maxKeys: 4 }),
          }),
          { minLength: 1, maxLength: 4, selector: (c) => c.name },
        ),
        (cms) => {
          const text = cms
            .map((c) => jsyaml.dump({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: c.name }, data: c.data }))
            .join('---\n');
          const r = postRender(text, OPTS);
          expect(r.exitCode).toBe(0);
          expect(r.stdout).toBe(text);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('cozy-gw post-render (command)', () => {
  it('reads --values and --now, writes the manifests on stdout and nothing else', async () => {
    const dir = tmpDir('pr');
    fs.writeFileSync(path.join(dir, 'values.yaml'), 'publishing: {host: example.org}\ngateway: {enabled: true}\n');
    const r = await runCommand(postRenderCommand, ['post-render', '--values', 'values.yaml', '--now', NOW], {
      stdin: STREAM,
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(STREAM)).toBe(true);
    const bad = await runCommand(postRenderCommand, ['post-render', '--now', 'tomorrow'], { stdin: STREAM });
    // a malformed flag value is a usage error, worded as render's and reconcile's (one --now parser)
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--now <time>.*"tomorrow" is not an RFC 3339 time \(e\.g\. 2026-01-01T00:00:00Z\)/);
  });
});

describe('piping manifests through the built CLI (Helm 3 executable, Helm 4 plugin)', () => {
  beforeAll(() => ensureBuilt(), 240_000);

  it('Helm 3: --post-renderer PATH runs an executable with the manifests on stdin', () => {
    const wrapper = writeWrapper(path.join(tmpDir('helm3'), 'cozy-gw-post-render'), ['post-render']);
    const r = runProcess(wrapper, ['--now', NOW], { input: STREAM });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(STREAM)).toBe(true);
    expect(r.stdout).toMatch(/kind: Gateway\n/);
    const empty = runProcess(wrapper, [], { input: '' });
    expect(empty.code).toBe(1);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toMatch(/error: no manifests on standard input/);
  });

  it('Helm 4: plugin.yaml is a postrenderer/v1 subprocess plugin whose platformCommand post-renders', () => {
    const plugin = jsyaml.load(fs.readFileSync(path.join(ROOT, 'plugin.yaml'), 'utf8')) as Record<string, unknown>;
    expect(plugin).toMatchObject({ apiVersion: 'v1', type: 'postrenderer/v1', name: 'cozy-gw', runtime: 'subprocess' });
    expect(typeof plugin.version).toBe('string');
    const cmds = (plugin.runtimeConfig as { platformCommand: { command: string; args?: string[]; os?: string }[] })
      .platformCommand;
    const cmd = cmds.find((c) => !c.os)!;
    // Run it as Helm does: HELM_PLUGIN_DIR expanded in the command, manifests on stdin.
    const exe = cmd.command.replace(/\$\{HELM_PLUGIN_DIR\}|\$HELM_PLUGIN_DIR/g, ROOT);
    expect(fs.statSync(exe).mode & 0o111).not.toBe(0);
    const r = runProcess(exe, [...(cmd.args ?? []), '--now', NOW], { input: STREAM, env: { HELM_PLUGIN_DIR: ROOT } });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(STREAM)).toBe(true);
    expect(r.stdout).toContain(`${HELM_FILENAME_ANNOTATION}: cozy-gw/tenant-root/gateway-cozystack.yaml`);
  });
});
