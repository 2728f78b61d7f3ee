/** The parts of an app's dependencies that a test of its HTTP answers leaves at rest: nothing queued, running or stopping. */
export const IDLE_APP = {
  onEnqueued: () => undefined,
  isShuttingDown: () => false,
  readiness: () => ({ ready: true, reasons: [] }),
  activeReconciles: () => 0,
};
