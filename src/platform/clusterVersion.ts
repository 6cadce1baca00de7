/**
 * Which Cozystack a cluster state is of (docs/versions.md §11): the evidence a live cluster shows,
 * read from the objects of a state (a `cozy-gw snapshot`, a `reconcile --all` output over one, or
 * a `kubectl get` dump holding the objects), and the version it tells. One function for every
 * reader: `snapshot` records it, `diff --state` and `reconcile -f` use it unless told otherwise
 * (docs/versions.md "Choosing a version").
 *
 * The evidence, most direct first: the cozystack-operator's `COZYSTACK_VERSION` (v1.6 on) and its
 * image tag; the image tags of cozystack-controller and cozystack-api (a tree may pin another
 * release's images: v1.5.3 pins v1.5.2's, main v1.6.0's, the table's `images`); the platform
 * OCIRepository's revision (`<git describe>:<commit>`, a commit the table names tells main) and
 * tag; the `cozystack-version` ConfigMap's migration level (the table's `migration`: a line, or
 * main). Each names the versions it allows; the most direct narrows by the others where they
 * agree, and a source that allows none of what is left disagrees.
 *
 * `snapshot` keeps the evidence objects trimmed to these fields (versionEvidenceObject) and one
 * record object (kind CozystackVersion, versionRecord) with what they told: the record wins when a
 * state holds one (it says what the snapshot resolved); the evidence is what it is checked against.
 */
import { groupOf, isObject, type KObject } from '../k8s/model';
import { COZYSTACK_VERSIONS } from './cozystackVersions';

const COZY_SYSTEM = 'cozy-system';
const OPERATOR = 'cozystack-operator';
/** The operator's environment variable naming the platform version (docs/versions.md §11 item 1). */
export const VERSION_ENV = 'COZYSTACK_VERSION';
const IMAGE_DEPLOYMENTS = ['cozystack-controller', 'cozystack-api'] as const;
const PLATFORM_SOURCE = 'cozystack-platform';
const FLUX_SOURCE_GROUP = 'source.toolkit.fluxcd.io';
const VERSION_CONFIGMAP = 'cozystack-version';
/** The OCI annotation `flux push artifact --revision` writes: `<git describe>:<commit>`. */
const OCI_REVISION = 'org.opencontainers.image.revision';

/** The record a snapshot writes of the version it read (a cozy-gw kind: no cluster holds it). */
export const VERSION_RECORD = {
  apiVersion: 'cozy-gw.cozystack.io/v1alpha1',
  kind: 'CozystackVersion',
  namespace: COZY_SYSTEM,
  name: 'cluster',
} as const;

/** One thing a cluster shows about its version. */
export interface VersionEvidence {
  /** Where it was read: `Deployment cozy-system/cozystack-operator, env COZYSTACK_VERSION`. */
  source: string;
  /** What it says, as read: a version, an image tag, a `git describe`, a migration level. */
  value: string;
  /**
   * The versions it allows: names of the table, or the version as reported where the table lacks
   * it (`v1.6.3`); none when it names no version (`latest`, an unknown migration level).
   */
  versions: string[];
}

/** What a state tells of its Cozystack version. */
export interface ClusterVersion {
  /** The version, as reported (`v1.6.2`, `v1.6.2-rc.1`, `main`); absent when nothing tells it. */
  version?: string;
  /** What tells it, for messages. */
  from?: string;
  /** The versions the evidence allows together (a migration level alone allows several). */
  versions: string[];
  /** Every source read, most direct first. */
  evidence: VersionEvidence[];
  /** The sources that allow none of `versions`, each said as `<source>: <value>`. */
  disagreements: string[];
}

const TABLE = new Map(COZYSTACK_VERSIONS.map((v, i) => [v.name, i]));

const describeDeployment = (name: string) => `Deployment ${COZY_SYSTEM}/${name}`;

/** A version as the table spells it (`1.6.2` → `v1.6.2`), or undefined for what is no version (`latest`, a `git describe` past a tag). */
function versionName(text: string): string | undefined {
  const t = text.trim();
  if (t === 'main') return t;
  if (/-\d+-g[0-9a-f]{4,40}$/.test(t)) return undefined;
  const m = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(t);
  return m ? `v${m[1]}` : undefined;
}

function named(text: string): string[] {
  const n = versionName(text);
  return n ? [n] : [];
}

