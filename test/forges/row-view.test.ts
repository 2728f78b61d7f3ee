/**
 * Each forge describes its own rows for /state and the status page: its state in its own words and the link
 * to its page, every path part escaped (an environment `pr 1/x`, GitLab's nested groups).
 */
import t from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../src/common/metrics.js';
import type { Forge, ForgeDeps } from '../../src/forges/forge.js';
import { forgejoForge } from '../../src/forges/forgejo/forgejo-forge.js';
import { parseForgejoUrl } from '../../src/forges/forgejo/forgejo-url.js';
import { DEFAULT_CONTEXT_TEMPLATE, parseContextTemplate } from '../../src/forges/forgejo/status-context.js';
import { githubForge } from '../../src/forges/github/github-forge.js';
import { gitlabForge } from '../../src/forges/gitlab/gitlab-forge.js';
import { parseGitLabUrl } from '../../src/forges/gitlab/gitlab-url.js';
import type { DeliveryState } from '../../src/lifecycle/status-plan.js';
import { DeploymentStore, type DeploymentRow } from '../../src/store/deployment-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { GITHUB_LIMITS } from './github-limits.js';
import { assembleForge } from '../../src/forges/assemble-forge.js';
import { openDatabase } from '../harness/database.js';

const SHA = 'a'.repeat(40);
const db = openDatabase(':memory:');
t.teardown(() => db.close());
const deps: ForgeDeps = {
  db,
  deployments: new DeploymentStore(db),
  refusals: new RefusalStore(db),
  metrics: createMetrics(),
  log: pino({ level: 'silent' }),
  now: Date.now,
  userAgent: 'gdb-test',
  dryRun: false,
};
const row = (forge: string, owner: string, state: DeliveryState | null): DeploymentRow => ({
  forge,
  owner,
  repo: 'web',
  environment: 'pr 1/x',
  sha: SHA,
  deploymentName: 'web',
  deploymentId: state === null ? null : 7,
  context: forge === 'forgejo' ? 'deploy/pr 1/x (eu-1)' : null,
  state,
  pendingState: null,
  description: null,
  origin: {
    source: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
    workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
    container: 'app',
    image: 'registry.example.com/web:1',
  },
  updatedAt: 0,
});

const forgejoUrl = parseForgejoUrl('https://git.example.com/forgejo/');
const template = parseContextTemplate(DEFAULT_CONTEXT_TEMPLATE);
const gitlabUrl = parseGitLabUrl('https://gitlab.example.com');
if ('problem' in forgejoUrl || 'problem' in template || 'problem' in gitlabUrl) throw new Error('bad settings');
const built = (f: Forge | undefined): Forge => {
  if (f === undefined) throw new Error('not built');
  t.teardown(() => f.stop());
  return f;
};
const github = built(
  assembleForge(
    githubForge,
    {
      githubHost: 'ghe.example.com',
      githubAuth: { kind: 'token', token: 't' },
      githubApiUrl: 'https://ghe.example.com/api/v3',
      githubWriteIntervalMs: 0,
      githubWriteBudget: GITHUB_LIMITS,
    },
    deps,
  ),
);
const forgejo = built(
  assembleForge(forgejoForge, { forgejoUrl, forgejoToken: { kind: 'inline', value: 't' }, forgejoStatusContext: template }, deps),
);
const gitlab = built(assembleForge(gitlabForge, { gitlabUrl, gitlabToken: { kind: 'inline', value: 't' } }, deps));

t.test('each forge: its own words for the neutral state, and the link to its page', (t) => {
  const rows: Array<[string, Forge, DeploymentRow, { forgeState: string; url: string }]> = [
    [
      'GitHub, gone',
      github,
      row('github', 'acme', 'gone'),
      { forgeState: 'inactive', url: 'https://ghe.example.com/acme/web/deployments/pr%201%2Fx' },
    ],
    [
      'GitHub, provisional',
      github,
      row('github', 'acme', null),
      { forgeState: 'provisional', url: 'https://ghe.example.com/acme/web/deployments/pr%201%2Fx' },
    ],
    [
      'Forgejo, rolling out',
      forgejo,
      row('forgejo', 'acme', 'in_progress'),
      { forgeState: 'pending', url: `https://git.example.com/forgejo/acme/web/commit/${SHA}` },
    ],
    [
      'Forgejo, gone',
      forgejo,
      row('forgejo', 'acme', 'gone'),
      { forgeState: 'success (Deployment gone)', url: `https://git.example.com/forgejo/acme/web/commit/${SHA}` },
    ],
    [
      'GitLab, nested groups',
      gitlab,
      row('gitlab', 'platform/team a', 'gone'),
      { forgeState: 'gone', url: 'https://gitlab.example.com/platform/team%20a/web/-/environments?search=pr%201%2Fx' },
    ],
  ];
  for (const [name, forge, r, want] of rows) t.match(forge.describe(r), want, name);
  t.match(github.describe(row('github', 'acme', 'success')), { deploymentId: 7 }, 'GitHub: its deployment id');
  t.match(forgejo.describe(row('forgejo', 'acme', 'success')), { context: 'deploy/pr 1/x (eu-1)' }, 'Forgejo: its status context');
  t.end();
});
