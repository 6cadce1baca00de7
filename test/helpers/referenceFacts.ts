/** Facts of docs/behaviour.md spelled out independently of the charts, as test oracles. */

/** docs/behaviour.md §1: the default attachedNamespaces, in order (the chart default must be exactly this). */
export const DEFAULT_ATTACHED_NAMESPACES = [
  'cozy-cert-manager',
  'cozy-dashboard',
  'cozy-keycloak',
  'cozy-system',
  'cozy-harbor',
  'cozy-bucket',
  'cozy-kubevirt',
  'cozy-kubevirt-cdi',
  'cozy-monitoring',
  'cozy-linstor-gui',
  'default',
];