/** The versions whose tree pins images of this tag (docs/versions.md §11: v1.5.3 pins v1.5.2's, main v1.6.0's). */
function pinning(tag: string): string[] {
  const n = versionName(tag);
  if (!n) return [];
  const out = COZYSTACK_VERSIONS.filter((v) => v.images === n).map((v) => v.name);
  return out.includes(n) ? out : [n, ...out];
}

/** An image reference's tag (`…/cozystack-api:v1.6.2@sha256:…` → `v1.6.2`). */
function imageTag(image: string): string | undefined {
  const ref = image.split('@')[0];
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : undefined;
}

function find(objects: readonly KObject[], group: string, kind: string, name: string): KObject | undefined {
  return objects.find(
    (o) =>
      o.kind === kind &&
      groupOf(o.apiVersion ?? '') === group &&
      o.metadata?.namespace === COZY_SYSTEM &&
      o.metadata?.name === name,
  );
}

type Container = { name?: unknown; image?: unknown; env?: unknown };

/** The container of a Deployment named after it (the charts name it so), else the one running its image. */
function containerOf(d: KObject, name: string): Container | undefined {
  const spec = isObject(d.spec) && isObject(d.spec.template) ? d.spec.template.spec : undefined;
  const containers = isObject(spec) && Array.isArray(spec.containers) ? spec.containers.filter(isObject) : [];
  return (
    containers.find((c) => c.name === name) ??
    containers.find((c) => typeof c.image === 'string' && c.image.split('@')[0].split(':')[0].endsWith(`/${name}`))
  );
}

