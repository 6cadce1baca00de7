/**
 * `diff` against live objects as Flux's server-side apply treats them (docs/commands/diff.md "A
 * live snapshot is compared as it will be applied"), at the CLI: an atomic list narrowed is a
 * change; a field the manifests stop setting goes only where the applier owned it alone; what the
 * kubectl managers wrote is taken back and shown; what controllers and other appliers wrote stays
 * and is not shown. The live objects are dressed as the API server returns them
 * (test/helpers/apiServer.ts) and drifted by other managers (test/helpers/ssaModel.ts `written`).
 */
import * as jsyaml from 'js-yaml';
import { useScratch } from '../helpers/cli';
import { liveCluster } from '../helpers/apiServer';
import { fieldPath, unionFields, written } from '../helpers/ssaModel';
import type { KObject } from '../../src/k8s/model';

const scratch = useScratch('cozy-gw-live-apply-');
const NOW = ['--now', '2026-01-01T00:00:00Z'];

/** A tenant's NetworkPolicy as the tree sets it: web pods admit alice's namespaces on 443. */
const policy = (): KObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'allow-web', namespace: 'tenant-alice', labels: { app: 'web', team: 'a' } },
  spec: {
    podSelector: { matchLabels: { app: 'web' } },
    ingress: [{ from: [{ namespaceSelector: { matchLabels: { tenant: 'alice' } } }], ports: [{ port: 443 }] }],
  },
});

const [live] = liveCluster([policy()], [policy()]);
const dump = (objs: KObject[]) => objs.map((o) => jsyaml.dump(o)).join('---\n');

/** diff of `change` against the live state `state`. */
async function diffOf(state: KObject[], change: KObject) {
  scratch.write('state.yaml', dump(state));
  scratch.write('change.yaml', dump([change]));
  return scratch.cli(['diff', '--state', 'state.yaml', '-f', 'change.yaml', ...NOW]);
}

describe('diff applies a change over a live object as Flux server-side apply does', () => {
  it('the manifest as applied: exit 0 (what the server defaulted inside the atomic list is no change)', async () => {
    expect((live.spec as { ingress: { ports: unknown[] }[] }).ingress[0].ports).toEqual([
      { port: 443, protocol: 'TCP' },
    ]);
    const r = await diffOf([live], policy());
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '' });
  });

  it('an atomic list narrowed, ingress [{from: [...]}] to [{}] (admit everything): exit 3, the rule shown', async () => {
    const open = policy();
    (open.spec as { ingress: unknown[] }).ingress = [{}];
    const r = await diffOf([live], open);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^-\s+- from:$/m);
    expect(r.stdout).toMatch(/^-\s+- namespaceSelector:$/m);
    expect(r.stdout).toMatch(/^\+\s+- \{\}$/m);
  });

  it('labels the manifests stop setting: the one Flux owned alone goes, the one a controller co-owns stays', async () => {
    const coOwned = written(live, 'cozystack-controller', fieldPath('metadata', 'labels', 'team'));
    const unlabelled = policy();
    delete unlabelled.metadata.labels;
    const r = await diffOf([coOwned], unlabelled);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^-\s+app: web$/m);
    expect(r.stdout).not.toMatch(/^[-+]\s+team: a$/m);
  });

  it('kubectl label and kubectl annotate drift is taken back by the apply: exit 3, shown as the change', async () => {
    const labelled = written(
      written(live, 'kubectl-label', fieldPath('metadata', 'labels', 'debug'), (x) => {
        (x.metadata as KObject['metadata']).labels!.debug = 'true';
      }),
      'kubectl-annotate',
      fieldPath('metadata', 'annotations', 'note'),
      (x) => {
        (x.metadata as KObject['metadata']).annotations = { note: 'by hand' };
      },
    );
    const r = await diffOf([labelled], policy());
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^-\s+debug: "true"$/m);
    expect(r.stdout).toMatch(/^-\s+note: by hand$/m);
  });

  it('kubectl edit of a field the manifest sets is taken back: exit 3', async () => {
    const edited = written(
      live,
      'kubectl-edit',
      fieldPath('spec', 'ingress'),
      (x) => {
        (x.spec as { ingress: { ports: { port: number }[] }[] }).ingress[0].ports[0].port = 8443;
      },
      true,
    );
    const r = await diffOf([edited], policy());
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^-\s+- port: 8443$/m);
    expect(r.stdout).toMatch(/^\+\s+- port: 443$/m);
  });

  it('what controllers and flux-client-side-apply wrote stays and is not shown: exit 0', async () => {
    const fields = unionFields(fieldPath('metadata', 'labels', 'ctl'), fieldPath('spec', 'policyTypes'));
    const theirs = written(
      written(live, 'cozystack-controller', fields, (x) => {
        (x.metadata as KObject['metadata']).labels!.ctl = 'x';
      }),
      'flux-client-side-apply',
      fieldPath('metadata', 'annotations', 'kept'),
      (x) => {
        (x.metadata as KObject['metadata']).annotations = { kept: 'yes' };
      },
    );
    const r = await diffOf([theirs], policy());
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '' });
  });
});
