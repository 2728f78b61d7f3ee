import t, { type Test } from 'tap';
import { pino } from 'pino';
import { CommitStatusPublisher } from '../../../src/forges/forgejo/commit-status-publisher.js';
import { ForgejoClient } from '../../../src/forges/forgejo/forgejo-client.js';
import { ForgejoPublisher, statusText } from '../../../src/forges/forgejo/forgejo-publisher.js';
import { DEFAULT_CONTEXT_TEMPLATE, parseContextTemplate, type ContextTemplate } from '../../../src/forges/forgejo/status-context.js';
import type { ReportTarget } from '../../../src/metadata/resolve-target.js';
import { CommitStatusRows } from '../../../src/forges/forgejo/commit-status-rows.js';
import { DeploymentStore, type Origin } from '../../../src/store/deployment-store.js';
import { startForgejoSimulator } from '../../harness/forgejo-sim.js';
import { openDatabase } from '../../harness/database.js';

const TOKEN = 'forgejo_publisher_token';
const T0 = Date.UTC(2025, 5, 1, 12);
const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);
const URL = 'https://web.staging.example.com/';
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const log = pino({ level: 'silent' });

/** A Forgejo target of Deployment apps/web in git.example.com/acme/web, on cluster eu-1. */
const target = (sha: string, o: Partial<ReportTarget> = {}): ReportTarget => ({
  forge: 'forgejo',
  owner: 'acme',
  repo: 'web',
  environment: 'staging',
  sha,
  deploymentName: 'web',
  cluster: 'eu-1',
  description: 'Deployed by Flux',
  productionEnvironment: false,
  transientEnvironment: false,
  environmentUrl: URL,
  container: 'app',
  image: 'git.example.com/acme/web:1.4.2',
  payload: { version: '1.4.2', digest: DIGEST, cluster: 'eu-1' },
  warnings: [],
  ...o,
});
const origin: Origin = {
  source: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
  workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
  container: 'app',
  image: 'git.example.com/acme/web:1.4.2',
};
const id = (sha: string) => ({ forge: 'forgejo' as const, owner: 'acme', repo: 'web', environment: 'staging', sha, deploymentName: 'web' });

/** The real store, the commit-status publisher and the client against a simulator. */
async function setup(t: Test) {
  const sim = await startForgejoSimulator({ tokens: [TOKEN], repos: ['acme/web'] });
  t.teardown(() => sim.close());
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const deployments = new DeploymentStore(db);
  const forge = new ForgejoClient({ apiBase: sim.apiUrl, token: TOKEN, userAgent: 'gdb-test' });
  const statuses = new CommitStatusPublisher({ forge, store: new CommitStatusRows(deployments), log, now: () => T0 });
  const template = parseContextTemplate(DEFAULT_CONTEXT_TEMPLATE) as ContextTemplate;
  const publisher = new ForgejoPublisher({ statuses, deployments, template, log, now: () => T0 });
  const shown = (sha: string) => sim.statuses('acme', 'web', sha).map((s) => [s.state, s.context, s.description, s.target_url]);
  return { sim, deployments, publisher, shown };
}

t.test('a rollout, a newer commit, cleanup: statuses on Forgejo and rows in the cache', async (t) => {
  const { sim, deployments, publisher, shown } = await setup(t);
  const CONTEXT = 'deploy/staging (eu-1)';
  t.same(await publisher.publish(target(SHA_A), origin, 'in_progress', 'Progressing'), {
    context: CONTEXT,
    sent: ['in_progress'],
    read: true,
  });
  t.same(await publisher.publish(target(SHA_A), origin, 'success', 'Rollout complete'), {
    context: CONTEXT,
    sent: ['success'],
    read: false,
  });
  const historyA = [
    ['pending', CONTEXT, '1.4.2 on eu-1 · Progressing', URL],
    ['success', CONTEXT, '1.4.2 on eu-1 · Rollout complete', URL],
  ];
  t.same(shown(SHA_A), historyA);
  t.match(deployments.get(id(SHA_A)), { forge: 'forgejo', context: CONTEXT, state: 'success', deploymentId: null });

  // B succeeds: A leaves the cache (cleanup never ends it) and its statuses stay on Forgejo as history.
  const b = target(SHA_B, { payload: { version: '1.5.0' } });
  t.match(await publisher.publish(b, origin, 'success', 'Rollout complete'), { sent: ['success'] });
  t.equal(deployments.get(id(SHA_A)), undefined, "A's row is forgotten");
  t.same(shown(SHA_A), historyA, "A's statuses unchanged");
  const rowB = deployments.get(id(SHA_B));
  t.match(rowB, { state: 'success', context: CONTEXT });

  t.equal(await publisher.retire(rowB!, 'Kustomization apps deleted'), true);
  t.same(shown(SHA_B), [
    ['success', CONTEXT, '1.5.0 on eu-1 · Rollout complete', URL],
    ['success', CONTEXT, 'Deployment gone: Kustomization apps deleted', ''],
  ]);
  t.match(deployments.get(id(SHA_B)), { state: 'gone' });
  const sent = sim.requests.length;
  t.equal(await publisher.retire(deployments.get(id(SHA_B))!, 'again'), false, 'a second end sends nothing');
  t.equal(sim.requests.length, sent, 'no request at all: the cache knows');
  t.same(sim.violations, []);
});