function envValue(c: Container): string | undefined {
  const env = Array.isArray(c.env) ? c.env.filter(isObject) : [];
  const v = env.find((e) => e.name === VERSION_ENV)?.value;
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** docs/versions.md §11 items 1–3: the operator's env and image, the controller's and the API's images. */
function deploymentEvidence(objects: readonly KObject[]): VersionEvidence[] {
  const out: VersionEvidence[] = [];
  for (const name of [OPERATOR, ...IMAGE_DEPLOYMENTS]) {
    const d = find(objects, 'apps', 'Deployment', name);
    const c = d && containerOf(d, name);
    if (!c) continue;
    const env = name === OPERATOR ? envValue(c) : undefined;
    if (env) out.push({ source: `${describeDeployment(name)}, env ${VERSION_ENV}`, value: env, versions: named(env) });
    const tag = typeof c.image === 'string' ? imageTag(c.image) : undefined;
    if (tag) out.push({ source: `${describeDeployment(name)}, image tag`, value: tag, versions: pinning(tag) });
  }
  return out;
}

/** `<git describe>:<commit>`: the commit of a version of the table, else the tag `git describe` printed. */
function revisionVersions(revision: string): string[] {
  const colon = revision.lastIndexOf(':');
  const commit = colon < 0 ? '' : revision.slice(colon + 1).toLowerCase();
  if (/^[0-9a-f]{7,40}$/.test(commit)) {
    const v = COZYSTACK_VERSIONS.find((x) => commit.startsWith(x.commit) || x.commit.startsWith(commit));
    if (v) return [v.name];
  }
  return named(colon < 0 ? revision : revision.slice(0, colon));
}

/** docs/versions.md §11 item 4: the platform OCIRepository's artifact revision (its OCI annotation, then Flux's) and tag. */
function sourceEvidence(objects: readonly KObject[]): VersionEvidence[] {
  const repo = find(objects, FLUX_SOURCE_GROUP, 'OCIRepository', PLATFORM_SOURCE);
  if (!repo) return [];
  const where = `OCIRepository ${COZY_SYSTEM}/${PLATFORM_SOURCE}`;
  const artifact = isObject(repo.status) && isObject(repo.status.artifact) ? repo.status.artifact : {};
  const meta = isObject(artifact.metadata) ? artifact.metadata : {};
  const out: VersionEvidence[] = [];
  const described = meta[OCI_REVISION];
  if (typeof described === 'string' && described)
    out.push({ source: `${where}, artifact ${OCI_REVISION}`, value: described, versions: revisionVersions(described) });
  // Flux's revision is `<tag>@sha256:<digest>`, or the digest alone (a ref by digest names no version).
  const revision = typeof artifact.revision === 'string' ? artifact.revision.split('@')[0] : '';
  if (revision && !revision.startsWith('sha256:'))
    out.push({ source: `${where}, artifact revision`, value: revision, versions: named(revision) });
  const tag = isObject(repo.spec) && isObject(repo.spec.ref) ? repo.spec.ref.tag : undefined;
  if (typeof tag === 'string' && tag) out.push({ source: `${where}, spec.ref.tag`, value: tag, versions: named(tag) });
  return out;
}

/** docs/versions.md §11 item 5: the migration level, which tells a line (or main). */
function migrationEvidence(objects: readonly KObject[]): VersionEvidence[] {
  const cm = find(objects, '', 'ConfigMap', VERSION_CONFIGMAP);
  const level = cm && isObject(cm.data) ? cm.data.version : undefined;
  if (typeof level !== 'string' && typeof level !== 'number') return [];
  const value = String(level).trim();
  if (!value) return [];
  const versions = /^\d+$/.test(value)
    ? COZYSTACK_VERSIONS.filter((v) => v.migration === Number(value)).map((v) => v.name)
    : [];
  return [{ source: `ConfigMap ${COZY_SYSTEM}/${VERSION_CONFIGMAP}, migration level`, value, versions }];
}

/** Every source the objects hold, most direct first (docs/versions.md §11). */
export function versionEvidence(objects: readonly KObject[]): VersionEvidence[] {
  return [...deploymentEvidence(objects), ...sourceEvidence(objects), ...migrationEvidence(objects)];
}

const known = (v: string) => TABLE.has(v);

/**
 * Whether a source can be held against what the others tell: the table knows what a version it
 * lists pins and migrates to, not what a version it lacks does (v1.6.3 may keep v1.6.2's images).
 */
function comparable(allowed: readonly string[], e: VersionEvidence): boolean {
  return allowed.some(known) || e.versions.some((v) => !known(v));
}

/** `<source>: <value>`, with the versions it allows where they are not just the value. */
export function describeEvidence(e: VersionEvidence): string {
  const plain = e.versions.length === 1 && e.versions[0] === versionName(e.value);
  return `${e.source}: ${e.value}${plain || !e.versions.length ? '' : ` (${e.versions.join(', ')})`}`;
}

function disagreeing(allowed: readonly string[], evidence: readonly VersionEvidence[]): string[] {
  return evidence
    .filter((e) => e.versions.length && comparable(allowed, e) && !e.versions.some((v) => allowed.includes(v)))
    .map(describeEvidence);
}

/** The evidence's verdict: the most direct source, narrowed by those that agree with it. */
function resolve(evidence: readonly VersionEvidence[]): ClusterVersion {
  let allowed: string[] | undefined;
  const shaping: VersionEvidence[] = [];
  for (const e of evidence) {
    if (!e.versions.length) continue;
    if (!allowed) {
      allowed = e.versions;
      shaping.push(e);
      continue;
    }
    const both = allowed.filter((v) => e.versions.includes(v));
    if (both.length && both.length < allowed.length && comparable(allowed, e)) {
      allowed = both;
      shaping.push(e);
    }
  }
  if (!allowed) return { versions: [], evidence: [...evidence], disagreements: [] };
  const literal = versionName(shaping[0].value);
  // The newest the table lists among those allowed (a migration level alone: the line's newest patch).
  const newest = [...allowed].sort((a, b) => (TABLE.get(b) ?? -1) - (TABLE.get(a) ?? -1))[0];
  return {
    version: literal && allowed.includes(literal) ? literal : newest,
    from: shaping.map((e, i) => (i ? `${e.source} (${e.value})` : e.source)).join(', narrowed by '),
    versions: allowed,
    evidence: [...evidence],
    disagreements: disagreeing(allowed, evidence),
  };
}

const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);

export function isVersionRecord(o: KObject): boolean {
  return o.kind === VERSION_RECORD.kind && o.apiVersion === VERSION_RECORD.apiVersion;
}

/** The evidence a record lists (a state that kept the record alone). */
function recordedEvidence(record: KObject): VersionEvidence[] {
  const list = Array.isArray(record.evidence) ? record.evidence.filter(isObject) : [];
  return list
    .filter((e) => typeof e.source === 'string' && typeof e.value === 'string')
    .map((e) => ({ source: e.source as string, value: e.value as string, versions: strings(e.versions) }));
}

/**
 * What the objects of a state tell of its Cozystack version (docs/versions.md §11): a
 * snapshot's record when it holds one, else the evidence objects; every source that allows none of
 * the versions told is a disagreement.
 */
