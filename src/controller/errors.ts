/**
 * A reconcile error: the first one stops the TenantGateway's pass and becomes Ready=False with
 * reason ReconcileError and the error text as message (docs/behaviour.md §5.1).
 */
export class ReconcileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReconcileError';
  }
}
