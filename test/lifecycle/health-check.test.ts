import t from 'tap';
import { namedObjects } from '../../src/lifecycle/health-check.js';

/** Messages as Flux writes them (kustomize-controller, helm-controller, older and newer formats). */
const rows: Array<[name: string, message: string, want: string[]]> = [
  [
    'timeout, two objects',
    "health check failed after 5m0s: timeout waiting for: [Deployment/apps/web status: 'InProgress', Deployment/apps/api status: 'Failed']",
    ['Deployment/apps/web', 'Deployment/apps/api'],
  ],
  ['a bare reference', "Deployment/default/podinfo status: 'InProgress'", ['Deployment/default/podinfo']],
  [
    'stalled early',
    "health check failed after 16.6ms: failed early due to stalled resources: [Deployment/apps/web status: 'Failed']",
    ['Deployment/apps/web'],
  ],
  [
    'older capitalised form with a comma',
    "Health check failed after 2m0.013489487s, timeout waiting for: [HelmRelease/wpb-services/httpbin status: 'InProgress']",
    ['HelmRelease/wpb-services/httpbin'],
  ],
  [
    'helm-controller wait failure',
    "Helm upgrade failed for release coroot/coroot with chart coroot@0.22.0: failed early due to stalled resources: [Deployment/coroot/coroot-prometheus-server status: 'Failed']",
    ['Deployment/coroot/coroot-prometheus-server'],
  ],
  [
    'status followed by error text with commas and slashes',
    "timeout waiting for: [StatefulSet/db/pg status: 'InProgress': Get \"https://10.0.0.1/apis/apps/v1\": context canceled, DaemonSet/kube-system/node-agent status: 'Failed']",
    ['StatefulSet/db/pg', 'DaemonSet/kube-system/node-agent'],
  ],
  [
    'unknown status and undeterminable status',
    "timeout waiting for: [Deployment/apps/web (unknown status), can't determine status for Deployment/apps/api]",
    ['Deployment/apps/web', 'Deployment/apps/api'],
  ],
  ['dotted names', "timeout waiting for: [Deployment/apps/web.v2 status: 'InProgress']", ['Deployment/apps/web.v2']],
  [
    'duplicates collapse',
    "[Deployment/apps/web status: 'InProgress'] then [Deployment/apps/web status: 'Failed']",
    ['Deployment/apps/web'],
  ],
  [
    'cluster-scoped objects are not workload keys',
    "timeout waiting for: [Namespace/preview-42 status: 'InProgress', ClusterRole/viewer status: 'InProgress']",
    [],
  ],
  ['a release name is not an object', 'Helm install failed for release commerce/lago with chart lago@1.28.0: create: failed', []],
  ['a path without a status is not an object', 'kustomization path not found: stat /tmp/Deploy/apps/web: no such file', []],
  ['no messages, no names', '', []],
  ['dependency not ready', "dependency 'flux-system/infra' is not ready", []],
];

t.test('namedObjects', (t) => {
  for (const [name, message, want] of rows) t.same([...namedObjects(message)], want, name);
  t.end();
});
