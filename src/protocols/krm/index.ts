/**
 * `cozy-gw fn`: the KRM function, by concern:
 * - config.ts: the functionConfig (a CozyGateway or a ConfigMap) → the function's settings;
 * - items.ts: what an item is to the function (path annotations, pass-through, generated marks);
 * - results.ts: findings as `results` entries;
 * - function.ts: the function over a parsed ResourceList;
 * - text.ts: the ResourceList protocol on text (items that pass through keep their YAML);
 * - kustomizePlugin.ts: kustomize's legacy exec plugin protocol.
 */
export {
  FN_API_VERSION,
  FN_KIND,
  configFromConfigMap,
  configFromCozyGateway,
  defaultConfig,
  parseFunctionConfig,
  type FnConfig,
} from './config';
export {
  GENERATED_ANNOTATION,
  GENERATED_DIR,
  INDEX_ANNOTATION,
  LEGACY_INDEX_ANNOTATION,
  LEGACY_PATH_ANNOTATION,
  LOCAL_CONFIG_ANNOTATION,
  PATH_ANNOTATION,
  annotateGenerated,
  itemPathOf,
  generatedPath,
  isGenerated,
  isOwnItem,
  isUnderGeneratedDir,
  isMetaOrLocal,
} from './items';
export { toResult, type KrmResult, type ResourceRef } from './results';
export {
  DEFAULT_NOW,
  RESOURCE_LIST_VERSIONS,
  processResourceList,
  processResourceListStream,
  runFunctionStream,
  type FnStream,
  type NewItem,
  runFunction,
  type FnOptions,
  type FnRun,
  type ResourceList,
} from './function';
export { processResourceListText, type TextRun } from './text';
export { processKustomizeStream } from './kustomizePlugin';
