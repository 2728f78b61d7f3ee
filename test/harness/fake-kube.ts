/**
 * A fake Kubernetes API server for tests, benchmarks and the demo: real HTTP on 127.0.0.1 speaking
 * the real REST paths and Status bodies, so that the real @kubernetes/client-node works unchanged.
 */
export { FakeKube, startFakeKube } from './fake-kube/server.js';
export type { Fault, FakeKubeOptions, FaultSpec, RecordedRequest } from './fake-kube/server.js';
export type { AllowRule } from './fake-kube/rbac.js';
export type { KubeObject, KubeObjectInput } from './fake-kube/store.js';
export { kubeconfigText, writeKubeconfig } from './fake-kube/kubeconfig.js';
