/** src/reports/namespaceGroups.ts: the one grouping the comment and the page share. */
import { compareGroups, countChange, countsPhrase, namespaceGroup } from '../../src/reports/namespaceGroups';

const obj = (kind: string, name: string, namespace?: string) => ({
  apiVersion: 'v1',
  kind,
  metadata: namespace ? { name, namespace } : { name },
});

test('an object groups in its namespace, a Namespace in its own, the rest cluster-scoped', () => {
  expect(namespaceGroup(obj('Secret', 's', 'tenant-a'))).toBe('tenant-a');
  expect(namespaceGroup(obj('Namespace', 'tenant-b'))).toBe('tenant-b');
  expect(namespaceGroup(obj('ClusterRole', 'r'))).toBe('');
});

test('groups sort by name, the cluster-scoped one last', () => {
  expect(['tenant-b', '', 'tenant-a'].sort(compareGroups)).toEqual(['tenant-a', 'tenant-b', '']);
});

test('counts and the heading phrase leave out what is 0', () => {
  const s = { created: 0, changed: 0, deleted: 0 };
  expect([countChange(s, undefined, {}), countChange(s, {}, undefined), countChange(s, {}, undefined)]).toEqual([
    'create',
    'delete',
    'delete',
  ]);
  expect(countsPhrase(s)).toBe('1 to create, 2 to delete');
});
