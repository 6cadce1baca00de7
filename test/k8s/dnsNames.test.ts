/**
 * The name grammars (src/k8s/dnsNames.ts) and the one wording of a value that is no namespace
 * name, which every caller says after its own key or flag.
 */
import { InvalidArgumentError } from 'commander';
import { notANamespaceName } from '../../src/k8s/dnsNames';
import { metadataFindings } from '../../src/k8s/metadataShape';
import { wildcardChannel } from '../../src/pipelines/platformChannel';
import { clusterValues, resolvePlatformValues } from '../../src/charts/platformValues';
import { namespaceArg } from '../../src/cli/commands/common';
import { namespaceNameError } from '../../src/charts/tenantNames';
import { runCli } from '../helpers/cli';

const PHRASE = 'is not a namespace name (a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters)';

describe('notANamespaceName', () => {
  it('the value quoted, then what a namespace name is', () => {
    expect(notANamespaceName('Tenant Root')).toBe(`"Tenant Root" ${PHRASE}`);
    expect(notANamespaceName('a"\n')).toBe(`"a\\"\\n" ${PHRASE}`);
  });

  it('a long value is cut to its first 80 characters', () => {
    expect(notANamespaceName('x'.repeat(500))).toBe(`"${'x'.repeat(80)}" ${PHRASE}`);
  });
});

describe('every caller says it in these words, after its own key or flag', () => {
  const bad = 'Tenant_Root';
  const words = notANamespaceName(bad);

  it('metadata.namespace of an input object', () => {
    const f = metadataFindings({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: bad } });
    expect(f.map((x) => [x.field, x.message])).toEqual([['metadata.namespace', words]]);
  });

  it('publishing.ingressName of the platform values', () => {
    const r = clusterValues(
      resolvePlatformValues({ files: [{ file: 'v.yaml', values: { publishing: { ingressName: bad } } }], objects: [] })
        .values,
    );
    expect(r.findings.map((x) => x.message)).toEqual([expect.stringContaining(`publishing.ingressName ${words}: `)]);
  });

  it("_cluster.expose-ingress of the platform's values Secret", () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cozystack-values', namespace: 'cozy-system' },
      stringData: { 'values.yaml': `_cluster:\n  expose-ingress: ${bad}\n` },
    };
    const r = wildcardChannel([secret], []);
    expect(r.findings.map((x) => x.message)).toEqual([expect.stringContaining(`_cluster.expose-ingress ${words}`)]);
  });

  it("a tenant's namespace", () => {
    expect(namespaceNameError(bad)).toBe(`tenant namespace ${words}`);
  });

  it('-n/--namespace (commander names the flag)', () => {
    expect(() => namespaceArg(bad)).toThrow(new InvalidArgumentError(words));
  });

  it("post-render's HELM_NAMESPACE", async () => {
    const r = await runCli(['post-render', '--now', '2026-01-01T00:00:00Z'], {
      stdin: '',
      env: { HELM_NAMESPACE: bad },
    });
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(`HELM_NAMESPACE ${words}`)]);
  });
});