t.test('only a success of the same workload supersedes; a failure, another workload, a pending row keep older rows', async (t) => {
  const { deployments, publisher } = await setup(t);
  await publisher.publish(target(SHA_A), origin, 'success', 'Rollout complete');
  await publisher.publish(target(SHA_B), origin, 'failure', 'Progress deadline exceeded');
  t.match(deployments.get(id(SHA_A)), { state: 'success' }, 'a failed newer commit does not supersede');
  const other = { ...origin, workload: { ...origin.workload, name: 'web-canary' } };
  await publisher.publish(target('c'.repeat(40)), other, 'success', 'Rollout complete');
  t.match(deployments.get(id(SHA_A)), { state: 'success' }, 'another workload does not supersede');
  deployments.setPending(id(SHA_A), 'gone', T0);
  await publisher.publish(target(SHA_B), origin, 'success', 'Rollout complete');
  t.match(deployments.get(id(SHA_A)), { pendingState: 'gone' }, 'a row left pending by a crash stays until settled');
});

t.test('a deployment-name annotation (task) is part of the context; a row keeps the context it was made with', async (t) => {
  const { sim, deployments, publisher } = await setup(t);
  const named = target(SHA_A, { task: 'shop-api', deploymentName: 'shop-api', environmentUrl: undefined });
  const r = await publisher.publish(named, origin, 'success', 'Rollout complete');
  t.equal(r.context, 'deploy/staging/shop-api (eu-1)');
  t.match(sim.statuses('acme', 'web', SHA_A), [{ context: 'deploy/staging/shop-api (eu-1)', target_url: '' }]);
  t.equal(deployments.get({ ...id(SHA_A), deploymentName: 'shop-api' })?.context, r.context);
  const moved = await publisher.publish({ ...named, cluster: 'eu-2' }, origin, 'success', 'Rollout complete');
  t.same(moved, { context: r.context, sent: [], read: false }, 'the stored context wins over a recomputed one');
});

t.test('statusText: what runs (version, else short digest, else image name and tag), where, and the verdict', (t) => {
  const rows: Array<[string, Partial<ReportTarget>, string]> = [
    ['version label', {}, '1.4.2 on eu-1 · Rollout complete'],
    ['digest, shortened to 12 hex', { payload: { digest: DIGEST } }, 'sha256:0123456789ab on eu-1 · Rollout complete'],
    ['a version that is not text', { payload: { version: 142, digest: DIGEST } }, 'sha256:0123456789ab on eu-1 · Rollout complete'],
    ['image name and tag', { payload: {} }, 'web:1.4.2 on eu-1 · Rollout complete'],
    ['registry with a port', { payload: {}, image: 'localhost:5000/acme/web:2.0' }, 'web:2.0 on eu-1 · Rollout complete'],
    ['image without a registry', { payload: {}, image: 'web' }, 'web on eu-1 · Rollout complete'],
    ['another cluster', { cluster: 'us-east' }, '1.4.2 on us-east · Rollout complete'],
  ];
  for (const [name, o, want] of rows) t.equal(statusText(target(SHA_A, o), 'Rollout complete'), want, name);
  const long = 'x'.repeat(300);
  t.equal(statusText(target(SHA_A), long), `1.4.2 on eu-1 · ${long}`, 'not cut here (the status body cuts)');
  t.end();
});
