/**
 * Which platform values feed the wildcard-Secret replication controller: the channel of a
 * command's inputs (docs/decisions.md "The platform values channel"). A use case, not controller
 * logic: the controller (src/controller/wildcardSecrets.ts) is given the `_cluster` map this returns.
 */
import * as jsyaml from 'js-yaml';
import { LOAD_OPTIONS } from '../k8s/yaml';
import { exceedsLimits } from '../k8s/limits';
import { error, hasErrors, warning, type Finding } from '../k8s/diagnostics';
import { isDns1123Label, notANamespaceName } from '../k8s/dnsNames';
import { getPath, isObject, refOf, type KObject } from '../k8s/model';
import { isRedacted } from '../k8s/secretRedaction';
import { clusterValues, resolvePlatformValues } from '../charts/platformValues';
import { placeValueFinding, valueSources, valuesOf, type ValuesWhere } from '../validation/valueSources';
import type { ClusterMap } from '../platform/tenancy';
import { MAIN_VERSION, type Behaviour } from '../platform/cozystackVersions';
import { CHANNEL_SECRET } from '../controller/wildcardSecrets';
import { pushAll } from '../k8s/arrays';

export interface ChannelResult {
  /** The `_cluster` map, or undefined when the channel is absent. */
  channel: ClusterMap | undefined;
  /** Where it came from, for messages and the plan. */
  origin: string;
  findings: Finding[];
}

const CHANNEL_KEYS = ['wildcard-secret-name', 'expose-ingress'] as const;

/** The platform value each `_cluster` key the controller reads is written from. */
const CHANNEL_VALUES: Readonly<Record<(typeof CHANNEL_KEYS)[number], string>> = {
  'wildcard-secret-name': 'publishing.certificates.wildcardSecretName',
  'expose-ingress': 'publishing.ingressName',
};

/** The live values channel, `cozy-system/cozystack-values`. */
export function isChannelSecret(o: KObject): boolean {
  return (
    o.kind === 'Secret' &&
    o.apiVersion === 'v1' &&
    o.metadata.namespace === CHANNEL_SECRET.namespace &&
    o.metadata.name === CHANNEL_SECRET.name
  );
}

/** Whether the values the user gave (the platform Package, `--values` files) set wildcardSecretName themselves. */
function wildcardNameGivenExplicitly(sources: readonly ValuesWhere[]): boolean {
  return sources.some((s) => {
    const v = getPath(valuesOf(s), CHANNEL_VALUES['wildcard-secret-name']);
    return v !== null && v !== undefined;
  });
}

/** Decode `values.yaml` out of the channel Secret (stringData wins over data, as the apiserver merges them). */
export function channelValuesYaml(s: KObject): string | undefined {
  if (isObject(s.stringData) && typeof s.stringData['values.yaml'] === 'string') return s.stringData['values.yaml'];
  if (isObject(s.data) && typeof s.data['values.yaml'] === 'string')
    return Buffer.from(s.data['values.yaml'], 'base64').toString('utf8');
  return undefined;
}

/**
 * The platform values channel of a command's inputs (docs/decisions.md §7):
 *
 * - Platform values given (`--values`, or a platform `Package` among the inputs): the `_cluster`
 *   map they produce (docs/behaviour.md §1, the derived dns01 wildcard included). An empty
 *   `wildcard-secret-name` counts as "key present and empty" (prune every replica) only when
 *   `publishing.certificates.wildcardSecretName` was given explicitly; the chart default's empty
 *   string counts as the key missing (keep every replica, create none).
 * - Otherwise, an input Secret `cozy-system/cozystack-values` is the live channel itself, read as
 *   the controller reads it: `values.yaml` → `_cluster`. A key missing there keeps every replica;
 *   a key present and `""` there is the explicit prune-all; an unparsable `values.yaml` is an error
 *   and nothing is created or pruned.
 * - Neither: the channel is absent; nothing is created and no replica pruned.
 *
 * `--values` outrank the input Secret (they are the values the command is asked to apply; the
 * Secret is the state they would overwrite); a disagreement on the two keys the controller reads
 * is reported as a warning.
 */