export function clusterVersionOf(objects: readonly KObject[]): ClusterVersion {
  const record = objects.find(isVersionRecord);
  const live = versionEvidence(objects);
  const evidence = live.length || !record ? live : recordedEvidence(record);
  if (!record || typeof record.version !== 'string' || !record.version.trim()) return resolve(evidence);
  const version = record.version.trim();
  const listed = strings(record.versions);
  const versions = listed.length ? listed : named(version).length ? named(version) : [version];
  const from =
    typeof record.from === 'string' && record.from ? record.from : `${VERSION_RECORD.kind} ${VERSION_RECORD.name}`;
  return { version, from, versions, evidence, disagreements: disagreeing(versions, evidence) };
}

/**
 * The record `snapshot` writes beside the evidence objects: the version they tell, what tells
 * it, what each source said, and the sources that disagree. Read back by clusterVersionOf.
 */
export function versionRecord(v: ClusterVersion): KObject {
  return {
    apiVersion: VERSION_RECORD.apiVersion,
    kind: VERSION_RECORD.kind,
    metadata: { name: VERSION_RECORD.name, namespace: VERSION_RECORD.namespace },
    ...(v.version ? { version: v.version, from: v.from, versions: v.versions } : {}),
    evidence: v.evidence.map((e) => ({ source: e.source, value: e.value, versions: e.versions })),
    ...(v.disagreements.length ? { disagreements: v.disagreements } : {}),
  };
}

const ident = (o: KObject) => ({ name: o.metadata.name, namespace: o.metadata.namespace });

/** A Deployment reduced to the container that tells the version: its name, image and `COZYSTACK_VERSION`. */
function trimDeployment(d: KObject): KObject | undefined {
  const name = d.metadata.name;
  const c = containerOf(d, name);
  if (!c) return undefined;
  const env = name === OPERATOR ? envValue(c) : undefined;
  const container = {
    name: typeof c.name === 'string' ? c.name : name,
    ...(typeof c.image === 'string' ? { image: c.image } : {}),
    ...(env ? { env: [{ name: VERSION_ENV, value: env }] } : {}),
  };
  return {
    apiVersion: d.apiVersion,
    kind: d.kind,
    metadata: ident(d),
    spec: { template: { spec: { containers: [container] } } },
  };
}

/** An OCIRepository reduced to its reference and its artifact's revisions. */
function trimSource(o: KObject): KObject {
  const ref = isObject(o.spec) && isObject(o.spec.ref) ? o.spec.ref : undefined;
  const artifact = isObject(o.status) && isObject(o.status.artifact) ? o.status.artifact : {};
  const meta = isObject(artifact.metadata) ? artifact.metadata : {};
  const kept = {
    ...(typeof artifact.revision === 'string' ? { revision: artifact.revision } : {}),
    ...(typeof meta[OCI_REVISION] === 'string' ? { metadata: { [OCI_REVISION]: meta[OCI_REVISION] } } : {}),
  };
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: ident(o),
    ...(ref ? { spec: { ref } } : {}),
    ...(Object.keys(kept).length ? { status: { artifact: kept } } : {}),
  };
}

/**
 * An object of a cluster as `snapshot` keeps it for its version (docs/versions.md §11), trimmed to
 * what tells the version (no other container, environment variable, key or status): the
 * cozystack-operator, cozystack-controller and cozystack-api Deployments, the platform
 * OCIRepository and the `cozystack-version` ConfigMap in cozy-system. Undefined for any other.
 */
export function versionEvidenceObject(o: KObject): KObject | undefined {
  if (o.metadata?.namespace !== COZY_SYSTEM) return undefined;
  const group = groupOf(o.apiVersion ?? '');
  if (o.kind === 'Deployment' && group === 'apps' && [OPERATOR, ...IMAGE_DEPLOYMENTS].includes(o.metadata.name))
    return trimDeployment(o);
  if (o.kind === 'OCIRepository' && group === FLUX_SOURCE_GROUP && o.metadata.name === PLATFORM_SOURCE)
    return trimSource(o);
  if (o.kind === 'ConfigMap' && group === '' && o.metadata.name === VERSION_CONFIGMAP) {
    const v = isObject(o.data) ? o.data.version : undefined;
    return {
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: ident(o),
      ...(typeof v === 'string' ? { data: { version: v } } : {}),
    };
  }
  return undefined;
}
