import t from 'tap';
import {
  environmentChanges,
  fluxResourcePath,
  stopDecision,
  type StopInputs,
  type WantedEnvironment,
} from '../../../src/forges/gitlab/gitlab-environment-plan.js';
import type { GitLabEnvironment } from '../../../src/forges/gitlab/gitlab-types.js';

const env = (o: Partial<GitLabEnvironment> = {}): GitLabEnvironment => ({
  id: 4,
  name: 'review/feature-x',
  external_url: null,
  tier: 'development',
  state: 'available',
  kubernetes_namespace: null,
  flux_resource_path: null,
  cluster_agent: null,
  last_deployment: null,
  ...o,
});
const FLUX = fluxResourcePath('Kustomization', 'apps', 'preview-42');
const agent = { clusterAgentId: 7, namespace: 'apps', fluxResourcePath: FLUX };

t.test('flux_resource_path names the Flux object as GitLab’s dashboard reads it', (t) => {
  t.equal(FLUX, 'kustomize.toolkit.fluxcd.io/v1/namespaces/apps/kustomizations/preview-42');
  t.equal(fluxResourcePath('HelmRelease', 'web', 'shop'), 'helm.toolkit.fluxcd.io/v2/namespaces/web/helmreleases/shop');
  t.end();
});

t.test('one PUT with only what differs; none when the environment already says it', (t) => {
  const rows: [string, GitLabEnvironment, WantedEnvironment, unknown][] = [
    ['nothing wanted', env(), {}, undefined],
    [
      'a new URL and tier',
      env(),
      { externalUrl: 'https://x.example', tier: 'staging' },
      { external_url: 'https://x.example', tier: 'staging' },
    ],
    [
      'already so',
      env({ external_url: 'https://x.example', tier: 'staging' }),
      { externalUrl: 'https://x.example', tier: 'staging' },
      undefined,
    ],
    [
      'only the URL differs',
      env({ tier: 'staging' }),
      { externalUrl: 'https://y.example', tier: 'staging' },
      { external_url: 'https://y.example' },
    ],
    ['the agent link', env(), { agent }, { cluster_agent_id: 7, kubernetes_namespace: 'apps', flux_resource_path: FLUX }],
    [
      'the agent link in place',
      env({ cluster_agent: { id: 7 }, kubernetes_namespace: 'apps', flux_resource_path: FLUX }),
      { agent },
      undefined,
    ],
  ];
  for (const [name, current, wanted, want] of rows) t.same(environmentChanges(current, wanted), want, name);
  t.end();
});

t.test('stop: a transient environment whose last workload is gone, unless someone else deployed there last', (t) => {
  const ours = (id: number) => ({ id, iid: 1, ref: 'main', sha: 'a', status: 'success', user: null, environment: null, created_at: '' });
  const base: StopInputs = {
    transient: true,
    workloadsLeft: 0,
    environment: env({ last_deployment: ours(9) }),
    ownDeployments: new Set([9]),
  };
  t.equal(stopDecision(base), 'stop');
  t.equal(stopDecision({ ...base, environment: env() }), 'stop', 'no deployment at all');
  t.match(stopDecision({ ...base, transient: false }), { leave: /keeps its history/ });
  t.match(stopDecision({ ...base, workloadsLeft: 1 }), { leave: /1 workload/ });
  t.match(stopDecision({ ...base, environment: env({ state: 'stopped', last_deployment: ours(9) }) }), { leave: /already stopped/ });
  t.match(stopDecision({ ...base, ownDeployments: new Set([8]) }), { leave: /latest deployment \(9\) is not this bridge's/ });
  t.end();
});