export function wildcardChannel(
  objects: KObject[],
  files: { file: string; values: Record<string, unknown> }[],
  behaviour: Behaviour = MAIN_VERSION.behaviour,
): ChannelResult {
  const findings: Finding[] = [];
  const resolved = resolvePlatformValues({ files, objects }, behaviour);
  const secret = objects.find(isChannelSecret);
  let fromSecret: ChannelResult | undefined;
  if (secret) fromSecret = channelFromSecret(secret);

  if (!resolved.given) {
    if (fromSecret) return fromSecret;
    return { channel: undefined, origin: 'no platform values given', findings };
  }
  const sources = valueSources(files, resolved.pkg);
  const { cluster, findings: valueFindings } = clusterValues(resolved.values, resolved.pkg, behaviour);
  // The values the channel carries must be readable; the platform chart's other verdicts are render's.
  const read = Object.values(CHANNEL_VALUES);
  pushAll(
    findings,
    valueFindings.filter((f) => f.field && read.includes(f.field)).map((f) => placeValueFinding(f, sources)),
  );
  const channel: ClusterMap = { 'expose-ingress': cluster['expose-ingress'] ?? '' };
  if (cluster['wildcard-secret-name'] !== '' || wildcardNameGivenExplicitly(sources))
    channel['wildcard-secret-name'] = cluster['wildcard-secret-name'] ?? '';
  const origin = files.length
    ? `platform values (${files.map((f) => f.file).join(', ')})`
    : `platform values of Package ${resolved.pkg?.metadata.name ?? ''}`;
  if (hasErrors(findings)) return { channel: undefined, origin, findings };
  if (fromSecret?.channel && secret) {
    const differs = CHANNEL_KEYS.filter(
      (k) => (fromSecret!.channel![k] ?? '') !== (channel[k] ?? '') || k in fromSecret!.channel! !== k in channel,
    );
    if (differs.length) {
      findings.push(
        warning(
          `the platform values given outrank this input Secret as the wildcard-secret channel; they differ on _cluster ${differs.join(', ')}`,
          {
            rule: 'wildcard.channel-overridden',
            object: refOf(secret),
            hint: 'render the platform to refresh cozystack-values, or drop --values to replay the live channel',
          },
        ),
      );
    }
  }
  return { channel, origin, findings };
}

function channelFromSecret(secret: KObject): ChannelResult {
  const origin = `Secret ${CHANNEL_SECRET.namespace}/${CHANNEL_SECRET.name}`;
  const bad = (message: string): ChannelResult => ({
    channel: undefined,
    origin,
    findings: [
      error(`the wildcard-secret channel cannot be read: ${message}; no replica is created or pruned`, {
        rule: 'wildcard.channel-unparsable',
        object: refOf(secret),
        field: 'values.yaml',
      }),
    ],
  });
  if (isRedacted(secret)) {
    return {
      channel: undefined,
      origin,
      findings: [
        warning(
          'the wildcard-secret channel was printed without its data (--include-secret-data was not given); treating the channel as absent',
          { rule: 'wildcard.channel-redacted', object: refOf(secret) },
        ),
      ],
    };
  }
  const text = channelValuesYaml(secret);
  if (text === undefined) return { channel: undefined, origin, findings: [] };
  let doc: unknown;
  try {
    doc = jsyaml.load(text, LOAD_OPTIONS);
  } catch (e) {
    return bad(`values.yaml is not YAML (${(e as Error).message.split('\n')[0]})`);
  }
  const over = exceedsLimits(doc);
  if (over) return bad(`values.yaml ${over}`);
  if (doc === undefined || doc === null) return { channel: {}, origin, findings: [] };
  if (!isObject(doc)) return bad('values.yaml is not a map');
  const c = doc._cluster;
  if (c === undefined || c === null) return { channel: {}, origin, findings: [] };
  if (!isObject(c)) return bad('_cluster is not a map');
  const channel: ClusterMap = {};
  for (const k of CHANNEL_KEYS) {
    if (!(k in c) || c[k] === null) continue;
    if (typeof c[k] !== 'string') return bad(`_cluster.${k} is not a string`);
    channel[k] = c[k] as string;
  }
  const ns = channel['expose-ingress'];
  if (typeof ns === 'string' && ns && !isDns1123Label(ns))
    return bad(`_cluster.expose-ingress ${notANamespaceName(ns)}`);
  return { channel, origin, findings: [] };
}
