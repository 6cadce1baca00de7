/** Facts of ../shared/spec/reference-facts.md spelled out independently of the charts, as test oracles. */

/** reference-facts "Default `attachedNamespaces`, in order" (the chart default must be exactly this). */
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
